/**
 * Issuing from a CSR under a template: the request is read and its signature
 * checked (csr.ts), then held to the template (key strength, subject
 * attributes, names, SAN types) before anything is signed. A refusal names
 * what the template forbids; nothing is stored. What the certificate may do
 * (key usage, extended key usage, validity) comes from the template alone.
 */
import { isIP } from 'node:net'
import { PkiErrors } from '../errors.js'
import type { Signer } from './ca.js'
import { authorityKeyId, basicConstraints, buildCertificate, crlDistributionPoint, extKeyUsage, keyUsage, newSerial, ocspAccess, serialHex, subjectAltName, subjectKeyId } from './certificate.js'
import { CsrProblem, parseCsr, sanText, type ParsedCsr, type SanType } from './csr.js'
import { toPem } from './der.js'
import { keyIdentifier, type ExtendedKeyUsage, type KeyUsage } from './x509.js'
import { why, type Phrase } from './why.js'

export interface Template {
  id: string
  name: string
  description: string | null
  key_usage: KeyUsage[]
  extended_key_usage: ExtendedKeyUsage[]
  validity_days: number
  name_patterns: string[]
  subject_attributes: string[]
  san_types: SanType[]
  min_rsa_bits: number
  min_ec_bits: number
  created_at: string
}

const LABEL = '[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?'
const DNS_NAME = new RegExp(`^${LABEL}(\\.${LABEL})*$`, 'i')
/**
 * What a common name may be: a DNS name, or a user name (kernel/identity/schemas/users.ts: letters, digits
 * and `. _ @ -`), since FreeRADIUS takes an EAP-TLS certificate's common name as the user. Still labels
 * joined by single dots: `a..b`, `.a` and `a.` stay refused, as in a DNS name.
 */
const CN_LABEL = '[a-z0-9_@-]+'
const CN_NAME = new RegExp(`^${CN_LABEL}(\\.${CN_LABEL})*$`, 'i')
/** A name pattern: `*`, `*.` or `*@` and a name, or a name itself, of the common name's characters. */
const PATTERN = new RegExp(`^(\\*|(\\*[.@])?${CN_LABEL}(\\.${CN_LABEL})*)$`, 'i')

export const validNamePattern = (p: string) => PATTERN.test(p) && p.length <= 253

/**
 * `*` any name; `*.example.net` one or more labels before `.example.net`; `*@example.net` a user name
 * ending in `@example.net`; anything else itself; all case-insensitive. A common name (`cn`) may be a
 * user name (`alice_smith`, `bob@corp.example`); a DNS name (`dns`, a SAN) must be a DNS name.
 */
export function nameAllowed(name: string, patterns: readonly string[], kind: 'cn' | 'dns' = 'dns'): boolean {
  if (!(kind === 'cn' ? CN_NAME : DNS_NAME).test(name) || name.length > 253) return false
  const n = name.toLowerCase()
  return patterns.some((p) => {
    const q = p.toLowerCase()
    if (q === '*') return true
    if (q.startsWith('*.') || q.startsWith('*@')) return n.endsWith(q.slice(1)) && n.length > q.length - 1
    return n === q
  })
}

/**
 * RFC 5280's upper bounds (Appendix A, ub-*), in characters, for the attributes a template may allow;
 * `C` is exactly two letters. Longer values are refused, never cut.
 */
const SUBJECT_MAX: Record<string, number> = { CN: 64, O: 64, OU: 64, L: 128, ST: 128, C: 2, serialNumber: 64, emailAddress: 255 }
/**
 * What a subject value refuses, as names do (sdk NAME_PATTERN): C0 and C1 controls, DEL, line and
 * paragraph separators, and the direction marks, embeddings, overrides and isolates. A subject is shown
 * in lists, the audit trail, the approval page and the approver's mail: it must not forge a line there.
 */
const SUBJECT_REFUSED = /[\u0000-\u001F\u007F-\u009F\u061C\u200E\u200F\u2028\u2029\u202A-\u202E\u2066-\u2069]/
/** SAN values are printable ASCII already (csr.ts); these bound their length. */
const SAN_MAX: Record<string, number> = { email: 254, uri: 2048 }

/** The CSR, read and checked; its problems as the API's 422s at `csr`. */
export function readCsr(pem: string): ParsedCsr {
  try {
    return parseCsr(pem)
  } catch (e) {
    if (!(e instanceof CsrProblem)) throw e
    const vars = { reason: e.reason }
    if (e.kind === 'signature') throw PkiErrors.csrSignatureInvalid({ field: 'csr', vars })
    if (e.kind === 'key_unsupported') throw PkiErrors.keyUnsupported({ field: 'csr', vars })
    if (e.kind === 'san_unsupported') throw PkiErrors.sanForbidden({ field: 'csr', vars })
    throw PkiErrors.csrInvalid({ field: 'csr', vars })
  }
}

/** Throws the 422 for the first thing the template forbids. */
export function enforceTemplate(csr: ParsedCsr, t: Template): void {
  const k = csr.key
  if ((k.type === 'rsa' && k.bits < t.min_rsa_bits) || (k.type === 'ec' && k.bits < t.min_ec_bits)) {
    throw PkiErrors.keyTooWeak({ field: 'csr', vars: { algorithm: k.algorithm, rsa: t.min_rsa_bits, ec: t.min_ec_bits } })
  }
  const subject = (reason: Phrase) => PkiErrors.subjectForbidden({ field: 'csr', vars: { reason } })
  for (const p of csr.subjectParts) {
    if (!t.subject_attributes.includes(p.type)) throw subject(why('subject_attribute', { type: p.type, allowed: t.subject_attributes.length ? t.subject_attributes.join(', ') : why('none') }))
    // Say where, never echo it: the value is what must not reach a reader as it is.
    const refused = SUBJECT_REFUSED.exec(p.value)
    if (refused) throw subject(why('subject_character', { type: p.type, code: `U+${refused[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}` }))
    if (p.value.trim() === '') throw subject(why('subject_empty', { type: p.type }))
    const max = SUBJECT_MAX[p.type]
    if (max !== undefined && [...p.value].length > max) throw subject(why('subject_too_long', { type: p.type, length: [...p.value].length, max }))
    if (p.type === 'CN' && !nameAllowed(p.value, t.name_patterns, 'cn')) throw subject(why('subject_cn_pattern', { name: p.value, patterns: t.name_patterns.join(', ') }))
  }
  if (!csr.subjectParts.some((p) => p.type === 'CN') && csr.san.length === 0) throw subject(why('subject_no_name'))
  const san = (reason: Phrase) => PkiErrors.sanForbidden({ field: 'csr', vars: { reason } })
  for (const s of csr.san) {
    if (!t.san_types.includes(s.type)) throw san(why('san_type', { san: sanText(s), type: s.type, allowed: t.san_types.length ? t.san_types.join(', ') : why('none') }))
    if (s.value.length > (SAN_MAX[s.type] ?? 253)) throw san(why('san_too_long', { type: s.type, length: s.value.length, max: SAN_MAX[s.type] ?? 253 }))
    if (s.type === 'dns' && !nameAllowed(s.value, t.name_patterns)) throw san(why('san_pattern', { san: sanText(s), patterns: t.name_patterns.join(', ') }))
    if (s.type === 'ip' && isIP(s.value) === 0) throw san(why('san_not_ip', { san: sanText(s) }))
    if (s.type === 'email' && !/^[^@\s]+@[^@\s]+$/.test(s.value)) throw san(why('san_not_email', { san: sanText(s) }))
  }
}

export interface IssueInput {
  csr: ParsedCsr
  template: Template
  ca: Signer
  /** `identity.public_url`, when set: the CRL and OCSP locations written into the certificate. */
  publicUrl: string | null
  now?: Date
}

/** The signed certificate and the row that records it. The CA must be valid now (checked by the caller). */
export function issue(i: IssueInput) {
  // Whole seconds: what the certificate can say, so the row says the same.
  const now = new Date(Math.floor((i.now ?? new Date()).getTime() / 1000) * 1000)
  const notBefore = new Date(now.getTime() - 60_000)
  let notAfter = new Date(now.getTime() + i.template.validity_days * 86_400_000)
  if (notAfter > i.ca.notAfter) notAfter = i.ca.notAfter
  const serial = newSerial()
  const base = i.publicUrl?.replace(/\/+$/, '')
  const extensions = [
    basicConstraints(false),
    keyUsage(i.template.key_usage),
    ...(i.template.extended_key_usage.length ? [extKeyUsage(i.template.extended_key_usage)] : []),
    subjectKeyId(keyIdentifier(i.csr.spki)),
    authorityKeyId(i.ca.keyId),
    ...(i.csr.san.length ? [subjectAltName(i.csr.san)] : []),
    ...(base ? [crlDistributionPoint(`${base}/api/v1/public/crl/${i.ca.id}.crl`), ocspAccess(`${base}/api/v1/public/ocsp`)] : []),
  ]
  const der = buildCertificate({ serial, issuer: i.ca, subjectDer: i.csr.subjectDer, spki: i.csr.spki, notBefore, notAfter, extensions })
  return {
    der,
    row: {
      ca_id: i.ca.id,
      template_id: i.template.id,
      serial: serialHex(serial),
      subject: i.csr.subject,
      san: i.csr.san.map(sanText).join(', '),
      key_algorithm: i.csr.key.algorithm,
      certificate: toPem(der, 'CERTIFICATE'),
      not_before: notBefore,
      not_after: notAfter,
    },
  }
}
