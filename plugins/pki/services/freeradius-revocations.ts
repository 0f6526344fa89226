/**
 * The `revokedSince` of the renderer `pki.freeradius`: what the trust files of an earlier FreeRADIUS
 * release (certs/portcullis/, freeradius.ts) let in that those rendered now do not: a CA it trusts
 * that is no longer trusted (a CA eap-issuer accepted as a client certificate's issuer then and does not
 * now: taken off pki.freeradius_extra_ca_ids or no longer pki.freeradius_ca_id, even while it stays in
 * ca.pem as the chain of another), and every certificate on a CRL now that the release's CRL of the same CA
 * does not list (revoked since). A rollback to such a release is refused by the kernel: the release's
 * trust file holds its CRL, and FreeRADIUS would accept those certificates again.
 */
import { X509Certificate } from 'node:crypto'
import type { AccessRevocation } from '../../../sdk/index.js'
import { children, content, expectTag, pemBlocks, readRoot, toPem, type Node } from './der.js'
import { freeradiusSerial } from './x509.js'

const CA_FILE = 'certs/portcullis/ca.pem'
const CRL_FILE = 'certs/portcullis/crl.pem'
const ISSUER_FILE = 'certs/portcullis/eap-issuer'

/** UTCTime or GeneralizedTime as ISO 8601. */
function readTime(n: Node): string {
  const s = content(n).toString('latin1')
  const m = /^(\d{2}|\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(s)
  if (!m) return s
  const year = m[1].length === 4 ? m[1] : Number(m[1]) >= 50 ? `19${m[1]}` : `20${m[1]}`
  return `${year}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}.000Z`
}

/** Per CRL: its issuer (the DER of the name, as hex) and its entries, serial (upper-case hex) to revocation date. */
function crls(files: { path: string; content: string }[]): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>()
  for (const der of pemBlocks(files.find((f) => f.path === CRL_FILE)?.content ?? '', 'X509 CRL')) {
    const tbs = children(readRoot(der))[0]
    const parts = children(expectTag(tbs, 0x30, 'tbsCertList'))
    let i = parts[0]?.tag === 0x02 ? 1 : 0 // version
    i++ // signature algorithm
    const issuer = der.subarray(parts[i].start, parts[i].end).toString('hex')
    i += 2 // issuer, thisUpdate
    if (parts[i] && (parts[i].tag === 0x17 || parts[i].tag === 0x18)) i++ // nextUpdate
    const entries = new Map<string, string>()
    if (parts[i]?.tag === 0x30) {
      for (const entry of children(parts[i])) {
        const [serial, date] = children(entry)
        entries.set(content(expectTag(serial, 0x02, 'serial')).toString('hex').replace(/^(00)+(?=.)/, '').toUpperCase(), readTime(date))
      }
    }
    out.set(issuer, entries)
  }
  return out
}

/**
 * The CAs a release trusts as a client certificate's issuer, by serial (as TLS-Cert-Serial), with their
 * subject: those eap-issuer accepts (each serial it compares, in every form it was written); a release
 * without eap-issuer trusted every certificate of ca.pem.
 */
function trusted(files: { path: string; content: string }[]): Map<string, string> {
  const subjects = new Map(pemBlocks(files.find((f) => f.path === CA_FILE)?.content ?? '', 'CERTIFICATE').map((d) => [freeradiusSerial(toPem(d, 'CERTIFICATE')), new X509Certificate(d).subject.replace(/\n/g, ', ')]))
  const issuer = files.find((f) => f.path === ISSUER_FILE)
  if (!issuer) return subjects
  return new Map([...issuer.content.matchAll(/&TLS-Cert-Serial != "([0-9a-f]+)"/g)].map((m) => [m[1], subjects.get(m[1]) ?? `serial ${m[1]}`]))
}

export function pkiRevokedSince(release: { path: string; content: string }[], now: { path: string; content: string }[]): AccessRevocation[] {
  const out: AccessRevocation[] = []
  const [trustedThen, trustedNow] = [trusted(release), trusted(now)]
  for (const [serial, name] of trustedThen) if (!trustedNow.has(serial)) out.push({ subject: 'ca', name, change: 'trust_removed', at: null })
  const [then, current] = [crls(release), crls(now)]
  for (const [issuer, entries] of current) {
    const before = then.get(issuer)
    // A CA whose CRL the release did not hold: with check_crl, FreeRADIUS refused its certificates then.
    if (!before) continue
    for (const [serial, at] of entries) if (!before.has(serial)) out.push({ subject: 'certificate', name: serial, change: 'certificate_revoked', at })
  }
  return out
}
