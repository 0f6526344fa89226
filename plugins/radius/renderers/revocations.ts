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
import type { AccessRevocation } from '../../../sdk/index.js'
import { DIRECTORY, REFUSED } from './users.js'

const VERIFIERS = 'portcullis/verifiers'

interface Entry {
  /** The SHA-512 crypt verifier, or "directory"; null: refused or no password. */
  credential: string | null
  /** Expiration, seconds since 1970. */
  expires: number | null
}

/** Per user: what the users file lets in. Items are `name op value` joined by ", " (users.ts). */
function entries(files: { path: string; content: string }[]): Map<string, Entry> {
  const out = new Map<string, Entry>()
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
  const before = entries(release)
  const after = entries(now)
  const nowSeconds = Math.floor(at.getTime() / 1000)
  const out: AccessRevocation[] = []
  for (const [name, old] of [...before].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    // The release refuses this user by itself (refused, no password, or its own expiry has passed).
    if (old.credential === null || (old.expires !== null && old.expires <= nowSeconds)) continue
    const cur = after.get(name)
    if (!cur || cur.credential === null) out.push({ subject: 'user', name, change: 'not_admitted', at: null })
    else if (cur.credential !== old.credential) out.push({ subject: 'user', name, change: 'password_changed', at: null })
    else if (cur.expires !== null && (old.expires === null || cur.expires < old.expires)) {
      out.push({ subject: 'user', name, change: cur.expires <= nowSeconds ? 'not_admitted' : 'expires_sooner', at: new Date(cur.expires * 1000).toISOString() })
    }
  }
  return out
}
