/**
 * The CA module: certificate authorities made here (a root, self-signed, or
 * an issuing CA signed by a root of ours) or imported (a PEM key and chain,
 * checked: the key is the first certificate's, each certificate is signed by
 * the next, the last is a self-signed root, every one a CA and valid now).
 *
 * A CA's private key is PKCS#8 PEM sealed with the master key (SDK secrets,
 * purpose `pki.ca_key`) the moment it exists; no route answers it. Opened
 * keys are kept in memory per CA: a CA row never changes its key.
 */
import { createPrivateKey, generateKeyPair, X509Certificate, type KeyObject } from 'node:crypto'
import { promisify } from 'node:util'
import type { Knex } from 'knex'
import type { RowOf, SecretsService } from '../../../sdk/index.js'
import { PkiErrors } from '../errors.js'
import type { CaTable } from '../tables.js'
import { authorityKeyId, basicConstraints, buildCertificate, keyUsage, newSerial, serialHex, subjectKeyId, type Issuer } from './certificate.js'
import { pemBlocks, toPem } from './der.js'
import { certificateFacts, encodeName, keyFacts, keyIdentifier, spkiOf, type CertificateFacts, type NameAttribute } from './x509.js'
import { why, type Phrase } from './why.js'

export const CA_KEY_PURPOSE = 'pki.ca_key'
export const CA_KEY_ALGORITHMS = ['RSA-3072', 'RSA-4096', 'ECDSA-P256', 'ECDSA-P384'] as const
export type CaKeyAlgorithm = (typeof CA_KEY_ALGORITHMS)[number]

type CaRow = RowOf<typeof CaTable>
const generate = promisify(generateKeyPair)

/** A fresh key pair; RSA 4096 takes a second or more, off the event loop. */
export async function generateCaKey(algorithm: CaKeyAlgorithm): Promise<KeyObject> {
  const { privateKey } =
    algorithm === 'RSA-3072' || algorithm === 'RSA-4096'
      ? await generate('rsa', { modulusLength: algorithm === 'RSA-3072' ? 3072 : 4096 })
      : await generate('ec', { namedCurve: algorithm === 'ECDSA-P256' ? 'prime256v1' : 'secp384r1' })
  return privateKey
}

/** What one CA signs with, opened once. */
export interface Signer extends Issuer {
  id: string
  facts: CertificateFacts
  certificateDer: Buffer
  notBefore: Date
  notAfter: Date
}

export interface NewCa {
  name: string
  subject: Partial<Record<NameAttribute, string>>
  keyAlgorithm: CaKeyAlgorithm
  validityDays: number
  parent: Signer | null
}

/** The row to insert for a CA made here (the key generated, the certificate signed). */
export async function makeCa(o: NewCa, secrets: SecretsService, now = new Date()) {
  const key = await generateCaKey(o.keyAlgorithm)
  const spki = spkiOf(key)
  const ownId = keyIdentifier(spki)
  const subjectDer = encodeName(o.subject)
  const issuer: Issuer = o.parent ?? { key, subjectDer, keyId: ownId }
  const notBefore = new Date(now.getTime() - 60_000)
  let notAfter = new Date(now.getTime() + o.validityDays * 86_400_000)
  // A CA cannot outlive the one that signed it.
  if (o.parent && notAfter > o.parent.notAfter) notAfter = o.parent.notAfter
  const serial = newSerial()
  const der = buildCertificate({
    serial,
    issuer,
    subjectDer,
    spki,
    notBefore,
    notAfter,
    // An issuing CA signs end entities only (pathLen 0); digitalSignature lets it sign OCSP responses itself.
    extensions: [basicConstraints(true, o.parent ? 0 : undefined), keyUsage(['digitalSignature', 'keyCertSign', 'cRLSign']), subjectKeyId(ownId), authorityKeyId(issuer.keyId)],
  })
  const facts = certificateFacts(der)
  return {
    name: o.name,
    parent_id: o.parent?.id ?? null,
    kind: o.parent ? ('issuing' as const) : ('root' as const),
    key_algorithm: o.keyAlgorithm,
    subject: facts.subject,
    serial: serialHex(serial),
    certificate: toPem(der, 'CERTIFICATE'),
    // The parent is a root of ours (routes/cas.ts), so the chain is its certificate alone.
    chain: o.parent ? toPem(o.parent.certificateDer, 'CERTIFICATE') : '',
    sealed_key: secrets.encrypt(CA_KEY_PURPOSE, key.export({ type: 'pkcs8', format: 'pem' }) as string),
    imported: false,
    // As the certificate says them (whole seconds).
    not_before: facts.notBefore,
    not_after: facts.notAfter,
  }
}

/** The row to insert for an imported CA; throws the API's 422 naming `field` for what is wrong. */
export function importCa(name: string, chainPem: string, keyPem: string, secrets: SecretsService, now = new Date()) {
  let key: KeyObject
  try {
    key = createPrivateKey(keyPem)
  } catch {
    throw PkiErrors.importInvalid({ field: 'private_key', vars: { reason: why('key_not_pem') } })
  }
  const facts = keyFacts(key)
  if (!facts || (facts.type === 'rsa' && facts.bits < 2048) || (facts.type === 'ec' && facts.bits > 384)) {
    throw PkiErrors.importInvalid({ field: 'private_key', vars: { reason: why('key_unsupported') } })
  }
  const ders = pemBlocks(chainPem, 'CERTIFICATE')
  if (ders.length === 0) throw PkiErrors.importInvalid({ field: 'certificate_chain', vars: { reason: why('no_certificate_block') } })
  let certs: X509Certificate[]
  try {
    certs = ders.map((d) => new X509Certificate(d))
  } catch {
    throw PkiErrors.importInvalid({ field: 'certificate_chain', vars: { reason: why('not_x509') } })
  }
  if (!certs[0].checkPrivateKey(key)) throw PkiErrors.keyMismatch({ field: 'private_key' })
  const bad = (reason: Phrase) => PkiErrors.chainInvalid({ field: 'certificate_chain', vars: { reason } })
  certs.forEach((c, i) => {
    if (!c.ca) throw bad(why('chain_not_ca', { number: i + 1, subject: c.subject.replace(/\n/g, ', ') }))
    if (new Date(c.validFrom) > now || new Date(c.validTo) < now) throw bad(why('chain_not_valid_now', { number: i + 1, from: c.validFrom, to: c.validTo }))
    const issuer = certs[i + 1] ?? c
    if (!c.checkIssued(issuer) || !c.verify(issuer.publicKey)) throw bad(i + 1 < certs.length ? why('chain_not_signed', { number: i + 1, next: i + 2 }) : why('chain_no_root'))
  })
  const info = certificateFacts(ders[0])
  return {
    name,
    parent_id: null,
    kind: certs.length === 1 ? ('root' as const) : ('issuing' as const),
    key_algorithm: facts.algorithm,
    subject: info.subject,
    serial: info.serialHex,
    certificate: toPem(ders[0], 'CERTIFICATE'),
    chain: ders.slice(1).map((d) => toPem(d, 'CERTIFICATE')).join(''),
    sealed_key: secrets.encrypt(CA_KEY_PURPOSE, key.export({ type: 'pkcs8', format: 'pem' }) as string),
    imported: true,
    not_before: info.notBefore,
    not_after: info.notAfter,
  }
}

/** Opened CA keys, per CA id: a CA's key and certificate never change once stored. */
export class Signers {
  private readonly open = new Map<string, Signer>()

  constructor(
    private readonly knex: Knex,
    private readonly secrets: SecretsService,
  ) {}

  fromRow(row: Pick<CaRow, 'id' | 'certificate' | 'sealed_key'>): Signer {
    const hit = this.open.get(row.id)
    if (hit) return hit
    const der = pemBlocks(row.certificate, 'CERTIFICATE')[0]
    const facts = certificateFacts(der)
    const signer: Signer = {
      id: row.id,
      key: createPrivateKey(this.secrets.decrypt(CA_KEY_PURPOSE, row.sealed_key)),
      subjectDer: facts.subjectDer,
      keyId: facts.keyId,
      facts,
      certificateDer: der,
      notBefore: facts.notBefore,
      notAfter: facts.notAfter,
    }
    this.open.set(row.id, signer)
    return signer
  }

  async get(id: string, db: Knex | Knex.Transaction = this.knex): Promise<Signer | null> {
    const hit = this.open.get(id)
    if (hit) return hit
    const row = await db('pki_cas').where({ id }).first('id', 'certificate', 'sealed_key')
    return row ? this.fromRow(row) : null
  }

  /** Every CA, opened (the OCSP responder matches a request's issuer hashes against them). */
  async all(): Promise<Signer[]> {
    const rows = await this.knex('pki_cas').select('id', 'certificate', 'sealed_key')
    return rows.map((r) => this.fromRow(r))
  }
}
