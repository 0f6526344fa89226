/**
 * The FreeRADIUS 3.2 configuration for device administration (renderer
 * `radius.freeradius`): a complete tree for `freeradius -d DIR`.
 *
 *   radiusd.conf                 core settings, listen sections, module and site includes
 *   clients.conf          0600   one client per enabled device with a RADIUS secret
 *   mods-enabled/always          the `reject`, `ok` and `noop` statements
 *   mods-enabled/pap             PAP against Crypt-Password (SHA-512 crypt)
 *   mods-enabled/mschap          MS-CHAPv2 against NT-Password
 *   mods-enabled/chap            CHAP against Cleartext-Password (users with chap_enabled only)
 *   mods-enabled/portcullis_log  json + linelog (sdk/logs/freeradius.ts), for the ingester
 *   sites-enabled/default        authorize / authenticate / post-auth / accounting
 *   portcullis/verifiers  0600   the network users' verifiers (an unlang switch on User-Name), and
 *                                the cleartext password of users with chap_enabled
 *   portcullis/policy            the AAA policy, first matching rule in order (unlang)
 *   portcullis/replies           each rule's RADIUS profile, applied in post-auth
 *
 * `buildFreeradiusConfig` is the pure part (data in, files out, byte-identical
 * for the same data); `createFreeradiusRenderer` reads the data through the
 * snapshot. Every name written is validated against its upstream pattern and
 * then quoted; every secret and value goes through `quoteValue` (which refuses
 * `%`, `${`, `$ENV{` and control characters), so nothing read from the
 * database can end a string, open a section or be expanded. See
 * docs/freeradius.md.
 */
import path from 'node:path'
import type { Knex } from 'knex'
import { freeradiusLogModules } from '../../../sdk/logs/freeradius.js'
import type { ConfigRenderer, DaemonCheck, IdentityService, RenderedFile, ServerOptionRef, ServerOptionsService, SettingRef, SettingsService } from '../../../sdk/index.js'
import type { InventoryService } from '../../inventory/api.js'
import type { RadiusPolicySource, RadiusService } from '../api.js'
import { quoteValue } from '../services/values.js'
import type { FreeradiusConfigInput } from './input.js'
import { byteOrder, CIDR, CLEARTEXT, FreeradiusRenderError, HEADER, IP, name, NT_HASH, qcleartext, qsecret, SHA512_CRYPT, T, USERNAME } from './syntax.js'
import { compileRules, policy, replies, writtenClients } from './policy.js'
export { FreeradiusRenderError } from './syntax.js'
export type { FreeradiusConfigInput } from './input.js'


function radiusdConf(input: FreeradiusConfigInput): string {
  const { address, authPort, acctPort } = input.listen
  for (const p of [authPort, acctPort]) if (!Number.isInteger(p) || p < 1 || p > 65535) throw new FreeradiusRenderError(`listen port ${p} is not a UDP port`)
  if (!IP.test(address)) throw new FreeradiusRenderError('listen address is not an IP address')
  const listen = (type: 'auth' | 'acct', port: number) => [`${T}listen {`, `${T}${T}type = ${type}`, `${T}${T}ipaddr = ${address}`, `${T}${T}port = ${port}`, `${T}}`]
  return [
    HEADER,
    '# Includes are relative to this file, so a release runs from whatever folder -d names.',
    'prefix = /usr',
    'exec_prefix = /usr',
    'localstatedir = /var',
    'sbindir = /usr/sbin',
    'libdir = /usr/lib/freeradius',
    'name = freeradius',
    'logdir = ${localstatedir}/log/freeradius',
    'run_dir = ${localstatedir}/run/freeradius',
    'pidfile = ${run_dir}/freeradius.pid',
    'max_request_time = 10',
    'cleanup_delay = 2',
    'max_requests = 16384',
    'hostname_lookups = no',
    '',
    'log {',
    `${T}destination = files`,
    `${T}file = \${logdir}/radius.log`,
    `${T}colourise = no`,
    `${T}stripped_names = no`,
    `${T}auth = no`,
    `${T}auth_badpass = no`,
    `${T}auth_goodpass = no`,
    '}',
    '',
    'security {',
    `${T}allow_core_dumps = no`,
    `${T}max_attributes = 200`,
    `${T}reject_delay = 1`,
    `${T}status_server = no`,
    '}',
    '',
    'thread pool {',
    `${T}start_servers = 2`,
    `${T}max_servers = 16`,
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
  ].join('\n')
}

function clientsConf(input: FreeradiusConfigInput): string {
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
# MS-CHAPv2 against the NT hash (control:NT-Password). No MPPE keys: device administration needs none.
mschap {
${T}use_mppe = no
${T}require_encryption = no
${T}require_strong = no
${T}with_ntdomain_hack = yes
}
`


function verifiers(input: FreeradiusConfigInput): string {
  const users = [...input.users].sort((a, b) => byteOrder(a.username, b.username) || byteOrder(a.id, b.id))
  const out = [HEADER, '# The network users\' verifiers: SHA-512 crypt for PAP, the NT hash for MS-CHAPv2,', '# and the cleartext password for CHAP, kept only for users with chap_enabled.', 'switch &User-Name {']
  const seen = new Set<string>()
  for (const u of users) {
    name(u.username, 'username', USERNAME)
    if (seen.has(u.username)) continue
    seen.add(u.username)
    out.push(`${T}case ${quoteValue(u.username)} {`)
    if (u.verifiers) {
      if (!SHA512_CRYPT.test(u.verifiers.sha512_crypt)) throw new FreeradiusRenderError(`user ${u.username}: the stored verifier is not a SHA-512 crypt string`)
      if (!NT_HASH.test(u.verifiers.nt_hash)) throw new FreeradiusRenderError(`user ${u.username}: the stored NT hash is not 32 hex digits`)
      // Single quotes: a literal, never expanded at run time.
      const control = [`${T}${T}update control {`, `${T}${T}${T}&Crypt-Password := '${u.verifiers.sha512_crypt}'`, `${T}${T}${T}&NT-Password := 0x${u.verifiers.nt_hash.toUpperCase()}`]
      // After Crypt-Password: pap takes the first password it knows, so PAP stays on the crypt verifier.
      // A password with a control character cannot be written (the policy allows one): CHAP stays rejected for that user alone.
      const chap = u.verifiers.cleartext
      if (chap !== undefined && CLEARTEXT.test(chap)) control.push(`${T}${T}${T}&Cleartext-Password := ${qcleartext(chap)}`)
      out.push(...control, `${T}${T}}`)
      if (chap !== undefined && !CLEARTEXT.test(chap)) out.push(`${T}${T}# chap_enabled, but the password holds a control character: CHAP is rejected`)
    } else {
      out.push(`${T}${T}# no network password set since network login was turned on`, `${T}${T}update request {`, `${T}${T}${T}&Module-Failure-Message := "no network password is set for this user"`, `${T}${T}}`, `${T}${T}reject`)
    }
    out.push(`${T}}`)
  }
  // FreeRADIUS refuses an empty switch ("'switch' statements cannot be empty"): a fresh
  // install with devices but no network user yet must still pass `freeradius -C`.
  out.push(`${T}case {`, `${T}${T}noop`, `${T}}`, '}', '')
  return out.join('\n')
}


const SITE = `${HEADER}
# Device administration: PAP and MS-CHAPv2 against the platform's verifiers, CHAP for users
# with chap_enabled (their kept cleartext password), the AAA policy, JSON lines.
authorize {
${T}$INCLUDE ../portcullis/verifiers
${T}if (&CHAP-Password && !&control:Cleartext-Password) {
${T}${T}update request {
${T}${T}${T}&Module-Failure-Message := "CHAP is not supported for this user: it needs the cleartext password, which the platform keeps only with chap_enabled"
${T}${T}}
${T}${T}reject
${T}}
${T}$INCLUDE ../portcullis/policy
${T}chap
${T}mschap
${T}pap
}

authenticate {
${T}Auth-Type PAP {
${T}${T}pap
${T}}
${T}Auth-Type CHAP {
${T}${T}chap
${T}}
${T}Auth-Type MS-CHAP {
${T}${T}mschap
${T}}
}

preacct {
}

accounting {
${T}portcullis_log_acct
${T}ok
}

post-auth {
${T}$INCLUDE ../portcullis/replies
${T}update reply {
${T}${T}&Message-Authenticator := 0x00
${T}}
${T}portcullis_log_auth

${T}Post-Auth-Type REJECT {
${T}${T}# A reject carries nothing of a profile.
${T}${T}update {
${T}${T}${T}&reply: !* ANY
${T}${T}}
${T}${T}update reply {
${T}${T}${T}&Message-Authenticator := 0x00
${T}${T}}
${T}${T}portcullis_log_auth
${T}}
}
`

/** The rendered files, in path order. Same input, same bytes. */
export function buildFreeradiusConfig(input: FreeradiusConfigInput): RenderedFile[] {
  if (!path.isAbsolute(input.logDirectory) || /[\u0000-\u001f"\\%${}]/.test(input.logDirectory)) {
    throw new FreeradiusRenderError('the log directory must be an absolute path without control characters, quotes, backslashes, "%", "$" or braces')
  }
  const rules = compileRules(input)
  const files: RenderedFile[] = [
    { path: 'clients.conf', content: clientsConf(input), mode: 0o600 },
    { path: 'mods-enabled/always', content: ALWAYS, mode: 0o644 },
    { path: 'mods-enabled/chap', content: CHAP, mode: 0o644 },
    { path: 'mods-enabled/mschap', content: MSCHAP, mode: 0o644 },
    { path: 'mods-enabled/pap', content: PAP, mode: 0o644 },
    { path: 'mods-enabled/portcullis_log', content: `${HEADER}\n${freeradiusLogModules(input.logDirectory.replace(/\/+$/, '') || '/')}`, mode: 0o644 },
    { path: 'portcullis/policy', content: policy(input, rules), mode: 0o644 },
    { path: 'portcullis/replies', content: replies(rules), mode: 0o644 },
    { path: 'portcullis/verifiers', content: verifiers(input), mode: 0o600 },
    { path: 'radiusd.conf', content: radiusdConf(input), mode: 0o644 },
    { path: 'sites-enabled/default', content: SITE, mode: 0o644 },
  ]
  return files
}

export interface FreeradiusRendererDeps {
  inventory: InventoryService
  identity: IdentityService
  radius: RadiusService
  settings: SettingsService
  serverOptions: ServerOptionsService
  /** The registered AAA policy (the radius service keeps it); null when none is. */
  policySource: () => RadiusPolicySource | null
  /** Where logs go when the log directory setting is null: the platform's data folder. */
  dataDir: string
  refs: {
    listenAddress: SettingRef<string>
    authPort: SettingRef<number>
    acctPort: SettingRef<number>
    logDirectory: ServerOptionRef<string | null>
    binary: ServerOptionRef<string>
  }
}

export const createFreeradiusRenderer = (d: FreeradiusRendererDeps): ConfigRenderer => ({
  id: 'radius.freeradius',
  daemon: 'freeradius',
  async render(snapshot: Knex.Transaction): Promise<RenderedFile[]> {
    const address = await d.settings.get(d.refs.listenAddress, snapshot)
    const authPort = await d.settings.get(d.refs.authPort, snapshot)
    const acctPort = await d.settings.get(d.refs.acctPort, snapshot)
    const logDirectory = d.serverOptions.get(d.refs.logDirectory)
    const deviceGroups = await d.inventory.listGroups(snapshot)
    // Every secret in one statement (one query per device made 10,000 devices take seconds).
    const secrets = await d.inventory.allDeviceSecrets('radius_secret', snapshot)
    const devices: FreeradiusConfigInput['devices'] = (await d.inventory.listDevices(snapshot)).map((device) => ({
      device,
      radiusSecret: device.enabled && device.has_radius_secret ? (secrets.get(device.id) ?? null) : null,
    }))
    const users = await d.identity.networkUsers(snapshot)
    const profiles = await d.radius.listProfiles(snapshot)
    const source = d.policySource()
    const rules = source ? await source.listRules(snapshot) : null
    return buildFreeradiusConfig({
      listen: { address, authPort, acctPort },
      logDirectory: logDirectory ?? path.join(d.dataDir, 'logs', 'radius'),
      deviceGroups,
      devices,
      users,
      profiles,
      rules,
    })
  },
  async check(): Promise<DaemonCheck | null> {
    const binary = d.serverOptions.get(d.refs.binary)
    return { binary, args: (dir) => ['-C', '-d', dir] }
  },
})
