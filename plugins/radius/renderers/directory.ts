/**
 * Directory users on FreeRADIUS (docs/directory.md, docs/freeradius.md): a user with `source:
 * directory` has no verifiers; the users file marks them (control:Tmp-String-7 = "directory") and
 * `portcullis/directory`, included in authorize right after the user lookup, sends them to the
 * directory through rlm_ldap (`mods-enabled/portcullis_directory`, from the settings `directory.*`):
 *
 * - PAP only (the NAS must send the password for an LDAP bind; MS-CHAPv2 against Active Directory
 *   is the domain sidecar's job, through ntlm_auth, not built);
 * - the reader account (directory.bind_dn) finds the entry by `(<user_attribute>=<User-Name>)` under
 *   directory.user_base_dn (rlm_ldap escapes the name, RFC 4515: `*)(uid=*` finds nobody), and reads
 *   the groups listing the entry (attribute member under directory.group_base_dn, and the
 *   entry's memberOf: Active Directory) only when a user group maps a directory group;
 * - `Auth-Type LDAP` binds as that entry with the password typed (`portcullis/directory-authenticate`);
 * - each user group mapped to a directory group the entry is listed in adds its principal key to
 *   control:Tmp-String-3, so the AAA policy's rules that name the group apply: one regex per mapped
 *   group that a rule names, whatever the number of users.
 *
 * Every failure is a rejection with its reason (Module-Failure-Message and the log row's
 * reject_reason): the directory unreachable, no such entry, not PAP, no directory set. The connection
 * pool opens nothing at start (`start = 0`), so FreeRADIUS starts, and checks (-C), while the
 * directory is down, and retries a second after a failure, so logins work again as soon as it is back.
 *
 * The reader's password is written only into `mods-enabled/portcullis_directory`, mode 0600 (0640 for
 * the daemon's group on disk, as clients.conf), single-quoted: nothing in it is expanded.
 */
import { readDaemonDirectory, type RenderedFile } from '../../../sdk/index.js'
import type { FreeradiusConfigInput, FreeradiusDirectory } from './input.js'
export type { FreeradiusDirectory } from './input.js'
import type { CompiledPolicy } from './policy.js'
import { FreeradiusRenderError, HEADER, refusal, T } from './syntax.js'
import { DIRECTORY, PRINCIPALS } from './users.js'

/** The rlm_ldap instance; its cached group DNs are control:<instance>-LDAP-Group. */
export const LDAP_INSTANCE = 'portcullis_directory'
const GROUPS = `${LDAP_INSTANCE}-LDAP-Group`
const CA_FILE = 'portcullis/directory-ca.pem'


// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const LITERAL = /^[^\u0000-\u001f\u007f]*$/
/**
 * A value as a single-quoted configuration string, never expanded (`${…}`, `$ENV{…}` and `%{…}` stay text).
 * The configuration reader (3.2.1, checked with `radiusd -XC`) takes a backslash and the character after it
 * together, keeping both, except `\'`, which is the quote: so `'` is written `\'` and a backslash as it is.
 * An odd run of backslashes right before a `'` or at the end cannot be written (the last one would take the quote).
 */
function literal(value: string, what: string): string {
  if (!LITERAL.test(value)) throw new FreeradiusRenderError(`${what} holds a control character`)
  if (/(^|[^\\])(\\\\)*\\('|$)/.test(value)) throw new FreeradiusRenderError(`${what} holds a backslash right before a quote or at its end, which FreeRADIUS's configuration cannot hold`)
  return `'${value.replace(/'/g, "\\'")}'`
}

const ATTRIBUTE = /^[A-Za-z][A-Za-z0-9-]{0,63}$/
const URL = /^ldaps?:\/\/[A-Za-z0-9.:[\]-]+(:[0-9]{1,5})?\/?$/
/** A mapped group's DN as the API takes it (kernel user-group schema): no quote, backslash, `%` or `$`. */
const DN = /^[A-Za-z][A-Za-z0-9-]*=[^\u0000-\u001f\u007f"\\%$]+$/

/** The directory's users in the release: only while some network user has source directory. */
export const hasDirectoryUsers = (input: FreeradiusConfigInput) => input.users.some((u) => u.source === 'directory')

/** The mapped groups a rule names, with their principal keys ("g<n>", policy.ts), in key order. */
function mappedPrincipals(input: FreeradiusConfigInput, c: CompiledPolicy): { key: string; dn: string }[] {
  const keyOfGroup = new Map<string, string>()
  for (const r of c.rules) if (!r.skipped && r.rule.who.type === 'group') keyOfGroup.set(r.rule.who.group_id, r.who)
  const out: { key: string; dn: string }[] = []
  for (const g of input.directory?.groups ?? []) {
    const key = keyOfGroup.get(g.id)
    if (!key) continue
    if (!DN.test(g.dn)) throw new FreeradiusRenderError(`the directory group ${JSON.stringify(g.dn)} of a user group is not a DN FreeRADIUS can match`)
    out.push({ key, dn: g.dn })
  }
  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.dn < b.dn ? -1 : 1))
}

/** A DN as an anchored, case-insensitive regex (POSIX ERE and PCRE read it alike). */
const dnRegex = (dn: string) => `/^${dn.replace(/[.*+?^()[\]{}|/]/g, (c) => '\\' + c)}$/i`

/** `portcullis/directory`: included in authorize after the user lookup. */
export function directoryAuthorize(input: FreeradiusConfigInput, c: CompiledPolicy): string {
  const out = [HEADER, '# Directory users (source directory): the directory checks the password (plugins/radius/renderers/directory.ts).']
  if (!hasDirectoryUsers(input)) {
    out.push('# No network user has source directory.', '')
    return out.join('\n')
  }
  out.push(`if (&control:${DIRECTORY} && &control:${DIRECTORY} == "directory") {`)
  if (!input.directory) {
    out.push(...refusal('directory_not_configured', 'a directory user, and no directory is set (setting directory.url)', T), `${T}reject`, '}', '')
    return out.join('\n')
  }
  out.push(
    `${T}# PAP only: an LDAP bind needs the password itself.`,
    `${T}if (!&User-Password || &CHAP-Password || &MS-CHAP-Challenge) {`,
    ...refusal('directory_pap_only', 'a directory user signs in with PAP only (the directory checks the password itself)', T + T),
    `${T}${T}reject`,
    `${T}}`,
    `${T}${LDAP_INSTANCE} {`,
    `${T}${T}fail = 1`,
    `${T}${T}notfound = 1`,
    `${T}${T}invalid = 1`,
    `${T}}`,
    `${T}if (fail || invalid) {`,
    ...refusal('directory_unavailable', 'the directory could not be reached or refused the lookup account (see the directory lines above)', T + T),
    `${T}${T}reject`,
    `${T}}`,
    `${T}if (notfound || !&control:LDAP-UserDn) {`,
    ...refusal('directory_user_not_found', 'the directory has no entry (or more than one) with this name', T + T),
    `${T}${T}reject`,
    `${T}}`,
    `${T}update control {`,
    `${T}${T}&Auth-Type := LDAP`,
    `${T}}`,
  )
  const mapped = mappedPrincipals(input, c)
  if (mapped.length) {
    out.push(`${T}# The user groups mapped to a directory group the entry is listed in: their principals (the policy's keys).`, `${T}foreach &control:${GROUPS} {`)
    for (const m of mapped) {
      out.push(`${T}${T}if ("%{Foreach-Variable-0}" =~ ${dnRegex(m.dn)}) {`, `${T}${T}${T}update control {`, `${T}${T}${T}${T}&${PRINCIPALS} += "${m.key}"`, `${T}${T}${T}}`, `${T}${T}}`)
    }
    out.push(`${T}}`)
  }
  out.push('}', '')
  return out.join('\n')
}

/** `portcullis/directory-authenticate`: the bind as the user, in the authenticate section. */
export function directoryAuthenticate(input: FreeradiusConfigInput): string {
  if (!input.directory || !hasDirectoryUsers(input)) return `${HEADER}\n# No directory users.\n`
  return [
    HEADER,
    '# A directory user: bind as the entry found in authorize, with the password typed.',
    'Auth-Type LDAP {',
    `${T}${LDAP_INSTANCE} {`,
    `${T}${T}fail = 1`,
    `${T}}`,
    `${T}if (fail) {`,
    ...refusal('directory_unavailable', 'the directory could not be reached to check the password', T + T),
    `${T}${T}reject`,
    `${T}}`,
    // The bind passed: the second factor where radius.mfa_mode and the user say (mfa.ts); a challenge's
    // answer comes back through Auth-Type PAP (mfa-authorize), which checks the code.
    `${T}$INCLUDE mfa-password`,
    '}',
    '',
  ].join('\n')
}

/** The rlm_ldap module and the directory's CA, when the directory is set and some network user has source directory. */
export function directoryFiles(input: FreeradiusConfigInput, c: CompiledPolicy): RenderedFile[] {
  const d = input.directory
  if (!d || !hasDirectoryUsers(input)) return []
  if (!URL.test(d.url)) throw new FreeradiusRenderError('setting directory.url is not an ldap:// or ldaps:// URL')
  if (!ATTRIBUTE.test(d.userAttribute)) throw new FreeradiusRenderError('setting directory.user_attribute is not an attribute name')
  const t = Math.max(1, Math.min(30, Math.floor(d.timeoutSeconds)))
  const groups = mappedPrincipals(input, c).length > 0
  const lines = [
    HEADER,
    '# The directory (settings directory.*) for users with source directory (plugins/radius/renderers/directory.ts).',
    `ldap ${LDAP_INSTANCE} {`,
    `${T}server = ${literal(d.url.replace(/\/$/, ''), 'setting directory.url')}`,
    ...(d.bindDn !== null ? [`${T}identity = ${literal(d.bindDn, 'setting directory.bind_dn')}`, `${T}password = ${literal(d.bindPassword ?? '', 'setting directory.bind_password')}`] : []),
    `${T}base_dn = ${literal(d.userBaseDn, 'setting directory.user_base_dn')}`,
    `${T}user_dn = "LDAP-UserDn"`,
    `${T}user {`,
    `${T}${T}base_dn = ${literal(d.userBaseDn, 'setting directory.user_base_dn')}`,
    `${T}${T}# rlm_ldap escapes the name (RFC 4515): "*)(uid=*" is a literal and finds nobody.`,
    `${T}${T}filter = "(${d.userAttribute}=%{User-Name})"`,
    `${T}${T}scope = 'sub'`,
    `${T}}`,
    `${T}group {`,
    `${T}${T}base_dn = ${literal(d.groupBaseDn ?? d.userBaseDn, 'setting directory.group_base_dn')}`,
    `${T}${T}scope = 'sub'`,
    `${T}${T}filter = '(|(objectClass=groupOfNames)(objectClass=groupOfUniqueNames)(objectClass=group))'`,
    `${T}${T}membership_filter = "(member=%{control:LDAP-UserDn})"`,
    `${T}${T}membership_attribute = 'memberOf'`,
    `${T}${T}# The groups are read at each login only while a rule names a mapped user group.`,
    `${T}${T}cacheable_dn = '${groups ? 'yes' : 'no'}'`,
    `${T}${T}cacheable_name = 'no'`,
    `${T}}`,
    `${T}options {`,
    `${T}${T}chase_referrals = no`,
    `${T}${T}rebind = no`,
    `${T}${T}# setting directory.timeout_seconds`,
    `${T}${T}res_timeout = ${t}`,
    `${T}${T}srv_timelimit = ${t}`,
    `${T}${T}net_timeout = ${t}`,
    `${T}${T}idle = 60`,
    `${T}${T}probes = 3`,
    `${T}${T}interval = 3`,
    `${T}${T}ldap_debug = 0x0000`,
    `${T}}`,
    `${T}tls {`,
    `${T}${T}start_tls = ${d.startTls ? 'yes' : 'no'}`,
    ...(d.caCertificate ? [`${T}${T}ca_file = "\${confdir}/${CA_FILE}"`] : []),
    `${T}${T}require_cert = 'demand'`,
    `${T}${T}tls_min_version = "1.2"`,
    `${T}}`,
    `${T}# Nothing opened at start: FreeRADIUS starts while the directory is down; a failed connection is retried after a second.`,
    `${T}pool {`,
    `${T}${T}start = 0`,
    `${T}${T}min = 0`,
    `${T}${T}max = 16`,
    `${T}${T}spare = 4`,
    `${T}${T}uses = 0`,
    `${T}${T}retry_delay = 1`,
    `${T}${T}lifetime = 0`,
    `${T}${T}idle_timeout = 60`,
    `${T}${T}connect_timeout = ${t}`,
    `${T}}`,
    '}',
    '',
  ]
  // The reader's password is this file's secret (RenderedFile.secrets): no view of the release shows it.
  const files: RenderedFile[] = [{ path: `mods-enabled/${LDAP_INSTANCE}`, content: lines.join('\n'), mode: 0o600, secrets: d.bindDn !== null && d.bindPassword ? [d.bindPassword] : [] }]
  if (d.caCertificate) files.push({ path: CA_FILE, content: d.caCertificate.endsWith('\n') ? d.caCertificate : d.caCertificate + '\n', mode: 0o644 })
  return files
}

/** The directory as the settings say (docs/directory.md), with the user groups mapped to a directory group; null: directory.url is null. */
export const readDirectory = readDaemonDirectory
