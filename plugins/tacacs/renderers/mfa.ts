/**
 * The second factor on tac_plus-ng (setting tacacs.mfa_mode), through the platform's internal
 * surface (docs/mfa.md "On the devices"): every user with a password checks it through MAVIS
 * (`password login = mavis`, PAP following login), and the MAVIS chain ends in our own backend,
 * renderers/mfa-backend.ts, written into the release as portcullis-mfa.pl. It checks the password against
 * the release's shadow file, then asks the surface whether the user owes a code (so enrolling or
 * resetting needs no deploy) and checks it:
 *
 * - a user without MFA: the password alone, as before;
 * - a user with MFA: the password followed by the 6-digit code, at the ASCII password prompt (the
 *   prompt says so) and in PAP alike. tac_plus-ng's ASCII login asks MAVIS once per prompt and has no
 *   second prompt after a right password: its challenge (`login backend = mavis chalresp`) comes
 *   before the password and replaces it, and the retry prompt after a refusal logs the password step
 *   as a failed login, counts it against the lockout and says "Password incorrect" (authen.c
 *   do_ascii_login, send_password_prompt). One answer carrying both is what holds.
 * - the surface unreachable or refusing the key: the backend answers an error, the reason on its
 *   stderr (the daemon's log); the first module's `script out` makes it a refusal (syntax.ts
 *   MAVIS_NO_ERROR), so PAP and ASCII both answer FAIL: the login fails closed, never ERROR.
 *
 * CHAP and MS-CHAP carry no code: while the second factor is on, no user gets them (as with the lockout).
 * Checked against tac_plus-ng in test/e2e/mfa.test.ts.
 */
import { existsSync } from 'node:fs'
import path from 'node:path'
import { MAVIS_NO_ERROR, tacComment, tacString, TacPlusNgRenderError } from './syntax.js'

export const TACACS_MFA_MODES = ['append', 'off'] as const
export type TacacsMfaMode = (typeof TACACS_MFA_MODES)[number]

/** The backend's file in the release (mode 0600 declared, 0640 for the daemon's group on disk). */
export const TAC_PLUS_NG_MFA_BACKEND = 'portcullis-mfa.pl'
export { MFA_BACKEND_SOURCE } from './mfa-backend.js'

export interface TacPlusNgMfa {
  /** Server option mfa.internal_url (scheme, host, port). */
  baseUrl: string
  key: string
  /** Server option tacacs.perl_binary. */
  perl: string
  /** Server option tacacs.mavis_directory (or its default): libmavis_external.so. */
  mavisDirectory: string
  /** Absolute paths the daemon reads them at: in the active release folder. */
  backendPath: string
  shadowPath: string
}

const URL_SHAPE = /^https?:\/\/(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/

/** Refuses to render what the daemon host cannot run: the named server option is the fix. */
export function checkMfaPrograms(m: Pick<TacPlusNgMfa, 'perl' | 'mavisDirectory' | 'baseUrl'>): void {
  if (!URL_SHAPE.test(m.baseUrl)) throw new TacPlusNgRenderError('server option mfa.internal_url is not a URL of scheme, host and port')
  if (!existsSync(m.perl)) throw new TacPlusNgRenderError(`the second factor (tacacs.mfa_mode) needs Perl for its MAVIS backend: ${m.perl} does not exist; set server option tacacs.perl_binary`)
  const external = path.join(m.mavisDirectory, 'libmavis_external.so')
  if (!existsSync(external)) throw new TacPlusNgRenderError(`the second factor (tacacs.mfa_mode) needs the tac_plus-ng MAVIS folder: ${external} does not exist; set server option tacacs.mavis_directory`)
}

/**
 * The backend processes tac_plus-ng may run at once (`childs max`): one a login, held for the
 * whole wait of a push (up to mfa.push_timeout_seconds), so more than the module's default 20.
 */
export const MFA_BACKEND_PROCESSES = 64

/** The `mavis module = external` block of the backend (indent `T`): last in the chain. */
export function mfaBackendLines(m: TacPlusNgMfa, T: string, first = false): string[] {
  for (const p of [m.backendPath, m.shadowPath, m.perl]) if (!path.isAbsolute(p)) throw new TacPlusNgRenderError(`the MFA backend path ${JSON.stringify(p)} is not absolute`)
  return [
    tacComment('The passwords, then the second factor through the platform (server option mfa.internal_url, setting mfa.internal_key; tacacs.mfa_mode)'),
    'mavis module = external {',
    `${T}setenv SHADOWFILE = ${tacString(m.shadowPath, 'the shadow file path')}`,
    `${T}setenv MFA_URL = ${tacString(m.baseUrl, 'server option mfa.internal_url')}`,
    `${T}setenv MFA_KEY = ${tacString(m.key, 'setting mfa.internal_key')}`,
    // Each login waiting for a push holds one backend process: up to this many wait at once (default 20).
    `${T}childs max = ${MFA_BACKEND_PROCESSES}`,
    `${T}exec = ${tacString(m.perl, 'server option tacacs.perl_binary')} perl ${tacString(m.backendPath, 'the MFA backend path')}`,
    // First in the chain (no lockout): the platform unreachable is a refusal (FAIL, never ERROR).
    ...(first ? [`${T}script out = {`, `${T}${T}${MAVIS_NO_ERROR}`, `${T}}`] : []),
    '}',
  ]
}

/** Without the lockout's chain: the MAVIS folder, then the backend alone. */
export function mfaMavisLines(m: TacPlusNgMfa, T: string): string[] {
  return [`mavis path = ${tacString(m.mavisDirectory, 'server option tacacs.mavis_directory')}`, ...mfaBackendLines(m, T, true)]
}

/** The ASCII password prompt, while the second factor is on. */
export const MFA_PASSWORD_PROMPT = 'Password (followed by your 6-digit code if you use MFA): '
