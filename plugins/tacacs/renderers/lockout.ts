/**
 * Account lockout on tac_plus-ng (setting identity.lockout_threshold > 0), through MAVIS: the
 * daemon counts failures only for a password it asks MAVIS about (authen.c asks only when the
 * user's password is `mavis`), so while the lockout is on each user with a password gets
 * `password login = mavis` (PAP, ASCII and an `enable N = login` follow it) and:
 *
 * - `tacauth_limit` keeps one file per user in a folder the workers write (renderer folders()):
 *   `blacklist count` failures in a row refuse the user for `blacklist time` seconds after the
 *   last one, whatever the password; a success removes the file. Its file name is a hash of
 *   `hash = USER,CUSTOM_0`: CUSTOM_0 is set, per user cleared by an administrator, to the clear's
 *   instant (users.lockout_cleared_at), so a clear starts a new count at the next deploy;
 * - `external` runs the upstream Perl backend mavis_tacplus_shadow.pl over the `shadow` file of
 *   this release (the SHA-512 crypt verifiers), by absolute path through the active release
 *   folder: the backend takes no path relative to the configuration.
 *
 * CHAP and MS-CHAP are checked by the daemon itself from the kept password, outside the count:
 * while the lockout is on no user gets them (the policy test says so).
 *
 * Checked against tac_plus-ng in test/e2e/lockout.test.ts; notes in docs/tac_plus-ng.md.
 */
import { existsSync } from 'node:fs'
import path from 'node:path'
import type { NetworkUser } from '../../../sdk/index.js'
import { byteOrder, MAVIS_NO_ERROR, tacComment, tacString, TacPlusNgRenderError } from './syntax.js'

/** The verifiers file of the release (mode 0600 declared: 0640 for the daemon's group on disk). */
export const TAC_PLUS_NG_SHADOW_FILE = 'shadow'
export const MAVIS_BACKEND = 'mavis_tacplus_shadow.pl'
const MAVIS_MODULES = ['libmavis_tacauth_limit.so', 'libmavis_external.so']
/**
 * tacauth_limit builds each count file's path from the first 36 characters of `<directory>/xx/`
 * (libmavis_tacauth_limit.c mavis_init_in: memcpy(hashfile, hashfile_tmp, 36)): a longer folder is
 * cut, and every user then shares one file, one count (measured: a ban of one user refused all).
 */
export const MAX_STATE_DIRECTORY = 32

export interface TacPlusNgLockout {
  /** identity.lockout_threshold (> 0). */
  threshold: number
  /** identity.lockout_seconds. */
  seconds: number
  /** Server option tacacs.mavis_directory (or its default). */
  mavisDirectory: string
  /** Server option tacacs.perl_binary. */
  perl: string
  /** Absolute path the daemon reads the shadow file at: in the active release folder. */
  shadowPath: string
  /** Absolute folder tacauth_limit keeps its counts in. */
  stateDirectory: string
}

type LockoutUser = Pick<NetworkUser, 'username' | 'verifiers' | 'lockout_cleared_at' | 'source'>

/** The mavis directory of a tac_plus-ng binary: `<prefix>/lib/mavis` for `<prefix>/sbin/tac_plus-ng` (a name is looked up on PATH). */
export function defaultMavisDirectory(binary: string): string | null {
  const candidates = binary.includes('/') ? [binary] : (process.env.PATH ?? '').split(':').filter(Boolean).map((d) => path.join(d, binary))
  const found = candidates.find((c) => existsSync(c))
  if (!found) return null
  const dir = path.join(path.dirname(path.dirname(path.resolve(found))), 'lib', 'mavis')
  return existsSync(dir) ? dir : null
}

/** Refuses to render a lockout the daemon host cannot run: the named server option is the fix. */
export function checkLockoutPrograms(l: Pick<TacPlusNgLockout, 'mavisDirectory' | 'perl' | 'stateDirectory'>): void {
  if (!existsSync(l.perl)) throw new TacPlusNgRenderError(`account lockout is on (identity.lockout_threshold > 0) and needs Perl for the MAVIS backend: ${l.perl} does not exist; set server option tacacs.perl_binary`)
  if (Buffer.byteLength(l.stateDirectory) > MAX_STATE_DIRECTORY) {
    throw new TacPlusNgRenderError(`account lockout is on (identity.lockout_threshold > 0) and its count folder ${l.stateDirectory} is longer than ${MAX_STATE_DIRECTORY} bytes, which makes tac_plus-ng count every user in one file: set server option tacacs.lockout_directory to a shorter absolute folder`)
  }
  for (const f of [...MAVIS_MODULES, MAVIS_BACKEND]) {
    if (!existsSync(path.join(l.mavisDirectory, f))) throw new TacPlusNgRenderError(`account lockout is on (identity.lockout_threshold > 0) and needs the tac_plus-ng MAVIS folder: ${path.join(l.mavisDirectory, f)} does not exist; set server option tacacs.mavis_directory`)
  }
}

const epochSeconds = (iso: string): number => {
  const ms = new Date(iso).getTime()
  if (!Number.isFinite(ms)) throw new TacPlusNgRenderError(`the lockout clear ${JSON.stringify(iso)} is not an instant`)
  return Math.max(1, Math.floor(ms / 1000))
}

/** The `mavis` lines of the tac_plus-ng block (indent `T`). */
export function mavisLines(l: TacPlusNgLockout, users: LockoutUser[], T: string, backend?: string[]): string[] {
  for (const p of [l.shadowPath, l.stateDirectory, l.mavisDirectory, l.perl]) if (!path.isAbsolute(p)) throw new TacPlusNgRenderError(`the lockout path ${JSON.stringify(p)} is not absolute`)
  // Directory users are counted too (their logins reach MAVIS: directory.ts), so their clears are written too.
  const cleared = users.filter((u) => (u.verifiers || u.source === 'directory') && u.lockout_cleared_at).sort((a, b) => byteOrder(a.username, b.username))
  return [
    `mavis path = ${tacString(l.mavisDirectory, 'server option tacacs.mavis_directory')}`,
    tacComment(`${l.threshold} wrong passwords in a row refuse the user for ${l.seconds} s after the last (identity.lockout_*)`),
    'mavis module = tacauth_limit {',
    `${T}blacklist count = ${l.threshold}`,
    `${T}blacklist time = ${l.seconds}`,
    `${T}directory = ${tacString(l.stateDirectory, 'the lockout folder')}`,
    // An unset CUSTOM_0 would leave the hash empty for everyone (one count shared by all users): always set.
    `${T}${tacComment('A clear by an administrator (users.lockout_cleared_at) names a new count file')}`,
    `${T}script in = {`,
    `${T}${T}set $CUSTOM_0 = "never cleared"`,
    ...cleared.map((u) => `${T}${T}if ($USER == ${tacString(u.username)}) set $CUSTOM_0 = ${tacString(`cleared ${epochSeconds(u.lockout_cleared_at!)}`)}`),
    `${T}}`,
    `${T}${tacComment('First in the chain: a backend error is answered as a refusal (FAIL, never ERROR), after the count')}`,
    `${T}script out = {`,
    `${T}${T}${MAVIS_NO_ERROR}`,
    `${T}}`,
    `${T}hash = USER,CUSTOM_0`,
    '}',
    // The second factor's backend (mfa.ts) checks the passwords itself, after the count.
    ...(backend ?? [
      tacComment(`The passwords: the upstream Perl backend over the release's ${TAC_PLUS_NG_SHADOW_FILE} file (server options tacacs.perl_binary, tacacs.mavis_directory)`),
      'mavis module = external {',
      `${T}setenv SHADOWFILE = ${tacString(l.shadowPath, 'the shadow file path')}`,
      // `exec = path argv0 argv1`: without argv0 perl reads its program from stdin and every login hangs.
      `${T}exec = ${tacString(l.perl, 'server option tacacs.perl_binary')} perl ${tacString(path.join(l.mavisDirectory, MAVIS_BACKEND), 'server option tacacs.mavis_directory')}`,
      '}',
    ]),
  ]
}

/**
 * The shadow file: `name:hash:lastchange:min:max:warn:::`. The backend treats lastchange 0 as
 * "must change the password" and refuses after lastchange + max days: a fixed day (2024-10-04)
 * and 99999 days keep the output the same for the same data and never expire.
 */
export function shadowFile(users: LockoutUser[]): string {
  const lines = users
    .filter((u) => u.verifiers)
    .sort((a, b) => byteOrder(a.username, b.username))
    .map((u) => {
      if (/[:\s]/.test(u.username)) throw new TacPlusNgRenderError(`user ${JSON.stringify(u.username)}: a name with ":" or a space cannot go into the shadow file`)
      return `${u.username}:${u.verifiers!.sha512_crypt}:20000:0:99999:7:::`
    })
  return lines.join('\n') + (lines.length ? '\n' : '')
}

/** A user block's password lines while the lockout is on. */
export const lockedPasswordLines = (T: string): string[] => [
  `${T}${tacComment('checked through MAVIS, which counts the failures (account lockout); no CHAP or MS-CHAP: tac_plus-ng checks those outside the count')}`,
  `${T}password login = mavis`,
  `${T}password pap = login`,
]
