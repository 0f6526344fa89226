/**
 * The renderer's `revokedSince`: what an earlier release's users file (`portcullis/verifiers`, users.ts)
 * lets in that the users file rendered now does not. A rollback to such a release is refused by the
 * kernel (docs/deploy.md, "Rollback never re-admits revoked access").
 *
 * Why compare the files and not re-render only the users file into the old release: the users file
 * is not identity alone. Each entry also carries the user's principals (control:Tmp-String-3), keys
 * numbered per render from the rules of that render ("u1", "g2"…), so today's entries beside an old
 * policy would hand users another rule's keys. Refusing with the reason is exact; mixing is not.
 */
import { type AccessRevocation, type UserAdmission, usersRevokedSince } from '../../../sdk/index.js'
import { DIRECTORY, REFUSED } from './users.js'

const VERIFIERS = 'portcullis/verifiers'

/** Per user: what the users file lets in. Items are `name op value` joined by ", " (users.ts). */
function entries(files: { path: string; content: string }[]): Map<string, UserAdmission> {
  const out = new Map<string, UserAdmission>()
  const file = files.find((f) => f.path === VERIFIERS)
  if (!file) return out
  for (const line of file.content.split('\n')) {
    const m = /^u\.([^\t]+)\t(.*)$/.exec(line)
    if (!m) continue
    const items = m[2]
    const refused = new RegExp(`(?:^|, )${REFUSED} := `).test(items)
    const directory = new RegExp(`(?:^|, )${DIRECTORY} := `).test(items)
    // The password is its SHA-512 crypt verifier: the NT hash changes with it; the CHAP cleartext is the same password.
    const crypt = /(?:^|, )Crypt-Password := '([^']*)'/.exec(items)
    const exp = /(?:^|, )Expiration := (\d+)/.exec(items)
    out.set(m[1], {
      credential: refused ? null : crypt ? crypt[1] : directory ? 'directory' : null,
      expires: exp ? Number(exp[1]) : null,
    })
  }
  return out
}

/** Each user the release lets in (password valid, not expired at `at`) whom the files rendered now refuse, or let in with another password or for less long. */
export function freeradiusRevokedSince(release: { path: string; content: string }[], now: { path: string; content: string }[], at: Date): AccessRevocation[] {
  return usersRevokedSince(entries(release), entries(now), at)
}
