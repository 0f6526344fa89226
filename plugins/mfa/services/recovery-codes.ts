/**
 * One-time recovery codes: the way back in for a user who lost the phone
 * (docs/mfa.md "Recovery codes"). A set is ten codes of 16 characters
 * (80 random bits each), shown once when made; only a hash of each is kept.
 *
 * The hash is scrypt with the user's id as the salt. Codes carry 80 bits, so
 * a stolen table cannot be brute-forced whatever the hash; scrypt (rather than
 * a plain digest) adds a memory-hard cost on top, and needs no key that could
 * be lost or rotated away. The salt is the user's id, not a per-code salt, so
 * checking a code costs one scrypt and one indexed row, and spending it is a
 * single DELETE … RETURNING: of two requests racing with one code, one wins.
 */
import { randomInt, scrypt } from 'node:crypto'
import type { Knex } from 'knex'

export const RECOVERY_CODE_COUNT = 10
/** Crockford's base32: no I, L, O or U, so a code read aloud or off paper is typed right. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
const CODE_CHARS = 16
/**
 * N=2^12, r=8: 4 MiB and ~10 ms a code. The 80 bits of a code are the real wall (2^80 guesses even
 * at a plain digest's speed is out of reach); the cost only has to be more than a digest's, and
 * a set of ten is made on the two cores of a small server within a request.
 */
const SCRYPT = { N: 4096, r: 8, p: 1, maxmem: 32 * 1024 * 1024 }

/** A new code as shown: four groups of four, `7K3M-Q9XD-2HFA-R8TW`. */
function newCode(): string {
  let s = ''
  for (let i = 0; i < CODE_CHARS; i++) s += ALPHABET[randomInt(ALPHABET.length)]
  return s.match(/.{4}/g)!.join('-')
}

/**
 * What the user typed, as stored: case, spaces and dashes do not matter, and
 * the letters Crockford's base32 reads as digits (I, L as 1; O as 0) count as
 * those digits. Null when it cannot be a code (then no scrypt is spent on it).
 */
export function normalizeRecoveryCode(input: string): string | null {
  const s = input.toUpperCase().replace(/[\s-]/g, '').replace(/[IL]/g, '1').replace(/O/g, '0')
  return s.length === CODE_CHARS && [...s].every((c) => ALPHABET.includes(c)) ? s : null
}

function hash(userId: string, normalized: string): Promise<string> {
  return new Promise((resolve, reject) =>
    scrypt(normalized, `portcullis-mfa-recovery:${userId}`, 32, SCRYPT, (err, key) => (err ? reject(err) : resolve(key.toString('base64url')))),
  )
}

export interface RecoveryStatus {
  remaining: number
  created_at: string | null
}

export class RecoveryCodes {
  constructor(private readonly knex: Knex) {}

  async status(userId: string, db: Knex | Knex.Transaction = this.knex): Promise<RecoveryStatus> {
    const row = (await db('mfa_recovery_code').where({ user_id: userId }).count<{ n: string | number }[]>({ n: '*' }).max({ at: 'created_at' }).first()) as
      | { n: string | number; at: Date | string | null }
      | undefined
    const remaining = Number(row?.n ?? 0)
    return { remaining, created_at: remaining && row?.at ? new Date(row.at).toISOString() : null }
  }

  /** A new set, replacing the whole earlier one (used or not); answers the codes as shown, the only time they exist in clear. */
  async regenerate(userId: string, trx: Knex.Transaction): Promise<string[]> {
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newCode)
    const hashes = await Promise.all(codes.map((c) => hash(userId, normalizeRecoveryCode(c)!)))
    await trx('mfa_recovery_code').where({ user_id: userId }).delete()
    await trx('mfa_recovery_code').insert(hashes.map((code_hash) => ({ user_id: userId, code_hash })))
    return codes
  }

  /**
   * Spends the code when it is one of the user's: true once, false for every other attempt
   * (wrong, already used, malformed, or the user has none). Atomic: the row is the code.
   */
  async consume(userId: string, input: string): Promise<boolean> {
    const normalized = normalizeRecoveryCode(input)
    if (!normalized) return false
    const code_hash = await hash(userId, normalized)
    return (await this.knex('mfa_recovery_code').where({ user_id: userId, code_hash }).delete()) > 0
  }

  /** Removes the user's codes; true when there were any. */
  async revoke(userId: string, db: Knex | Knex.Transaction = this.knex): Promise<boolean> {
    return (await db('mfa_recovery_code').where({ user_id: userId }).delete()) > 0
  }

  /** A confirmed authenticator or a push phone: what recovery codes back up. */
  async hasFactor(userId: string, db: Knex | Knex.Transaction = this.knex): Promise<boolean> {
    const totp = await db('mfa_totp').where({ user_id: userId, confirmed: true }).first('user_id')
    return !!totp || !!(await db('mfa_push_device').where({ user_id: userId }).first('id'))
  }

  /** Removes the codes of a user left without any second factor: codes back up a factor, they are none on their own. */
  async revokeIfNoFactor(userId: string, db: Knex | Knex.Transaction = this.knex): Promise<boolean> {
    return (await this.hasFactor(userId, db)) ? false : this.revoke(userId, db)
  }
}
