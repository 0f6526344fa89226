/**
 * Directory users on tac_plus-ng (docs/directory.md, docs/tac_plus-ng.md): a user with `source:
 * directory` has no password here. They are not written as user blocks; tac_plus-ng asks MAVIS for
 * them (`user backend = mavis`, `login backend = mavis`, `pap backend = mavis`), and the last module
 * of the MAVIS chain runs the upstream Perl backend mavis_tacplus-ng_ldap.pl (Net::LDAP), configured
 * from the settings `directory.*`:
 *
 * - its `script in` lets through only the platform's directory users with network login (any other
 *   name is skipped: not found, refused), and hands each the rest of their profile as TACPROFILE (their
 *   local user groups, their expiry), which the backend returns and tac_plus-ng parses into the user;
 * - the backend binds as the reader (directory.bind_dn), finds the entry by `(<user_attribute>=NAME)`
 *   under directory.user_base_dn (it refuses a name holding `(`, `)`, `|`, `&`, `=`, `*` or `,`, and
 *   tac_plus-ng's own MAVIS user filter refuses `()|=[]<>/+` before), binds as the entry with the
 *   password (PAP, ASCII login), and returns the groups that list the entry (member under
 *   directory.group_base_dn, or memberOf: Active Directory, nested groups followed);
 * - of those, only the directory groups mapped to a user group (directory_group_dn) come back as
 *   TACMEMBER (LDAP_MEMBEROF_REGEX), lower-cased by the module's `script out`; each is declared as a
 *   tac_plus-ng group named by the lower-cased DN and member of the user group it maps to, so that
 *   `member == GROUP` holds for the directory's members: the AAA policy's rules apply unchanged.
 *
 * Users the daemon builds from MAVIS are kept per worker for `mavis cache timeout` (120 s); the
 * password is never cached (the backend answers PASSWORD_ONESHOT), so every login asks the directory,
 * and while it is down every directory login is refused (the backend's ERR answer, with its reason in
 * the daemon's log): fail closed. The backend reconnects by itself when the directory is back.
 *
 * The reader's password is written only into tac_plus-ng.cfg (mode 0600), as the backend's LDAP_PASSWD.
 * The script in holds one test per directory user: a MAVIS request (a directory login) costs one string
 * comparison per directory user, local users never reach it.
 */
import { existsSync } from 'node:fs'
import path from 'node:path'
import type { Knex } from 'knex'
import { directorySettingRefs as D, readDaemonDirectory, type DaemonDirectory, type IdentityService, type NetworkUser, type SettingsService } from '../../../sdk/index.js'
import { userGroupIdent } from './names.js'
import { byteOrder, MAVIS_NO_ERROR, tacComment, tacString, TacPlusNgRenderError } from './syntax.js'

export const LDAP_BACKEND = 'mavis_tacplus-ng_ldap.pl'
export const DIRECTORY_CA_FILE = 'directory-ca.pem'

export interface TacPlusNgDirectory extends DaemonDirectory {
  /** Absolute path the daemon reads the directory's CA at (in the active release), or null: the system's. */
  caPath: string | null
  /** Server options tacacs.mavis_directory (or its default) and tacacs.perl_binary. */
  mavisDirectory: string
  perl: string
}

type DirectoryUser = Pick<NetworkUser, 'username' | 'group_ids' | 'expires_at' | 'source'>

export const isDirectoryUser = (u: { source?: 'directory' }) => u.source === 'directory'

const ATTRIBUTE = /^[A-Za-z][A-Za-z0-9-]{0,63}$/
const URL = /^ldaps?:\/\/[A-Za-z0-9.:[\]-]+(:[0-9]{1,5})?\/?$/
const DN = /^[A-Za-z][A-Za-z0-9-]*=[^\u0000-\u001f\u007f"\\%$]+$/

/** A Perl single-quoted string (TLS_OPTIONS is eval'd as a Perl hash). */
const perlString = (v: string) => `'${v.replace(/[\\']/g, (c) => '\\' + c)}'`

/** The DN lower-cased, as the backend's answer is lower-cased (`script out`): the name of its tac_plus-ng group. */
const dnGroupName = (dn: string) => dn.toLowerCase()

/** The mapped directory groups: DN (lower-cased) → the user groups' identifiers, in byte order. */
function mappedGroups(d: TacPlusNgDirectory, userGroups: { id: string; name: string }[]): Map<string, string[]> {
  const ident = new Map(userGroups.map((g) => [g.id, userGroupIdent(g.name)]))
  const out = new Map<string, string[]>()
  for (const g of d.groups) {
    if (!DN.test(g.dn)) throw new TacPlusNgRenderError(`the directory group ${JSON.stringify(g.dn)} of a user group is not a DN tac_plus-ng can match`)
    const id = ident.get(g.id)
    if (!id) continue
    const k = dnGroupName(g.dn)
    out.set(k, [...new Set([...(out.get(k) ?? []), id])].sort(byteOrder))
  }
  return new Map([...out].sort((a, b) => byteOrder(a[0], b[0])))
}

/** The backend's LDAP_MEMBEROF_REGEX: exactly the mapped DNs (Perl, matched with /i), captured whole; none: a regex that matches nothing. */
function memberOfRegex(dns: string[]): string {
  if (!dns.length) return '^(?!)'
  return `^(${dns.map((dn) => dn.replace(/[^A-Za-z0-9=,_-]/g, (c) => '\\' + c)).join('|')})$`
}

/** The group declarations of the mapped directory groups, after the user groups. */
export function directoryGroupLines(d: TacPlusNgDirectory, userGroups: { id: string; name: string }[]): string[] {
  return [...mappedGroups(d, userGroups)].map(([dn, members]) => `group ${tacString(dn, 'a directory group DN')} { member = ${members.join(',')} }`)
}

/** The rest of a directory user's profile, as tac_plus-ng parses a user block's body: local groups, expiry. */
function profileOf(u: DirectoryUser, groupIdent: ReadonlyMap<string, string>): string {
  const members = [...new Set(u.group_ids.map((id) => groupIdent.get(id)).filter((n): n is string => n !== undefined))].sort(byteOrder)
  const items: string[] = []
  if (members.length) items.push(`member = ${members.join(',')}`)
  if (u.expires_at) {
    const ms = new Date(u.expires_at).getTime()
    if (!Number.isFinite(ms)) throw new TacPlusNgRenderError(`the expiry ${JSON.stringify(u.expires_at)} is not an instant`)
    items.push(`valid until = ${Math.max(1, Math.floor(ms / 1000))}`)
  }
  return `{ ${items.join(' ')}${items.length ? ' ' : ''}}`
}

/**
 * The lines of the tac_plus-ng block: where users come from, and the LDAP module (after the lockout's
 * modules when the lockout is on, which then counts directory users' wrong passwords too).
 */
export function directoryMavisLines(d: TacPlusNgDirectory, users: DirectoryUser[], userGroups: { id: string; name: string }[], o: { declarePath: boolean }, T: string): string[] {
  if (!URL.test(d.url)) throw new TacPlusNgRenderError('setting directory.url is not an ldap:// or ldaps:// URL')
  if (!ATTRIBUTE.test(d.userAttribute)) throw new TacPlusNgRenderError('setting directory.user_attribute is not an attribute name')
  for (const p of [d.mavisDirectory, d.perl, ...(d.caPath ? [d.caPath] : [])]) if (!path.isAbsolute(p)) throw new TacPlusNgRenderError(`the directory path ${JSON.stringify(p)} is not absolute`)
  const groupIdent = new Map(userGroups.map((g) => [g.id, userGroupIdent(g.name)]))
  const mapped = [...mappedGroups(d, userGroups).keys()]
  const directoryUsers = users.filter(isDirectoryUser).sort((a, b) => byteOrder(a.username, b.username))
  const t = Math.max(1, Math.min(30, Math.floor(d.timeoutSeconds)))
  const tls = [...(d.caPath ? [`cafile => ${perlString(d.caPath)}`] : []), "verify => 'require'"].join(', ')
  const env = (name: string, value: string, what: string) => `${T}setenv ${name} = ${tacString(value, what)}`
  return [
    ...(o.declarePath ? [`mavis path = ${tacString(d.mavisDirectory, 'server option tacacs.mavis_directory')}`] : []),
    tacComment('Users not written below are asked of MAVIS: the directory users, checked by the LDAP backend (plugins/tacacs/renderers/directory.ts)'),
    'user backend = mavis',
    'login backend = mavis',
    'pap backend = mavis',
    'mavis module = external {',
    `${T}${tacComment('Only the directory users with network login, each with the rest of their profile; anyone else is not found')}`,
    `${T}script in = {`,
    ...directoryUsers.map((u) => `${T}${T}if ($USER == ${tacString(u.username)}) { set $TACPROFILE = ${tacString(profileOf(u, groupIdent))} continue }`),
    // Answered here, not found: no later module, no directory lookup.
    `${T}${T}set $RESULT = "NAK"`,
    `${T}${T}return`,
    `${T}}`,
    `${T}${tacComment('Group DNs lower-cased: the names of the directory groups declared after the user groups')}`,
    `${T}script out = {`,
    `${T}${T}if (defined($TACMEMBER)) tolower $TACMEMBER`,
    // First in the chain (no lockout, no second factor): an empty password ("Password not set.") or another backend error is a refusal.
    ...(o.declarePath ? [`${T}${T}${MAVIS_NO_ERROR}`] : []),
    `${T}}`,
    env('LDAP_HOSTS', d.url.replace(/\/$/, ''), 'setting directory.url'),
    ...(d.startTls ? [env('USE_STARTTLS', '1', 'StartTLS')] : []),
    env('TLS_OPTIONS', tls, 'the directory TLS options'),
    env('LDAP_CONNECT_TIMEOUT', String(t), 'setting directory.timeout_seconds'),
    ...(d.bindDn !== null ? [env('LDAP_USER', d.bindDn, 'setting directory.bind_dn'), env('LDAP_PASSWD', d.bindPassword ?? '', 'setting directory.bind_password')] : []),
    env('LDAP_BASE', d.userBaseDn, 'setting directory.user_base_dn'),
    env('LDAP_SCOPE', 'sub', 'the scope'),
    env('LDAP_FILTER', `(${d.userAttribute}=%s)`, 'setting directory.user_attribute'),
    env('LDAP_BASE_GROUP', d.groupBaseDn ?? d.userBaseDn, 'setting directory.group_base_dn'),
    // The groups listing the entry (or a group listing it: nested groups are followed).
    env('LDAP_FILTER_GROUP', '(member=%s)', 'the group filter'),
    env('LDAP_MEMBEROF_REGEX', memberOfRegex(mapped), 'the mapped directory groups'),
    env('LDAP_SKIP_POSIXGROUP', '1', 'posix groups'),
    // No group from an attribute of the entry (tacMember by default): only the mapped directory groups make members.
    env('LDAP_TACMEMBER', 'portcullisNoSuchAttribute', 'the tacMember attribute'),
    `${T}exec = ${tacString(d.perl, 'server option tacacs.perl_binary')} perl ${tacString(path.join(d.mavisDirectory, LDAP_BACKEND), 'server option tacacs.mavis_directory')}`,
    '}',
  ]
}

/**
 * The directory as the settings say, for directory users; null while directory.url is null (they are
 * then unknown to the daemon). Refuses to render what the daemon host cannot run: the server option is the fix.
 */
export async function readDirectory(
  settings: SettingsService,
  identity: IdentityService,
  snapshot: Knex.Transaction,
  o: { mavisDirectory: string | null; perl: string; caPath: string },
): Promise<TacPlusNgDirectory | null> {
  const url = await settings.get(D.url, snapshot)
  if (url === null) return null
  if (!o.mavisDirectory) throw new TacPlusNgRenderError('directory users need the tac_plus-ng MAVIS folder, not found next to tacacs.binary: set server option tacacs.mavis_directory')
  if (!existsSync(o.perl)) throw new TacPlusNgRenderError(`directory users need Perl for the LDAP MAVIS backend: ${o.perl} does not exist; set server option tacacs.perl_binary`)
  for (const f of ['libmavis_external.so', LDAP_BACKEND]) {
    if (!existsSync(path.join(o.mavisDirectory, f))) throw new TacPlusNgRenderError(`directory users need the tac_plus-ng MAVIS folder: ${path.join(o.mavisDirectory, f)} does not exist; set server option tacacs.mavis_directory`)
  }
  const directory = (await readDaemonDirectory(settings, identity, snapshot))!
  return { ...directory, caPath: directory.caCertificate ? o.caPath : null, mavisDirectory: o.mavisDirectory, perl: o.perl }
}
