/**
 * The TOTP second-factor provider: the one place a code is computed. It is a
 * module-level instance so the verify route and the tests share it: the tests
 * wrap `check` to prove the budget stops a burnt token before any code is
 * computed.
 */
import { matchStep } from './totp.js'

export class TotpProvider {
  /** The time step the code matches (greater than `lastStep`, so never a replay), or null. */
  check(secret: Uint8Array, code: string, lastStep: number | null, nowMs = Date.now()): number | null {
    return matchStep(secret, code, { nowMs, lastStep })
  }
}

export const totpProvider = new TotpProvider()
