/**
 * The OCSP responder (RFC 6960): one public endpoint for every CA here. Each
 * request's CertID names its issuer by hashes of the issuer's name and key
 * (SHA-1 or SHA-2); the CA that matches signs the answer itself (4.2.2.2:
 * the issuing CA as responder, identified byKey). A serial it issued is
 * good or revoked (with time and reason); any other is unknown. A nonce in
 * the request is echoed in the response. A request we cannot read answers
 * malformedRequest; one for no CA of ours, unauthorized (2.3).
 */
import { createHash } from 'node:crypto'
import type { Knex } from 'knex'
import type { Signer, Signers } from './ca.js'
import { REVOCATION_REASONS, type RevocationReason } from './crl.js'
import { children, content, ctx, DerError, enumerated, expectTag, generalizedTime, octets, oid, readOid, readRoot, seq, whole } from './der.js'
import { OID, publicKeyBits, signed } from './x509.js'

const HASHES: Record<string, string> = { [OID.sha1]: 'sha1', [OID.sha256]: 'sha256', [OID.sha384]: 'sha384', [OID.sha512]: 'sha512' }
export const OCSP_STATUS = { malformedRequest: 1, internalError: 2, tryLater: 3, unauthorized: 6 } as const

/** An OCSPResponse without responseBytes: only the status. */
export const ocspError = (status: number): Buffer => seq(enumerated(status))

interface CertRequest {
  certIdDer: Buffer
  hash: string
  nameHash: Buffer
  keyHash: Buffer
  serialHex: string
}

function parseRequest(der: Buffer): { requests: CertRequest[]; nonce: Buffer | null } {
  const [tbs] = children(expectTag(readRoot(der), 0x30, 'OCSPRequest'))
  const fields = children(expectTag(tbs, 0x30, 'TBSRequest'))
  const list = fields.find((f) => f.tag === 0x30)
  if (!list) throw new DerError('no requestList')
  const requests = children(list).map((r) => {
    const [certId] = children(expectTag(r, 0x30, 'Request'))
    const [alg, nameHash, keyHash, serial] = children(expectTag(certId, 0x30, 'CertID'))
    const hash = HASHES[readOid(children(alg)[0])]
    if (!hash || !serial) throw new DerError('unsupported CertID hash')
    return {
      certIdDer: Buffer.from(whole(certId)),
      hash,
      nameHash: content(expectTag(nameHash, 0x04, 'issuerNameHash')),
      keyHash: content(expectTag(keyHash, 0x04, 'issuerKeyHash')),
      serialHex: content(expectTag(serial, 0x02, 'serialNumber')).toString('hex').replace(/^(00)+(?=.)/, '').toUpperCase(),
    }
  })
  if (requests.length === 0 || requests.length > 10) throw new DerError('one to ten requests')
  let nonce: Buffer | null = null
  const exts = fields.find((f) => f.tag === 0xa2)
  if (exts) {
    for (const ext of children(children(exts)[0])) {
      if (readOid(children(ext)[0]) === OID.ocspNonce) nonce = Buffer.from(whole(ext))
    }
  }
  return { requests, nonce }
}

/** Per CA and hash: the CertID hashes a request names it by (computed once). */
class IssuerIndex {
  private readonly byHash = new Map<string, Map<string, Signer>>()

  constructor(private readonly signers: Signer[]) {}

  find(r: CertRequest): Signer | null {
    let m = this.byHash.get(r.hash)
    if (!m) {
      m = new Map()
      for (const s of this.signers) {
        const nh = createHash(r.hash).update(s.subjectDer).digest('hex')
        const kh = createHash(r.hash).update(publicKeyBits(s.facts.spki)).digest('hex')
        m.set(`${nh}:${kh}`, s)
      }
      this.byHash.set(r.hash, m)
    }
    return m.get(`${r.nameHash.toString('hex')}:${r.keyHash.toString('hex')}`) ?? null
  }
}

/** A CA made on another node is found after at most this long (the index is rebuilt on a miss). */
const INDEX_REFRESH_MS = 5_000

export class OcspResponder {
  private index: IssuerIndex | null = null
  private indexedAt = 0

  constructor(
    private readonly knex: Knex,
    private readonly signers: Signers,
  ) {}

  /** A new CA was stored: the next request rebuilds the issuer index. */
  forget(): void {
    this.index = null
  }

  private async issuerIndex(): Promise<IssuerIndex> {
    if (!this.index) {
      this.index = new IssuerIndex(await this.signers.all())
      this.indexedAt = Date.now()
    }
    return this.index
  }

  async respond(requestDer: Buffer, now = new Date()): Promise<Buffer> {
    let parsed: ReturnType<typeof parseRequest>
    try {
      parsed = parseRequest(requestDer)
    } catch {
      return ocspError(OCSP_STATUS.malformedRequest)
    }
    let index = await this.issuerIndex()
    // A CA this node has not seen (made on another node since): look once more, at most every few seconds.
    if (parsed.requests.some((r) => !index.find(r)) && Date.now() - this.indexedAt > INDEX_REFRESH_MS) {
      this.forget()
      index = await this.issuerIndex()
    }
    const issuers = parsed.requests.map((r) => index.find(r))
    const signer = issuers[0]
    // One response is signed by one key: every CertID must name the same CA of ours.
    if (!signer || issuers.some((s) => s !== signer)) return ocspError(OCSP_STATUS.unauthorized)

    const serials = parsed.requests.map((r) => r.serialHex)
    const rows = await this.knex('pki_certificates').where({ ca_id: signer.id }).whereIn('serial', serials).select('serial', 'revoked_at', 'revocation_reason')
    const bySerial = new Map(rows.map((r) => [r.serial, r]))
    const produced = new Date(Math.floor(now.getTime() / 1000) * 1000)
    const single = parsed.requests.map((r) => {
      const row = bySerial.get(r.serialHex)
      let status: Buffer
      if (!row) status = Buffer.from([0x82, 0x00])
      else if (!row.revoked_at) status = Buffer.from([0x80, 0x00])
      else {
        const code = REVOCATION_REASONS[(row.revocation_reason ?? 'unspecified') as RevocationReason] ?? 0
        status = ctx(1, Buffer.concat([generalizedTime(row.revoked_at), ...(code ? [ctx(0, enumerated(code))] : [])]))
      }
      return seq(r.certIdDer, status, generalizedTime(produced))
    })
    const responseData = seq(
      ctx(2, octets(createHash('sha1').update(publicKeyBits(signer.facts.spki)).digest())),
      generalizedTime(produced),
      seq(...single),
      ...(parsed.nonce ? [ctx(1, seq(parsed.nonce))] : []),
    )
    const basic = signed(responseData, signer.key)
    return seq(enumerated(0), ctx(0, seq(oid(OID.ocspBasic), octets(basic))))
  }
}
