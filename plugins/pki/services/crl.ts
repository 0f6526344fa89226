/**
 * CRLs (RFC 5280 5): version 2, numbered (cRLNumber, one more at every
 * regeneration), the authority key identifier of the CA that signs it, one
 * entry per revoked certificate that has not expired (with its reason code,
 * left out for `unspecified` as 5.3.1 asks). Regenerated in the revoking
 * transaction, and by the schedule before nextUpdate (index.ts).
 */
import type { Knex } from 'knex'
import type { Signer } from './ca.js'
import { ctx, enumerated, extension, int, seq, time } from './der.js'
import { OID, signed, signatureAlgorithm } from './x509.js'

/** RFC 5280 5.3.1 reasons we revoke with (certificateHold is reversible and removeFromCRL delta-only: neither offered). */
export const REVOCATION_REASONS = {
  unspecified: 0,
  keyCompromise: 1,
  cACompromise: 2,
  affiliationChanged: 3,
  superseded: 4,
  cessationOfOperation: 5,
  privilegeWithdrawn: 9,
  aACompromise: 10,
} as const
export type RevocationReason = keyof typeof REVOCATION_REASONS

export interface RevokedEntry {
  serial: string
  revoked_at: Date
  revocation_reason: string | null
}

// The reason extension of each code, made once: 100,000 entries share eight values.
const REASON_EXT = new Map<number, Buffer>(Object.values(REVOCATION_REASONS).map((c) => [c, seq(extension(OID.crlReason, enumerated(c)))]))

export interface CrlInput {
  ca: Signer
  number: bigint
  thisUpdate: Date
  nextUpdate: Date
  revoked: readonly RevokedEntry[]
}

export function buildCrl(i: CrlInput): Buffer {
  const entries = i.revoked.map((r) => {
    const code = REVOCATION_REASONS[(r.revocation_reason ?? 'unspecified') as RevocationReason] ?? 0
    return seq(int(Buffer.from(r.serial, 'hex')), time(r.revoked_at), ...(code === 0 ? [] : [REASON_EXT.get(code)!]))
  })
  const alg = signatureAlgorithm(i.ca.key)
  const tbs = seq(
    int(1),
    alg.identifier,
    i.ca.subjectDer,
    time(i.thisUpdate),
    time(i.nextUpdate),
    // An empty list is left out, not written empty (5.1.2.6).
    ...(entries.length ? [seq(...entries)] : []),
    ctx(0, seq(extension(OID.authorityKeyIdentifier, seq(ctx(0, i.ca.keyId, false))), extension(OID.crlNumber, int(i.number)))),
  )
  return signed(tbs, i.ca.key, alg)
}

/**
 * A new CRL for the CA, in `trx`: the CA row locked (two revocations in a row
 * get two numbers, in order), every unexpired revoked certificate listed.
 */
export async function regenerateCrl(trx: Knex.Transaction, ca: Signer, validityHours: number, now = new Date()): Promise<{ number: bigint; der: Buffer }> {
  const row = await trx('pki_cas').where({ id: ca.id }).forUpdate().first('crl_number')
  if (!row) throw new Error(`CA ${ca.id} is gone`)
  const revoked = await trx('pki_certificates')
    .where({ ca_id: ca.id })
    .whereNotNull('revoked_at')
    .where('not_after', '>', now)
    .orderBy('revoked_at')
    .select('serial', 'revoked_at', 'revocation_reason')
  const number = BigInt(row.crl_number) + 1n
  const thisUpdate = new Date(Math.floor(now.getTime() / 1000) * 1000)
  const nextUpdate = new Date(thisUpdate.getTime() + validityHours * 3_600_000)
  const der = buildCrl({ ca, number, thisUpdate, nextUpdate, revoked: revoked as RevokedEntry[] })
  await trx('pki_cas').where({ id: ca.id }).update({ crl_number: Number(number), crl_der: der, crl_this_update: thisUpdate, crl_next_update: nextUpdate })
  return { number, der }
}
