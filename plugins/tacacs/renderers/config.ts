/**
 * The whole tac_plus-ng configuration (renderer `tacacs.tac_plus-ng`): the
 * spawnd listener, the log destinations of the ingester's format, the device
 * tree with keys, the profiles, the user groups, the network users with their
 * SHA-512 crypt verifier (and, for chap_enabled users, the kept CHAP password:
 * chap.ts), and the ruleset in AAA policy order. One file, `tac_plus-ng.cfg`,
 * mode 0600 (it holds keys, password hashes and CHAP passwords).
 *
 * `buildTacPlusNgConfig` is the pure part (data in, text out, byte-identical
 * for the same data); `createTacPlusNgRenderer` (renderer.ts) reads the data through the
 * snapshot and hands it over. Declaration order is the daemon's: logs,
 * devices, profiles, groups, users, ruleset (a name must be declared before a
 * later block uses it).
 *
 * Devices. Device groups become device blocks without an address, nested as
 * the group tree is, and each device sits in its group's block, so that
 * `device == "group:NAME"` holds for every device below that group. A device
 * without a TACACS+ key is still written, with its address and no key: the
 * client address then still selects it (the most specific prefix wins) and
 * tac_plus-ng refuses its packets, instead of falling through to a wider
 * device and its key. A disabled device is written without an address (a rule
 * may still name it; it never matches a client).
 */
import path from 'node:path'
import type { DaemonAccount, NetworkUser } from '../../../sdk/index.js'
import type { Device, DeviceGroup } from '../../inventory/api.js'
import type { PolicyRuleView, TacacsProfile } from '../api.js'
import { chapPasswordLines } from './chap.js'
import { lockedPasswordLines, mavisLines, type TacPlusNgLockout } from './lockout.js'
import { directoryGroupLines, directoryMavisLines, isDirectoryUser, type TacPlusNgDirectory } from './directory.js'
import { MFA_PASSWORD_PROMPT, mfaBackendLines, mfaMavisLines, type TacPlusNgMfa } from './mfa.js'
import { LOG_KINDS, logFilePattern, logFormatValue, type TacacsLogKind } from './log-format.js'
import { deviceGroupIdent, deviceIdent, userGroupIdent, userIdent } from './names.js'
import { renderRuleText } from './rule.js'
import { locationDispatch, MAX_GROWTH } from './dispatch.js'
import { byteOrder, indent, tacComment, tacString, TacPlusNgRenderError } from './syntax.js'

export const TAC_PLUS_NG_CONFIG_FILE = 'tac_plus-ng.cfg'

export interface TacPlusNgConfigInput {
  listen: { address: string; port: number }
  /** Absolute folder the daemon writes its logs to. */
  logDirectory: string
  /** The unprivileged account the workers run as (spawn userid/groupid); null: as the daemon was started. */
  account?: DaemonAccount | null
  deviceGroups: Pick<DeviceGroup, 'id' | 'name' | 'parent_id'>[]
  devices: { device: Pick<Device, 'id' | 'name' | 'address' | 'device_group_id' | 'enabled'>; tacacsKey: string | null }[]
  userGroups: { id: string; name: string }[]
  users: Pick<NetworkUser, 'id' | 'username' | 'group_ids' | 'verifiers' | 'expires_at' | 'lockout_cleared_at' | 'source'>[]
  /** Directory users through the LDAP MAVIS backend (directory.ts); absent or null: no directory set, and directory users are refused. */
  directory?: TacPlusNgDirectory | null
  /** Account lockout through MAVIS (lockout.ts); absent or null: off, and the text is as before it existed. */
  lockout?: TacPlusNgLockout | null
  /** The second factor through MAVIS (mfa.ts); absent or null: off. */
  mfa?: TacPlusNgMfa | null
  /** Each profile with its text from `TacacsService.renderProfile`. */
  /** `secrets`: what the text holds that no view may show (TacacsService.profileSecrets: the enable secret's verifier). */
  profiles: { profile: Pick<TacacsProfile, 'id' | 'name'>; text: string; secrets?: string[] }[]
  /** Rule texts from `TacacsService.renderRule`, in evaluation order; null when no policy source is registered. */
  rules: string[] | null
  /**
   * The rules themselves, in the order of `rules`, with their profile's name: given, the rules are
   * dispatched by location (dispatch.ts: a realm per location class); absent, one flat ruleset.
   */
  ruleViews?: { rule: PolicyRuleView; profileName: string | null }[]
  /** The `timespec` blocks of the rules with a time window (rule.ts `renderTimespec`), declared before the ruleset. */
  timespecs?: string[]
}

const T = '    '

/** A SHA-512 crypt string as crypt(3) writes it. */
const SHA512_CRYPT = /^\$6\$(rounds=[0-9]{1,9}\$)?[./0-9A-Za-z]{1,16}\$[./0-9A-Za-z]{86}$/

/** An IPv4 or IPv6 prefix in the inventory's canonical form (digits, hex, `.`, `:`, `/`). */
const CIDR = /^[0-9A-Fa-f.:]+\/[0-9]{1,3}$/

function logDestination(dir: string, kind: TacacsLogKind): string {
  if (!path.isAbsolute(dir)) throw new TacPlusNgRenderError(`the log directory must be an absolute path`)
  // The destination goes through strftime(3): a `%` of the folder itself is doubled.
  return '>' + path.posix.join(dir.replace(/%/g, '%%'), logFilePattern(kind))
}

function renderLogs(dir: string): string[] {
  const out: string[] = []
  for (const kind of LOG_KINDS) {
    out.push(
      `log ${tacString(kind)} {`,
      `${T}destination = ${tacString(logDestination(dir, kind), 'the log directory')}`,
      `${T}timestamp = RFC5424`,
      `${T}prefix = ${tacString('${TIMESTAMP}\t', 'a log prefix', { variables: true })}`,
      `${T}postfix = ${tacString('\n', 'a log postfix')}`,
      `${T}${kind} format = ${tacString(logFormatValue(kind), 'a log format', { variables: true })}`,
      '}',
    )
  }
  for (const kind of LOG_KINDS) out.push(`${kind} log = ${tacString(kind)}`)
  return out
}

type DeviceEntry = TacPlusNgConfigInput['devices'][number]

/**
 * The device tree as it is written: group blocks nested as the group tree is, each device in its
 * group's block. `visit` sees each group block open and close and each device with the ids of the
 * group blocks around it, innermost first (tac_plus-ng's `device ==` walks the same parents).
 */
function walkDeviceTree(input: TacPlusNgConfigInput, visit: { open(g: DeviceGroupEntry, depth: number): void; close(depth: number): void; device(d: DeviceEntry, depth: number, enclosing: readonly string[]): void }): void {
  const groups = [...input.deviceGroups].sort((a, b) => byteOrder(a.name, b.name) || byteOrder(a.id, b.id))
  const known = new Set(groups.map((g) => g.id))
  const childGroups = new Map<string | null, typeof groups>()
  for (const g of groups) {
    const parent = g.parent_id && known.has(g.parent_id) && g.parent_id !== g.id ? g.parent_id : null
    ;(childGroups.get(parent) ?? childGroups.set(parent, []).get(parent)!).push(g)
  }
  const devices = [...input.devices].sort((a, b) => byteOrder(a.device.name, b.device.name) || byteOrder(a.device.id, b.device.id))
  const devicesIn = new Map<string | null, typeof devices>()
  for (const d of devices) {
    const g = d.device.device_group_id && known.has(d.device.device_group_id) ? d.device.device_group_id : null
    ;(devicesIn.get(g) ?? devicesIn.set(g, []).get(g)!).push(d)
  }
  const seen = new Set<string>()
  const walkGroup = (g: DeviceGroupEntry, enclosing: string[]) => {
    if (seen.has(g.id)) return
    seen.add(g.id)
    const inner = [g.id, ...enclosing]
    visit.open(g, enclosing.length)
    for (const c of childGroups.get(g.id) ?? []) walkGroup(c, inner)
    for (const d of devicesIn.get(g.id) ?? []) visit.device(d, inner.length, inner)
    visit.close(enclosing.length)
  }
  for (const g of childGroups.get(null) ?? []) walkGroup(g, [])
  // Groups caught in a parent cycle (the inventory refuses those) still get declared.
  for (const g of groups) if (!seen.has(g.id)) walkGroup({ ...g, parent_id: null }, [])
  for (const d of devicesIn.get(null) ?? []) visit.device(d, 0, [])
}

type DeviceGroupEntry = TacPlusNgConfigInput['deviceGroups'][number]

/** The devices that select a client (written with an address) and the groups around each, for the location classes (dispatch.ts). */
function devicePlaces(input: TacPlusNgConfigInput): { id: string; name: string; groups: readonly string[] }[] {
  const out: { id: string; name: string; groups: readonly string[] }[] = []
  walkDeviceTree(input, { open() {}, close() {}, device: (d, _depth, enclosing) => d.device.enabled && out.push({ id: d.device.id, name: d.device.name, groups: enclosing }) })
  return out
}

/** The device blocks; `realmOf`: each device's class realm (`target-realm`), when the rules are dispatched by location. */
function renderDevices(input: TacPlusNgConfigInput, realmOf: ReadonlyMap<string, string> | null): string[] {
  const out: string[] = []
  walkDeviceTree(input, {
    open: (g, depth) => out.push(`${T.repeat(depth)}device ${deviceGroupIdent(g.name)} {`),
    close: (depth) => out.push(`${T.repeat(depth)}}`),
    device: (d, depth) => {
      const p = T.repeat(depth)
      const { device } = d
      out.push(`${p}device ${deviceIdent(device.name)} {`)
      if (!device.enabled) out.push(`${p}${T}${tacComment('disabled: no address, so no client selects it')}`)
      else {
        if (!CIDR.test(device.address)) throw new TacPlusNgRenderError(`device ${device.name}: the address is not a CIDR prefix`)
        out.push(`${p}${T}address = ${tacString(device.address)}`)
        if (d.tacacsKey === null || d.tacacsKey === '') out.push(`${p}${T}${tacComment('no TACACS+ key: tac_plus-ng refuses this device')}`)
        else out.push(`${p}${T}key = ${tacString(d.tacacsKey, `the TACACS+ key of device ${device.name}`)}`)
        const realm = realmOf?.get(device.id)
        if (realm) out.push(`${p}${T}target-realm = ${realm}`)
      }
      out.push(`${p}}`)
    },
  })
  return out
}

function renderUsers(input: TacPlusNgConfigInput): string[] {
  const groupName = new Map(input.userGroups.map((g) => [g.id, userGroupIdent(g.name)]))
  // Directory users are not written: tac_plus-ng asks MAVIS for them (directory.ts), or, without a directory, knows them not.
  const users = input.users.filter((u) => !isDirectoryUser(u)).sort((a, b) => byteOrder(a.username, b.username) || byteOrder(a.id, b.id))
  const blocks: string[] = []
  for (const u of users) {
    const out: string[] = []
    const members = [...new Set(u.group_ids.map((id) => groupName.get(id)).filter((n): n is string => n !== undefined))].sort(byteOrder)
    out.push(`user ${userIdent(u.username)} {`)
    if (u.verifiers) {
      if (!SHA512_CRYPT.test(u.verifiers.sha512_crypt)) throw new TacPlusNgRenderError(`user ${u.username}: the stored verifier is not a SHA-512 crypt string`)
      if (input.lockout || input.mfa) out.push(...lockedPasswordLines(T))
      else out.push(`${T}password login = crypt ${tacString(u.verifiers.sha512_crypt)}`, `${T}password pap = login`, ...chapPasswordLines(u.verifiers.cleartext, T))
    } else {
      // Known to the daemon (authorization follows the rules, as the policy test says), but no password logs in.
      out.push(`${T}${tacComment('no network password set since network login was turned on')}`, `${T}password login = deny`, `${T}password pap = deny`)
    }
    if (members.length) out.push(`${T}member = ${members.join(',')}`)
    if (u.expires_at) out.push(...validUntil(u.expires_at))
    out.push('}')
    blocks.push(out.join('\n'))
  }
  return blocks
}

/**
 * The user's expiry as tac_plus-ng reads it (config.c parse_date): `YYYY-MM-DD` means the end of that
 * day in the daemon's local time, a plain number is seconds since 1970, so the number keeps the
 * exact second. The daemon refuses a login from that second on (authen.c user_expiry_check:
 * valid_until <= now); 0 would mean "never", hence at least 1.
 */
function validUntil(expiresAt: string): string[] {
  const ms = new Date(expiresAt).getTime()
  if (!Number.isFinite(ms)) throw new TacPlusNgRenderError(`the expiry ${JSON.stringify(expiresAt)} is not an instant`)
  const seconds = Math.max(1, Math.floor(ms / 1000))
  return [`${T}${tacComment(`expires ${new Date(seconds * 1000).toISOString()}`)}`, `${T}valid until = ${seconds}`]
}

const ACCOUNT = /^(?:[0-9]+|[A-Za-z_][A-Za-z0-9_.-]*)$/

/**
 * spawnd keeps root (it listens on port 49) and starts the workers as the account: they read the
 * configuration, answer the devices and write the logs. tac_plus-ng refuses an unknown name (`-P`).
 */
function spawnAccount(account: DaemonAccount | null): string[] {
  if (!account) return []
  for (const v of [account.user, account.group]) if (!ACCOUNT.test(v)) throw new TacPlusNgRenderError(`the daemon account "${v}" is not a user or group name`)
  return [`${T}${tacComment('The workers run as this account (server options tacacs.daemon_user and tacacs.daemon_group)')}`, `${T}spawn {`, `${T}${T}userid = ${tacString(account.user)}`, `${T}${T}groupid = ${tacString(account.group)}`, `${T}}`]
}

/**
 * The secret values the configuration text holds (RenderedFile.secrets), as the input has them: the
 * devices' keys, the local users' SHA-512 crypt verifiers and kept CHAP passwords, the profiles' enable
 * verifiers, the MFA internal key (MFA_KEY) and the directory reader's password (LDAP_PASSWD).
 */
export function tacPlusNgSecrets(input: TacPlusNgConfigInput): string[] {
  // Sorted: the same data in any order renders the same files.
  const all = [
    ...input.devices.flatMap((d) => (d.device.enabled && d.tacacsKey ? [d.tacacsKey] : [])),
    ...input.users.flatMap((u) => (u.verifiers ? [u.verifiers.sha512_crypt, ...(u.verifiers.cleartext !== undefined ? [u.verifiers.cleartext] : [])] : [])),
    ...input.profiles.flatMap((p) => p.secrets ?? []),
    ...(input.mfa ? [input.mfa.key] : []),
    ...(input.directory?.bindPassword ? [input.directory.bindPassword] : []),
  ]
  return [...new Set(all)].sort()
}

/** The configuration text. Same input, same bytes. */
export function buildTacPlusNgConfig(input: TacPlusNgConfigInput): string {
  const { address, port } = input.listen
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new TacPlusNgRenderError(`listen port ${port} is not a TCP port`)
  if (!/^[0-9A-Fa-f.:]+$/.test(address)) throw new TacPlusNgRenderError(`listen address is not an IP address`)

  const body: string[] = []
  // Lines of the tac_plus-ng block, indented as they are added. An entry may hold several lines (a
  // user's block is one entry: at 100,000 users, one string a line made the render spend more time
  // collecting garbage than writing). One push per entry: spreading them into push() overflows the stack.
  const section = (title: string, lines: string[]) => {
    body.push('', T + tacComment(title))
    for (const line of lines) body.push(line.length ? T + (line.includes('\n') ? line.replace(/\n(?=[^\n])/g, '\n' + T) : line) : line)
  }
  // The reader compiles `/…/` caseless only until the first `}` of the file (mavis_parse.c keeps a
  // stack of the flag per brace level that starts at "match case"): the spawnd block's `}` already
  // turned it off. This restores caseless matching for everything in this block, as the command
  // simulation (and the profile texts) expect.
  section('Regular expressions match regardless of case', ['regex-match-case = no'])
  // Named "umask", but tac_plus-ng gives it to open(2) as the mode of the log files it creates (and
  // to their folders, with search): never readable by others, group read for the ingester.
  section('Log files: 0640 (folders 0750)', ['umask = 0640'])
  // Inherited by every device: Palo Alto systems send authorization and accounting with minor version 1
  // (RFC 8907 asks for 0), which tac_plus-ng otherwise answers with ERROR "Illegal packet". The bodies
  // are the same in both versions, so nothing else changes.
  section('Accept authorization and accounting of minor version 1 (Palo Alto)', ['bug compatibility = 2'])
  section('Logs for the platform ingester (format: plugins/tacacs/renderers/log-format.ts)', renderLogs(input.logDirectory))
  if (input.lockout) section('Account lockout through MAVIS (plugins/tacacs/renderers/lockout.ts)', mavisLines(input.lockout, input.users, T, input.mfa ? mfaBackendLines(input.mfa, T) : undefined))
  else if (input.mfa) section('The second factor through MAVIS (plugins/tacacs/renderers/mfa.ts)', mfaMavisLines(input.mfa, T))
  if (input.mfa) section('The password prompt says the code follows it (mfa.ts)', [`message PASSWORD = ${tacString(MFA_PASSWORD_PROMPT)}`])
  const directory = input.directory && input.users.some(isDirectoryUser) ? input.directory : null
  // Last in the MAVIS chain: the names the lockout's and the second factor's modules do not know (NFD) are the directory's.
  if (directory) section('Directory users through MAVIS and the LDAP backend (plugins/tacacs/renderers/directory.ts)', directoryMavisLines(directory, input.users, input.userGroups, { declarePath: !input.lockout && !input.mfa }, T))
  const dispatch = input.rules !== null && input.ruleViews ? locationDispatch(input.ruleViews.map((v) => v.rule), devicePlaces(input)) : null
  const devicesTitle = 'Devices; device groups are device blocks named "group:NAME" that their members nest in'
  // Rules name devices (`device ==`), so the devices come first; dispatched, the devices name the realms.
  if (!dispatch) section(devicesTitle, renderDevices(input, null))

  const profiles = [...input.profiles].sort((a, b) => byteOrder(a.profile.name, b.profile.name) || byteOrder(a.profile.id, b.profile.id))
  section('TACACS+ profiles', profiles.flatMap((p) => p.text.replace(/\n+$/, '').split('\n')))

  const groups = [...input.userGroups].sort((a, b) => byteOrder(userGroupIdent(a.name), userGroupIdent(b.name)) || byteOrder(a.id, b.id))
  section('User groups', groups.map((g) => `group ${userGroupIdent(g.name)}`))
  if (directory) section('Directory groups mapped to user groups: members of the directory group are members of the user group', directoryGroupLines(directory, input.userGroups))
  section('Users allowed on the network', renderUsers(input))

  if (input.timespecs?.length) section('Time windows of the AAA policy rules (cron entries: minute hour day month weekday, in local time)', input.timespecs.flatMap((t) => t.replace(/\n+$/, '').split('\n')))
  const ruleset = (texts: string[]) => ['ruleset {', ...texts.map((r) => indent(r.replace(/\n+$/, ''), T)), '}']
  if (input.rules === null) section('No AAA policy is loaded: no rule permits anyone', ['ruleset {', '}'])
  else if (!dispatch) {
    if (input.ruleViews) body.push('', T + tacComment(`One flat ruleset: realms per location would hold over ${MAX_GROWTH} times the rules (dispatch.ts)`))
    section('AAA policy rules, in evaluation order (the first permit or deny decides; none means deny)', ruleset(input.rules))
  } else {
    const views = input.ruleViews!
    // A rule sits in every realm it can apply in: its text (indented for a realm's ruleset) is made once.
    const inRealm = new Map<number, string>()
    const realmText = (i: number) => inRealm.get(i) ?? inRealm.set(i, indent(renderRuleText(views[i].rule, views[i].profileName, { withoutPlace: true }).replace(/\n+$/, ''), T + T)).get(i)!
    section(
      'AAA policy rules, dispatched by location (dispatch.ts): each realm holds, in evaluation order, the rules that can apply at its devices (the first permit or deny decides; none means deny)',
      dispatch.realms.flatMap((realm) => [
        tacComment(`${realm.devices.length} device(s): ${realm.devices.slice(0, 5).join(', ')}${realm.devices.length > 5 ? ', …' : ''}. A rule's place holds at each of them, so it is not repeated here.`),
        `realm ${realm.name} {`,
        `${T}ruleset {`,
        ...realm.rules.map(realmText),
        `${T}}`, '}']),
    )
    section(devicesTitle + '; each names the realm of its location (target-realm)', renderDevices(input, dispatch.realmOf))
  }

  const lines = [
    tacComment('Written by Portcullis (renderer tacacs.tac_plus-ng). Do not edit: the next deploy replaces this file.'),
    'id = spawnd {',
    `${T}listen {`,
    `${T}${T}address = ${tacString(address)}`,
    `${T}${T}port = ${port}`,
    `${T}}`,
    ...spawnAccount(input.account ?? null),
    '}',
    '',
    'id = tac_plus-ng {',
    ...body,
    '}',
  ]
  return lines.join('\n') + '\n'
}
