/**
 * PKCS#10 certificate requests (RFC 2986): read strictly, signature checked
 * with the key they carry, and reduced to what issuing uses: the subject as
 * encoded and as attributes, the public key and its strength, and the
 * subjectAltName entries. Every other requested extension is ignored: what a
 * certificate may do is the template's to say, never the requester's.
 */
import { isIP } from 'node:net'
import { verify, type KeyObject } from 'node:crypto'
import { children, content, DerError, expectTag, pemBlocks, readOid, readRoot, whole, type Node } from './der.js'
import { CSR_SIGNATURES, decodeName, keyFacts, nameText, OID, publicKeyFrom, type KeyFacts, type NamePart } from './x509.js'
import { why, type Phrase } from './why.js'

export type SanType = 'dns' | 'ip' | 'email' | 'uri'

export interface SanEntry {
  type: SanType
  value: string
}

export interface ParsedCsr {
  subjectDer: Buffer
  subjectParts: NamePart[]
  subject: string
  spki: Buffer
  publicKey: KeyObject
  key: KeyFacts
  san: SanEntry[]
}

/** Why a CSR was refused, as the error code the API answers with. */
export class CsrProblem extends Error {
  constructor(
    readonly kind: 'malformed' | 'signature' | 'key_unsupported' | 'san_unsupported',
    /** Why, in the caller's language when the error is answered (locales/reasons-*.ts). */
    readonly reason: Phrase,
  ) {
    super(reason.key)
  }
}

const GENERAL_NAME_TYPES: Record<number, SanType> = { 0x81: 'email', 0x82: 'dns', 0x86: 'uri', 0x87: 'ip' }

export function parseSan(extnValue: Buffer): SanEntry[] {
  const out: SanEntry[] = []
  for (const g of children(expectTag(readRoot(extnValue), 0x30, 'subjectAltName'))) {
    const type = GENERAL_NAME_TYPES[g.tag]
    if (!type) throw new CsrProblem('san_unsupported', why('csr_san_tag', { tag: `0x${g.tag.toString(16)}` }))
    const b = content(g)
    if (type === 'ip') {
      if (b.length === 4) out.push({ type, value: [...b].join('.') })
      else if (b.length === 16) out.push({ type, value: (b.toString('hex').match(/.{4}/g) ?? []).map((h) => h.replace(/^0+(?=.)/, '')).join(':') })
      else throw new CsrProblem('malformed', why('csr_san_ip_length'))
    } else {
      const v = b.toString('latin1')
      if (!/^[\x21-\x7e]+$/.test(v)) throw new CsrProblem('malformed', why('csr_san_not_ascii', { type }))
      out.push({ type, value: v })
    }
  }
  return out
}

/** The request's extensions (from its extensionRequest attribute): OID → extnValue. */
function requestedExtensions(attributes: Node | undefined): Map<string, Buffer> {
  const out = new Map<string, Buffer>()
  if (!attributes) return out
  for (const attr of children(attributes)) {
    const [type, values] = children(expectTag(attr, 0x30, 'attribute'))
    if (readOid(type) !== OID.extensionRequest) continue
    for (const exts of children(values)) {
      for (const ext of children(expectTag(exts, 0x30, 'extensions'))) {
        const parts = children(ext)
        out.set(readOid(parts[0]), content(expectTag(parts[parts.length - 1], 0x04, 'extension value')))
      }
    }
  }
  return out
}

/** One PEM `CERTIFICATE REQUEST` (or `NEW CERTIFICATE REQUEST`), checked. Throws CsrProblem. */
export function parseCsr(pem: string): ParsedCsr {
  const blocks = [...pemBlocks(pem, 'CERTIFICATE REQUEST'), ...pemBlocks(pem, 'NEW CERTIFICATE REQUEST')]
  if (blocks.length !== 1) throw new CsrProblem('malformed', why('csr_one_block'))
  try {
    return parseDer(blocks[0])
  } catch (e) {
    if (e instanceof CsrProblem) throw e
    if (e instanceof DerError) throw new CsrProblem('malformed', why('csr_not_pkcs10', { detail: e.message }))
    throw e
  }
}

function parseDer(der: Buffer): ParsedCsr {
  const [info, algorithm, signature, ...rest] = children(expectTag(readRoot(der), 0x30, 'certification request'))
  if (!info || !algorithm || !signature || rest.length) throw new DerError('three fields expected')
  const [version, subject, spkiNode, attributes] = children(expectTag(info, 0x30, 'certificationRequestInfo'))
  if (!version || content(expectTag(version, 0x02, 'version')).toString('hex') !== '00') throw new DerError('version must be 0')
  if (!spkiNode) throw new DerError('no public key')
  if (attributes && attributes.tag !== 0xa0) throw new DerError('attributes must be [0]')

  const spki = Buffer.from(whole(spkiNode))
  const publicKey = publicKeyFrom(spki)
  const facts = publicKey && keyFacts(publicKey)
  if (!publicKey || !facts) throw new CsrProblem('key_unsupported', why('csr_key_unsupported'))

  const sigAlg = readOid(children(algorithm)[0])
  const hash = CSR_SIGNATURES[sigAlg]
  if (!hash) throw new CsrProblem('signature', why('csr_signature_algorithm', { oid: sigAlg }))
  const sigBytes = content(expectTag(signature, 0x03, 'signature')).subarray(1)
  if (!verify(hash, whole(info), publicKey, sigBytes)) throw new CsrProblem('signature', why('csr_not_self_signed'))

  const exts = requestedExtensions(attributes)
  const sanValue = exts.get(OID.subjectAltName)
  const subjectParts = decodeName(subject)
  return {
    subjectDer: Buffer.from(whole(subject)),
    subjectParts,
    subject: nameText(subjectParts),
    spki,
    publicKey,
    key: facts,
    san: sanValue ? parseSan(sanValue) : [],
  }
}

/** A SAN value as openssl and the API write it (`DNS:radius.example.net`). */
export const sanText = (s: SanEntry): string => `${{ dns: 'DNS', ip: 'IP', email: 'email', uri: 'URI' }[s.type]}:${s.value}`

export const isIpLiteral = (v: string) => isIP(v) !== 0
