/**
 * argon2id at the production cost (64 MiB, 3 passes, 4 lanes) is some 350 ms of CPU a call, and the
 * suite makes thousands: every test app's first start hashes its administrator's password, every sign-in
 * verifies one, every test user gets one. The results are a function of their inputs, so in the test
 * process each is computed once and reused:
 * - `verify(hash, password)` is pure: the same pair always answers the same;
 * - `hash(password, options)` answers the first hash made for that password and those options again.
 *   It is a valid argon2id hash of the password at the same parameters, only its salt is shared with
 *   the earlier one (no test compares two hashes of one password).
 * The code under test calls the same functions with the same parameters; only the time changes.
 * TEST_ARGON2=real turns the cache off.
 */
import argon2 from 'argon2'

type Hash = typeof argon2.hash
type Verify = typeof argon2.verify

export const argon2Calls = { hashed: 0, hashesReused: 0, verified: 0, verdictsReused: 0 }

export function memoizeArgon2(): void {
  if (process.env.TEST_ARGON2 === 'real') return
  const realHash: Hash = argon2.hash
  const realVerify: Verify = argon2.verify
  const hashes = new Map<string, Promise<string>>()
  const verdicts = new Map<string, Promise<boolean>>()
  const m = argon2 as { hash: Hash; verify: Verify }
  m.hash = ((password: string | Buffer, options?: Parameters<Hash>[1]) => {
    // A raw hash, or a salt the caller chose, is computed as asked.
    if (typeof password !== 'string' || (options && ('salt' in options || 'raw' in options))) return realHash(password, options as never)
    const key = JSON.stringify([password, options ?? null])
    const known = hashes.get(key)
    if (known) {
      argon2Calls.hashesReused++
      return known
    }
    argon2Calls.hashed++
    const made = realHash(password, options as never) as unknown as Promise<string>
    hashes.set(key, made)
    made.catch(() => hashes.delete(key))
    return made
  }) as Hash
  m.verify = ((digest: string, password: string | Buffer, options?: Parameters<Verify>[2]) => {
    if (typeof password !== 'string' || options) return realVerify(digest, password, options)
    const key = JSON.stringify([digest, password])
    const known = verdicts.get(key)
    if (known) {
      argon2Calls.verdictsReused++
      return known
    }
    argon2Calls.verified++
    const made = realVerify(digest, password)
    verdicts.set(key, made)
    made.catch(() => verdicts.delete(key))
    return made
  }) as Verify
}
