/**
 * The renderer's `revokedSince`: which users an earlier release of `tac_plus-ng.cfg` lets in that the
 * configuration rendered now does not (removed, no password, another password, an earlier expiry). A
 * rollback to such a release is refused by the kernel (docs/deploy.md, "Rollback never re-admits
 * revoked access").
 *
 * tac_plus-ng reads one file holding the devices, the rules and the users together, and a user block
 * names its groups (`member = …`) that the rules of the same file refer to: today's users cannot be put
 * into an old file without rendering its policy again, which is a deploy. So the rollback is refused.
 */
import { type AccessRevocation, type UserAdmission, usersRevokedSince } from '../../../sdk/index.js'
import { TAC_PLUS_NG_CONFIG_FILE } from './config.js'
import { TAC_PLUS_NG_SHADOW_FILE } from './lockout.js'

/** The value of a tac_plus-ng double-quoted string (syntax.ts tacString, names.ts tacName). */
function unquote(q: string): string {
  return q
    .slice(1, -1)
    .replace(/\\([0-7]{3}|.)/g, (_, e: string) => (e.length === 3 ? String.fromCharCode(parseInt(e, 8)) : e))
    .replaceAll('$\u0001{', '${')
}

const QUOTED = '"(?:[^"\\\\]|\\\\.)*"'

function entries(files: { path: string; content: string }[]): Map<string, UserAdmission> {
  const out = new Map<string, UserAdmission>()
  const cfg = files.find((f) => f.path === TAC_PLUS_NG_CONFIG_FILE)?.content ?? ''
  // With the lockout or the second factor, passwords are checked through MAVIS against the shadow file.
  const shadow = new Map<string, string>()
  for (const line of (files.find((f) => f.path === TAC_PLUS_NG_SHADOW_FILE)?.content ?? '').split('\n')) {
    const [name, crypt] = line.split(':')
    if (name && crypt) shadow.set(name, crypt)
  }
  let user: { name: string; login: string | null; expires: number | null } | null = null
  for (const line of cfg.split('\n')) {
    const open = new RegExp(`^\\s*user (${QUOTED}) \\{$`).exec(line)
    if (open) {
      user = { name: unquote(open[1]), login: null, expires: null }
      continue
    }
    // A directory user: let through to the LDAP backend by name (directory.ts).
    const dir = new RegExp(`^\\s*if \\(\\$USER == (${QUOTED})\\) \\{ set \\$TACPROFILE`).exec(line)
    if (dir) out.set(unquote(dir[1]), { credential: 'directory', expires: null })
    if (!user) continue
    if (/^\s*\}$/.test(line)) {
      // The password is its SHA-512 crypt verifier, in the block or (lockout, second factor) the shadow file.
      const crypt = user.login === 'mavis' ? shadow.get(user.name) : user.login?.startsWith('crypt "') ? unquote(user.login.slice(6)) : undefined
      out.set(user.name, { credential: crypt ?? null, expires: user.expires })
      user = null
      continue
    }
    const login = /^\s*password login = (.*)$/.exec(line)
    if (login) user.login = login[1]
    const until = /^\s*valid until = (\d+)$/.exec(line)
    if (until) user.expires = Number(until[1])
  }
  return out
}

/** Each user the release lets in (a password, not expired at `at`) whom the configuration rendered now refuses, or lets in with another password or for less long. */
export function tacPlusNgRevokedSince(release: { path: string; content: string }[], now: { path: string; content: string }[], at: Date): AccessRevocation[] {
  return usersRevokedSince(entries(release), entries(now), at)
}
