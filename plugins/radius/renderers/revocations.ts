/**
 * The renderer's `revokedSince`: what an earlier release's users file (`portcullis/verifiers`, users.ts)
 * lets in that the users file rendered now does not. A rollback to such a release is refused by the
 * kernel (docs/deploy.md, "Rollback never re-admits revoked access").
 *
 * Why compare the files and not re-render only the users file into the old release: the users file
 * is not identity alone. Each entry also carries the user's principals (control:Tmp-String-3), keys
 * numbered per render from the rules of that render ("u1", "g2"…), so today's entries beside an old
 * policy would hand users another rule's keys. Refusing with the reason is exact; mixing is not.
 *
 * MAB (the NAC part, nac-lookup.ts): an endpoint's groups decide which rule, so which VLAN, lets it
 * in. An endpoint the release places in a group and the files rendered now place in none (taken out
 * of its group, a guest's access expired, revoked or ended, or the endpoint deleted) is named: a
 * rollback would put the device back where that access was taken from it. A move from one group to
 * another is not: the device is still admitted by an administrator's choice, and which group gives
 * which VLAN is policy, which a rollback is there to restore (docs/deploy.md, docs/nac.md).
 */
import { type AccessRevocation, type UserAdmission, usersRevokedSince } from '../../../sdk/index.js'
import { NAC_ATTRIBUTES } from './nac-attributes.js'
import { DIRECTORY, REFUSED } from './users.js'

const VERIFIERS = 'portcullis/verifiers'
const ENDPOINTS = 'portcullis/nac-endpoints'

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

/**
 * The MACs that portcullis/nac-endpoints places in at least one endpoint group; null when the
 * release has no such file (no NAC policy rendered). One pass over the lines, one string test each:
 * thousands of endpoints cost milliseconds.
 */
function grouped(files: { path: string; content: string }[]): Set<string> | null {
  const file = files.find((f) => f.path === ENDPOINTS)
  if (!file) return null
  const member = `${NAC_ATTRIBUTES.endpointGroup} += `
  const out = new Set<string>()
  for (const line of file.content.split('\n')) {
    if (!line.startsWith('m.')) continue
    const tab = line.indexOf('\t')
    if (tab > 2 && line.includes(member, tab)) out.add(line.slice(2, tab))
  }
  return out
}

/**
 * Each endpoint the release places in a group whom the files rendered now place in none, by MAC. Now
 * without the file at all (no NAC policy rendered any more) counts as no group for anyone: the
 * rollback would bring back the NAC policy and with it every membership.
 */
function endpointsRevokedSince(release: { path: string; content: string }[], now: { path: string; content: string }[]): AccessRevocation[] {
  const before = grouped(release)
  if (!before?.size) return []
  const after = grouped(now) ?? new Set<string>()
  return [...before]
    .filter((mac) => !after.has(mac))
    .sort()
    .map((mac) => ({ subject: 'endpoint' as const, name: mac, change: 'not_admitted' as const, at: null }))
}

/** Each user the release lets in (password valid, not expired at `at`) whom the files rendered now refuse, or let in with another password or for less long; then each endpoint taken out of every group. */
export function freeradiusRevokedSince(release: { path: string; content: string }[], now: { path: string; content: string }[], at: Date): AccessRevocation[] {
  return [...usersRevokedSince(entries(release), entries(now), at), ...endpointsRevokedSince(release, now)]
}
