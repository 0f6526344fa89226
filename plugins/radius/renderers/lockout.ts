/**
 * User expiry and account lockout, enforced by FreeRADIUS itself (checked against 3.2.1 in
 * test/e2e-expiry-lockout.test.ts):
 *
 * - expiry: the user's case in `portcullis/verifiers` sets control:Expiration (seconds since 1970,
 *   users.expires_at); the `expiration` module, called right after the switch, answers `userlock`
 *   from that second on, which rejects with the reason `expired`. Before it, the module caps the
 *   reply's Session-Timeout at the seconds left (what rlm_expiration does);
 * - lockout (setting identity.lockout_threshold > 0): an rlm_cache instance in memory, keyed on the
 *   User-Name, holds per user the count of wrong passwords in a row (control:Tmp-Integer-8) and the
 *   time of the last (control:Tmp-Integer-9). Post-Auth-Type REJECT adds one for a `wrong_password`
 *   reject and writes the entry anew with the TTL identity.lockout_seconds (Cache-TTL < 0: expire
 *   and create); authorize merges it read-only (Cache-Read-Only) and rejects with `locked_out` at the
 *   threshold, whatever the password; an accepted login removes it (Cache-TTL 0). A clear by an
 *   administrator (users.lockout_cleared_at, control:Tmp-Integer-7) drops an entry older than it.
 *   A reject while locked out is not a wrong password and does not count: the lockout ends
 *   identity.lockout_seconds after the failure that reached the threshold.
 *
 * The counts live in the daemon's memory: a restart forgets them, and each node of a cluster counts
 * its own requests.
 */
import type { FreeradiusConfigInput } from './input.js'
import { CONTROL_ATTRIBUTES } from '../../../sdk/logs/freeradius.js'
import { expirationRefusal, HEADER, refusal, T } from './syntax.js'

export type Lockout = NonNullable<FreeradiusConfigInput['lockout']>

/** What the cache keeps per user: the failures in a row, and when the last one happened. */
const COUNT = 'Tmp-Integer-8'
const LAST = 'Tmp-Integer-9'
/** Set in the user's case: when an administrator last cleared the lockout. */
export const CLEARED = 'Tmp-Integer-7'

/** An ISO instant as the seconds since 1970 the daemon compares, at least 1 (0 reads as unset). */
export function epochSeconds(iso: string): number {
  const ms = new Date(iso).getTime()
  if (!Number.isFinite(ms)) throw new Error(`freeradius: ${JSON.stringify(iso)} is not an instant`)
  return Math.max(1, Math.floor(ms / 1000))
}

export const enabledLockout = (input: FreeradiusConfigInput): Lockout | null => (input.lockout && input.lockout.threshold > 0 ? input.lockout : null)

/** mods-enabled/ files: the expiration module always (so that the check can be called), the cache when the lockout is on. */
export function lockoutModules(input: FreeradiusConfigInput): { path: string; content: string }[] {
  const files = [{ path: 'mods-enabled/expiration', content: `${HEADER}\n# Refuses a user from the instant in control:Expiration on (users.expires_at).\nexpiration {\n}\n` }]
  const lockout = enabledLockout(input)
  if (lockout) {
    files.push({ path: 'mods-enabled/expr', content: `${HEADER}\n# %{expr:…}: the failure count plus one (portcullis/lockout-failed).\nexpr {\n}\n` })
    files.push({
      path: 'mods-enabled/portcullis_lockout',
      content: [
        HEADER,
        `# Wrong passwords in a row per User-Name, in memory (setting identity.lockout_threshold = ${lockout.threshold}).`,
        '# An entry lives identity.lockout_seconds after the failure that wrote it.',
        'cache portcullis_lockout {',
        `${T}driver = "rlm_cache_rbtree"`,
        `${T}key = "%{User-Name}"`,
        `${T}ttl = ${lockout.seconds}`,
        `${T}add_stats = no`,
        `${T}update {`,
        `${T}${T}&control:${COUNT} := &control:${COUNT}`,
        `${T}${T}&control:${LAST} := &control:${LAST}`,
        `${T}}`,
        '}',
        '',
      ].join('\n'),
    })
  }
  return files
}

/** Appended to `portcullis/verifiers`, after the switch (authorize): the expiry, then the lockout. */
export function authorizeChecks(input: FreeradiusConfigInput): string[] {
  const out = expirationRefusal('# Expiry (users.expires_at): rejected from that second on, the password not even checked.')
  const lockout = enabledLockout(input)
  if (!lockout) return out
  return [
    ...out,
    `# Lockout: ${lockout.threshold} wrong passwords in a row refuse the user for ${lockout.seconds} s (identity.lockout_*).`,
    'update control {',
    `${T}&Cache-Read-Only := yes`,
    '}',
    'portcullis_lockout',
    `if (&control:${COUNT}) {`,
    `${T}# Cleared by an administrator after these failures: forget them.`,
    `${T}if (&control:${CLEARED} && &control:${LAST} && &control:${LAST} < &control:${CLEARED}) {`,
    `${T}${T}update control {`,
    `${T}${T}${T}&Cache-TTL := 0`,
    `${T}${T}}`,
    `${T}${T}portcullis_lockout`,
    `${T}${T}update control {`,
    `${T}${T}${T}&${COUNT} !* ANY`,
    `${T}${T}${T}&${LAST} !* ANY`,
    `${T}${T}}`,
    `${T}}`,
    `${T}elsif (&control:${COUNT} >= ${lockout.threshold}) {`,
    ...refusal('locked_out', `the account is locked out after ${lockout.threshold} wrong passwords in a row`, T + T),
    `${T}${T}reject`,
    `${T}}`,
    '}',
  ]
}

/** `portcullis/lockout-failed`, included in Post-Auth-Type REJECT once the reason is known: a wrong password counts. */
export function lockoutFailed(input: FreeradiusConfigInput): string {
  const lockout = enabledLockout(input)
  if (!lockout) return `${HEADER}\n# The lockout is off (identity.lockout_threshold = 0): failures are not counted.\nnoop\n`
  return [
    HEADER,
    `# A wrong password counts one more failure; the entry is written anew, to live ${lockout.seconds} s from now.`,
    `if (&control:${CONTROL_ATTRIBUTES.rejectReason} && &control:${CONTROL_ATTRIBUTES.rejectReason} == "wrong_password") {`,
    `${T}update control {`,
    `${T}${T}&Cache-Read-Only := yes`,
    `${T}}`,
    `${T}portcullis_lockout`,
    `${T}update control {`,
    `${T}${T}&${COUNT} := "%{expr:%{%{control:${COUNT}}:-0} + 1}"`,
    `${T}${T}&${LAST} := "%l"`,
    `${T}${T}&Cache-TTL := -${lockout.seconds}`,
    `${T}}`,
    `${T}portcullis_lockout`,
    '}',
    '',
  ].join('\n')
}

/** `portcullis/lockout-passed`, included in post-auth for an accept: the failures in a row end. */
export function lockoutPassed(input: FreeradiusConfigInput): string {
  if (!enabledLockout(input)) return `${HEADER}\n# The lockout is off (identity.lockout_threshold = 0).\nnoop\n`
  return [HEADER, '# An accepted login ends the run of failures.', `if (&control:${COUNT}) {`, `${T}update control {`, `${T}${T}&Cache-TTL := 0`, `${T}}`, `${T}portcullis_lockout`, '}', ''].join('\n')
}
