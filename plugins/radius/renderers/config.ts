/**
 * The FreeRADIUS 3.2 configuration for device administration (renderer
 * `radius.freeradius`): a complete tree for `freeradius -d DIR`.
 *
 *   radiusd.conf                 core settings, listen sections, module and site includes
 *   clients.conf          0600   one client per enabled device with a RADIUS secret
 *   mods-enabled/always          the `reject`, `ok` and `noop` statements
 *   mods-enabled/pap             PAP against Crypt-Password (SHA-512 crypt)
 *   mods-enabled/mschap          MS-CHAPv2 (and MS-CHAPv1 where a profile allows it) against NT-Password
 *   mods-enabled/chap            CHAP against Cleartext-Password (users with chap_enabled only)
 *   mods-enabled/portcullis_log  json + linelog (sdk/logs/freeradius.ts), for the ingester
 *   sites-enabled/default        authorize / authenticate / post-auth / accounting (site.ts)
 *   mods-enabled/portcullis_lookup  the hashed lookups (rlm_files) of the users, the policy and the replies
 *   portcullis/verifiers  0600   the users file: the network users' verifiers, the cleartext password of users
 *                                with chap_enabled, their principals; why the others are refused (users.ts)
 *   portcullis/login             the user lookup, no password, expiry, lockout (users.ts, lockout.ts)
 *   portcullis/refused           unknown, disabled, network login off, with the reason (users.ts)
 *   portcullis/policy            the AAA policy: the candidates of the user's principals at the client's
 *                                location class, first in order wins (policy.ts)
 *   portcullis/rules             the candidates per principal and location class, each rule's label (users file)
 *   portcullis/mschapv1          the profiles that accept MS-CHAPv1 (site.ts)
 *   portcullis/replies           each rule's RADIUS profile, applied in post-auth (users file)
 *   mods-enabled/expiration      user expiry (control:Expiration, set from portcullis/verifiers)
 *   mods-enabled/portcullis_lockout  the failure counts in memory (rlm_cache), with the lockout on
 *   portcullis/lockout-failed    counts a wrong password (Post-Auth-Type REJECT); lockout.ts
 *   portcullis/lockout-passed    an accepted login ends the run of failures (post-auth)
 *   portcullis/directory         directory users: found, groups mapped, Auth-Type LDAP (directory.ts)
 *   portcullis/directory-authenticate  Auth-Type LDAP: the bind as the user
 *   mods-enabled/portcullis_directory  0600  rlm_ldap from the settings directory.* (the reader's password)
 *   portcullis/directory-ca.pem  the directory's CA (setting directory.ca_certificate)
 *   mods-enabled/portcullis_mfa  0600  the internal MFA surface's two rlm_rest calls (mfa.ts)
 *   portcullis/mfa-pap           0600  PAP, then the second factor as radius.mfa_mode says (mfa.ts; holds the key)
 *   portcullis/mfa-password      0600  after a password that passed: does the user owe a code (mfa.ts; holds the key)
 *   portcullis/mfa-authorize     the answer to a challenge goes to Auth-Type PAP (mfa.ts)
 *   portcullis/mfa-post-auth     an accept the second factor did not decide is refused (mfa.ts)
 *   dictionary                   the tree's internal attributes (Portcullis-NAC-*; nac-attributes.ts)
 *   portcullis/nac-authorize, nac-authenticate, nac-post-auth, nac-reject
 *                                802.1X and MAB in the default server (nac-site.ts; comments only without NAC)
 *   portcullis/nac-policy        the NAC policy as unlang (nac-policy.ts)
 *   portcullis/nac-endpoints, nac-users, nac-clients, mods-enabled/portcullis_nac
 *                                the hashed lookups by MAC, username, client (nac-lookup.ts)
 *   mods-enabled/portcullis_eap  PEAP-MSCHAPv2 and EAP-TLS, with the EAP server options only (nac-eap.ts)
 *   sites-enabled/portcullis-inner  the PEAP inner tunnel (nac-eap.ts)
 *
 * `buildFreeradiusConfig` is the pure part (data in, files out, byte-identical
 * for the same data); `createFreeradiusRenderer` (renderer.ts) reads the data
 * through the snapshot. Every name written is validated against its upstream pattern and
 * then quoted; every secret and value goes through `quoteValue` (which refuses
 * `%`, `${`, `$ENV{` and control characters), so nothing read from the
 * database can end a string, open a section or be expanded. See
 * docs/freeradius.md.
 */
import type { DaemonAccount, RenderedFile } from '../../../sdk/index.js'
import { freeradiusLogModules } from '../../../sdk/logs/freeradius.js'
import { quoteValue } from '../services/values.js'
import type { FreeradiusConfigInput } from './input.js'
import { CIDR, FreeradiusRenderError, HEADER, IP, name, qsecret, T } from './syntax.js'
import { compileRules, policy, writtenClients } from './policy.js'
import { LOOKUP_MODULES, replies, rulesTable } from './lookup.js'
import { mschapv1, SITE } from './site.js'
import { login, refused, verifiers, verifierSecrets } from './users.js'
import { lockoutFailed, lockoutModules, lockoutPassed } from './lockout.js'
import { directoryAuthenticate, directoryAuthorize, directoryFiles } from './directory.js'
import { MFA_MAX_REQUEST_TIME, MFA_PUSH_WAITERS, mfaAfterPassword, mfaAuthorize, mfaPostAuth, mfaClientLines, mfaModules, mfaPap, mfaSecrets } from './mfa.js'
import { nacFiles } from './nac-files.js'
export { FreeradiusRenderError } from './syntax.js'
export type { FreeradiusConfigInput } from './input.js'


/** An absolute path FreeRADIUS reads as written inside double quotes: nothing to expand, nothing to break out of. */
const PATH = /^\/[^\u0000-\u001f"\\%${}]*$/
function qpath(value: string, what: string, list = false): string {
  const parts = list ? value.split(':') : [value]
  if (parts.some((p) => !PATH.test(p))) {
    throw new FreeradiusRenderError(`${what} must be ${list ? 'absolute paths separated by ":"' : 'an absolute path'} without control characters, quotes, backslashes, "%", "$" or braces`)
  }
  return `"${parts.map((p) => p.replace(/(.)\/+$/, '$1')).join(':')}"`
}

const ACCOUNT = /^(?:[0-9]+|[A-Za-z_][A-Za-z0-9_.-]*)$/

/** FreeRADIUS opens its sockets and its log as root, then runs as the account; `-C` refuses an unknown name. */
function securityAccount(account: DaemonAccount | null): string[] {
  if (!account) return []
  for (const v of [account.user, account.group]) if (!ACCOUNT.test(v)) throw new FreeradiusRenderError(`the daemon account "${v}" is not a user or group name`)
  return [`${T}# The daemon runs as this account (server options radius.daemon_user and radius.daemon_group).`, `${T}user = ${account.user}`, `${T}group = ${account.group}`]
}

function radiusdConf(input: FreeradiusConfigInput): string {
  const { address, authPort, acctPort } = input.listen
  for (const p of [authPort, acctPort]) if (!Number.isInteger(p) || p < 1 || p > 65535) throw new FreeradiusRenderError(`listen port ${p} is not a UDP port`)
  if (!IP.test(address)) throw new FreeradiusRenderError('listen address is not an IP address')
  const listen = (type: 'auth' | 'acct', port: number) => [`${T}listen {`, `${T}${T}type = ${type}`, `${T}${T}ipaddr = ${address}`, `${T}${T}port = ${port}`, `${T}}`]
  const logdir = qpath(input.logDirectory, 'the log directory')
  return [
    HEADER,
    '# Includes are relative to this file, so a release runs from whatever folder -d names.',
    '# Every file the daemon writes is in folders of its own (server options radius.log_directory and',
    '# radius.run_directory), never the packaged service\'s /var/log/freeradius or /var/run/freeradius.',
    'name = freeradius',
    `logdir = ${logdir}`,
    `run_dir = ${qpath(input.runDirectory, 'the run directory')}`,
    'pidfile = ${run_dir}/freeradius.pid',
    '# Tried in turn, then the linker\'s own search path (server option radius.freeradius_libdir).',
    `libdir = ${qpath(input.libdir, 'libdir', true)}`,
    // A login waiting for a push to the phone takes up to 2 minutes (renderers/mfa.ts).
    `max_request_time = ${input.mfa ? MFA_MAX_REQUEST_TIME : 10}`,
    'cleanup_delay = 2',
    'max_requests = 16384',
    'hostname_lookups = no',
    '',
    'log {',
    `${T}# FreeRADIUS reads this section first, before the settings above, with defaults of its own for`,
    `${T}# these two (\${prefix}/var/log: no prefix is set here): both named, as is the file.`,
    `${T}localstatedir = ${logdir}`,
    `${T}logdir = ${logdir}`,
    `${T}destination = files`,
    `${T}file = ${qpath(input.logDirectory.replace(/\/*$/, '/radius.log'), 'the log directory')}`,
    `${T}colourise = no`,
    `${T}stripped_names = no`,
    `${T}auth = no`,
    `${T}auth_badpass = no`,
    `${T}auth_goodpass = no`,
    '}',
    '',
    'security {',
    ...securityAccount(input.account ?? null),
    `${T}allow_core_dumps = no`,
    `${T}max_attributes = 200`,
    `${T}reject_delay = 1`,
    `${T}# Answered on the auth port (sites-enabled/default, Autz-Type Status-Server), for monitoring.`,
    `${T}status_server = yes`,
    '}',
    '',
    'thread pool {',
    `${T}start_servers = 2`,
    `${T}max_servers = ${input.mfa ? MFA_PUSH_WAITERS : 16}`,
    `${T}min_spare_servers = 2`,
    `${T}max_spare_servers = 4`,
    `${T}max_requests_per_server = 0`,
    '}',
    '',
    '$INCLUDE clients.conf',
    '',
    'modules {',
    `${T}$INCLUDE mods-enabled/`,
    '}',
    '',
    'policy {',
    '}',
    '',
    '# The listeners live in the site, so that the site is the whole server.',
    'server default {',
    ...listen('auth', authPort),
    ...listen('acct', acctPort),
    `${T}$INCLUDE sites-enabled/default`,
    '}',
    '',
    '# The PEAP inner tunnel, when 802.1X is served (renderers/nac-eap.ts).',
    '$INCLUDE sites-enabled/portcullis-inner',
    '',
  ].join('\n')
}

function clientsConf(input: FreeradiusConfigInput, classes: ReadonlyMap<string, string>): string {
  const out = [HEADER, '# Enabled devices with a RADIUS secret. Requests must carry Message-Authenticator (BlastRADIUS).', '']
  for (const { device, radiusSecret } of writtenClients(input)) {
    name(device.name, 'device')
    if (!CIDR.test(device.address)) throw new FreeradiusRenderError(`device ${device.name}: the address is not a CIDR prefix`)
    out.push(
      `client ${device.name} {`,
      `${T}ipaddr = ${device.address}`,
      `${T}secret = ${qsecret(radiusSecret!, device.name)}`,
      `${T}shortname = ${quoteValue(device.name)}`,
      `${T}require_message_authenticator = yes`,
      `${T}nas_type = other`,
      `${T}# The location class: the places of the AAA policy this client is in (portcullis/policy).`,
      `${T}portcullis_class = "${classes.get(device.name) ?? 'L0'}"`,
      ...mfaClientLines(input.mfa, device.name),
      '}',
      '',
    )
  }
  return out.join('\n')
}


const ALWAYS = `${HEADER}
# The return codes the site uses as statements (\`reject\`, \`ok\`, \`noop\`).
always reject {
${T}rcode = reject
}
always ok {
${T}rcode = ok
}
always noop {
${T}rcode = noop
}
`

const PAP = `${HEADER}
# PAP against the SHA-512 crypt verifier (control:Crypt-Password).
pap {
${T}normalise = yes
}
`

const CHAP = `${HEADER}
# CHAP against the cleartext password (control:Cleartext-Password), written only for users with chap_enabled.
chap {
}
`

const MSCHAP = `${HEADER}
# MS-CHAPv2, and MS-CHAPv1 where a profile allows it, against the NT hash (control:NT-Password). No MPPE keys: device administration needs none.
mschap {
${T}use_mppe = no
${T}require_encryption = no
${T}require_strong = no
${T}with_ntdomain_hack = yes
}
`


/**
 * Where the packages put FreeRADIUS 3.2's modules: Debian, Ubuntu, Alpine and Arch; Red Hat, Fedora
 * and SUSE; a source build with its default prefix (/usr/local, modules in lib/ or lib/freeradius).
 * FreeRADIUS tries each in turn and then the linker's search path, where a binary built with a run
 * path (Debian's has /usr/lib/freeradius) finds its own. Elsewhere: server option radius.freeradius_libdir.
 */
export const FREERADIUS_LIBDIRS = '/usr/lib/freeradius:/usr/lib64/freeradius:/usr/local/lib/freeradius:/usr/local/lib'

/** The rendered files, in path order. Same input, same bytes. */
export function buildFreeradiusConfig(input: FreeradiusConfigInput): RenderedFile[] {
  qpath(input.logDirectory, 'the log directory')
  const rules = compileRules(input)
  const files: RenderedFile[] = [
    // Each file holding a secret declares it (RenderedFile.secrets): no view of the release shows it.
    { path: 'clients.conf', content: clientsConf(input, rules.classes), mode: 0o600, secrets: writtenClients(input).map((c) => c.radiusSecret!) },
    { path: 'mods-enabled/always', content: ALWAYS, mode: 0o644 },
    { path: 'mods-enabled/chap', content: CHAP, mode: 0o644 },
    { path: 'mods-enabled/mschap', content: MSCHAP, mode: 0o644 },
    { path: 'mods-enabled/pap', content: PAP, mode: 0o644 },
    { path: 'mods-enabled/portcullis_lookup', content: LOOKUP_MODULES, mode: 0o644 },
    // 0600: the MFA files hold the internal surface's address and key (renderers/mfa.ts).
    { path: 'mods-enabled/portcullis_mfa', content: mfaModules(input.mfa ?? null), mode: 0o600, secrets: mfaSecrets(input.mfa) },
    { path: 'portcullis/mfa-pap', content: mfaPap(input.mfa ?? null), mode: 0o600, secrets: mfaSecrets(input.mfa) },
    { path: 'portcullis/mfa-password', content: mfaAfterPassword(input.mfa ?? null), mode: 0o600, secrets: mfaSecrets(input.mfa) },
    { path: 'portcullis/mfa-authorize', content: mfaAuthorize(input.mfa ?? null), mode: 0o644 },
    { path: 'portcullis/mfa-post-auth', content: mfaPostAuth(input.mfa ?? null), mode: 0o644 },
    { path: 'mods-enabled/portcullis_log', content: `${HEADER}\n${freeradiusLogModules(input.logDirectory.replace(/\/+$/, '') || '/')}`, mode: 0o644 },
    ...lockoutModules(input).map((f) => ({ ...f, mode: 0o644 })),
    ...directoryFiles(input, rules),
    { path: 'portcullis/directory', content: directoryAuthorize(input, rules), mode: 0o644 },
    { path: 'portcullis/directory-authenticate', content: directoryAuthenticate(input), mode: 0o644 },
    { path: 'portcullis/lockout-failed', content: lockoutFailed(input), mode: 0o644 },
    { path: 'portcullis/lockout-passed', content: lockoutPassed(input), mode: 0o644 },
    { path: 'portcullis/login', content: login(input), mode: 0o644 },
    { path: 'portcullis/mschapv1', content: mschapv1(rules.rules), mode: 0o644 },
    { path: 'portcullis/policy', content: policy(input, rules), mode: 0o644 },
    { path: 'portcullis/refused', content: refused(), mode: 0o644 },
    { path: 'portcullis/replies', content: replies(rules), mode: 0o644 },
    { path: 'portcullis/rules', content: rulesTable(rules), mode: 0o644 },
    { path: 'portcullis/verifiers', content: verifiers(input, rules.principals), mode: 0o600, secrets: verifierSecrets(input) },
    { path: 'radiusd.conf', content: radiusdConf(input), mode: 0o644 },
    { path: 'sites-enabled/default', content: SITE, mode: 0o644 },
    ...nacFiles(input),
  ]
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
}
