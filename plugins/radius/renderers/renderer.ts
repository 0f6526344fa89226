/**
 * The renderer `radius.freeradius`: reads the data through the deploy's snapshot (devices, users,
 * profiles, the AAA and NAC policies, the settings and server options) and hands it to the pure
 * `buildFreeradiusConfig` (config.ts). Kept apart so config.ts stays data in, files out.
 */
import { createHash } from 'node:crypto'
import path from 'node:path'
import type { Knex } from 'knex'
import { identitySettingRefs } from '../../../sdk/index.js'
import type { ConfigRenderer, DaemonAccount, DaemonCheck, DaemonRun, IdentityService, NacPolicySource, RenderedFile, ServerOptionRef, ServerOptionsService, SettingRef, SettingsService } from '../../../sdk/index.js'
import type { InventoryService } from '../../inventory/api.js'
import type { MfaService } from '../../mfa/api.js'
import { FREERADIUS_DAEMON, type RadiusPolicySource, type RadiusService } from '../api.js'
import { buildFreeradiusConfig, FREERADIUS_LIBDIRS } from './config.js'
import type { FreeradiusConfigInput } from './input.js'
import { FreeradiusRenderError } from './syntax.js'
import { readDirectory } from './directory.js'
import { appendClientsOf, type RadiusMfaMode } from './mfa.js'
import { freeradiusRevokedSince } from './revocations.js'

export interface FreeradiusRendererDeps {
  inventory: InventoryService
  identity: IdentityService
  radius: RadiusService
  settings: SettingsService
  serverOptions: ServerOptionsService
  /** The mfa plugin's service, when the edition loads it: the internal surface's address and key. */
  mfa?: MfaService
  /** The registered AAA policy (the radius service keeps it); null when none is. */
  policySource: () => RadiusPolicySource | null
  /** The registered NAC policy (sdk/nac-policy.ts); null when none is: no 802.1X, no MAB. */
  nacPolicySource?: () => NacPolicySource | null
  /** Where logs and the pid file go when their options are null: the platform's data folder. */
  dataDir: string
  refs: {
    listenAddress: SettingRef<string>
    authPort: SettingRef<number>
    acctPort: SettingRef<number>
    logDirectory: ServerOptionRef<string | null>
    runDirectory: ServerOptionRef<string | null>
    libdir: ServerOptionRef<string | null>
    binary: ServerOptionRef<string>
    mfaMode: SettingRef<RadiusMfaMode>
    mfaAppendDeviceGroups: SettingRef<string[]>
    user: ServerOptionRef<string | null>
    group: ServerOptionRef<string | null>
    eapCertificateFile?: ServerOptionRef<string | null>
    eapPrivateKeyFile?: ServerOptionRef<string | null>
  }
}

/** The account of server options radius.daemon_user / radius.daemon_group: both or neither. */
function daemonAccount(d: FreeradiusRendererDeps): DaemonAccount | null {
  const [user, group] = [d.serverOptions.get(d.refs.user), d.serverOptions.get(d.refs.group)]
  if (user === null && group === null) return null
  if (user === null || group === null) throw new FreeradiusRenderError('set both server options radius.daemon_user and radius.daemon_group, or neither')
  return { user, group }
}

const logDirectoryOf = (d: FreeradiusRendererDeps) => d.serverOptions.get(d.refs.logDirectory) ?? path.join(d.dataDir, 'logs', 'radius')
const runDirectoryOf = (d: FreeradiusRendererDeps) => d.serverOptions.get(d.refs.runDirectory) ?? path.join(d.dataDir, 'run', 'freeradius')

/**
 * The cleartext passwords of a release (CHAP, `portcullis/verifiers`), each named by a hash of its
 * user's entry and its item: the deploy removes an older release holding one the current release no
 * longer has (CHAP turned off, the password changed, the user gone).
 */
export function freeradiusCleartextIn(files: { path: string; content: string }[]): string[] {
  const file = files.find((f) => f.path === 'portcullis/verifiers')
  if (!file) return []
  const out: string[] = []
  let user = ''
  for (const line of file.content.split('\n')) {
    // A user's entry: the key, then the items, the cleartext password last.
    const m = /^(u\.\S+)\t.*?(Cleartext-Password := '.*')$/.exec(line)
    if (m) out.push(createHash('sha256').update(`${m[1]}\n${m[2]}`).digest('hex'))
    // A release rendered before the users file (a `switch` with a case per user): its passwords
    // are named too, so an older release that holds one is still found (and, the names differing, removed).
    else if (/^\s*case /.test(line)) user = line.trim()
    else if (/^\s*&Cleartext-Password :?= /.test(line)) out.push(createHash('sha256').update(`${user}\n${line.trim()}`).digest('hex'))
  }
  return out
}

/** The second factor as radius.mfa_mode and the mfa plugin say; null: the password alone. */
async function freeradiusMfa(d: FreeradiusRendererDeps, snapshot: Knex.Transaction, inventory: Pick<FreeradiusConfigInput, 'deviceGroups' | 'devices'>): Promise<FreeradiusConfigInput['mfa']> {
  const mode = await d.settings.get(d.refs.mfaMode, snapshot)
  const link = mode === 'off' || !d.mfa ? null : await d.mfa.daemonLink(snapshot)
  if (mode === 'off' || !link) return null
  if (link.baseUrl === null) throw new FreeradiusRenderError(`setting mfa.internal_key is set and radius.mfa_mode is ${mode}, so FreeRADIUS must reach the MFA surface: set server option mfa.internal_url (or radius.mfa_mode off)`)
  const groups = await d.settings.get(d.refs.mfaAppendDeviceGroups, snapshot)
  const appendClients = mode === 'challenge' ? appendClientsOf(groups, inventory.deviceGroups, inventory.devices.filter((c) => c.radiusSecret !== null).map((c) => c.device)) : []
  return { mode, appendClients, baseUrl: link.baseUrl, key: link.key, checkPath: link.checkPath, verifyPath: link.verifyPath, pushPath: link.pushPath }
}

/** 802.1X and MAB when the nac plugin registered its source; the EAP server certificate from the server options. */
async function freeradiusNac(d: FreeradiusRendererDeps, snapshot: Knex.Transaction): Promise<FreeradiusConfigInput['nac']> {
  const source = d.nacPolicySource?.() ?? null
  if (!source) return null
  const cert = d.refs.eapCertificateFile ? d.serverOptions.get(d.refs.eapCertificateFile) : null
  const key = d.refs.eapPrivateKeyFile ? d.serverOptions.get(d.refs.eapPrivateKeyFile) : null
  if ((cert === null) !== (key === null)) throw new FreeradiusRenderError('set both server options radius.eap_certificate_file and radius.eap_private_key_file, or neither')
  return {
    policy: await source.compile(snapshot),
    endpoints: await source.endpoints(snapshot),
    eap: cert !== null && key !== null ? { certificateFile: cert, privateKeyFile: key } : null,
    portalKey: (await source.portalRedirectKey?.(snapshot)) ?? null,
  }
}

export const createFreeradiusRenderer = (d: FreeradiusRendererDeps): ConfigRenderer => ({
  id: 'radius.freeradius',
  daemon: FREERADIUS_DAEMON,
  async render(snapshot: Knex.Transaction): Promise<RenderedFile[]> {
    const address = await d.settings.get(d.refs.listenAddress, snapshot)
    const authPort = await d.settings.get(d.refs.authPort, snapshot)
    const acctPort = await d.settings.get(d.refs.acctPort, snapshot)
    const deviceGroups = await d.inventory.listGroups(snapshot)
    // Every secret in one statement (one query per device made 10,000 devices take seconds).
    const secrets = await d.inventory.allDeviceSecrets('radius_secret', snapshot)
    const devices: FreeradiusConfigInput['devices'] = (await d.inventory.listDevices(snapshot)).map((device) => ({
      device,
      radiusSecret: device.enabled && device.has_radius_secret ? (secrets.get(device.id) ?? null) : null,
    }))
    const users = await d.identity.networkUsers(snapshot)
    const refusedUsers = await d.identity.networkLoginRefusals(snapshot)
    const profiles = await d.radius.listProfiles(snapshot)
    const source = d.policySource()
    const rules = source ? await source.listRules(snapshot) : null
    const lockout = { threshold: await d.settings.get(identitySettingRefs.lockoutThreshold, snapshot), seconds: await d.settings.get(identitySettingRefs.lockoutSeconds, snapshot) }
    const directory = await readDirectory(d.settings, d.identity, snapshot)
    return buildFreeradiusConfig({
      listen: { address, authPort, acctPort },
      logDirectory: logDirectoryOf(d),
      runDirectory: runDirectoryOf(d),
      account: daemonAccount(d),
      libdir: d.serverOptions.get(d.refs.libdir) ?? FREERADIUS_LIBDIRS,
      deviceGroups,
      devices,
      users,
      refusedUsers,
      profiles,
      rules,
      lockout,
      directory,
      mfa: await freeradiusMfa(d, snapshot, { deviceGroups, devices }),
      nac: await freeradiusNac(d, snapshot),
    })
  },
  async check(): Promise<DaemonCheck | null> {
    const binary = d.serverOptions.get(d.refs.binary)
    // `-l stdout`: the check's messages come back in the deploy's output, and nothing is written to
    // the daemon's log (or created at all: without -l, -C creates logdir and appends to radius.log).
    return { binary, args: (dir) => ['-C', '-l', 'stdout', '-d', dir] }
  },
  async run(): Promise<DaemonRun | null> {
    // Foreground (`-f`), its messages on stdout (`-l stdout`) for the supervisor's output tail. It drops to
    // radius.daemon_user itself (the `security { user group }` of radiusd.conf) once its sockets are open.
    // Started once it prints that it is ready: its modules load for a while on a busy node, and a port it
    // cannot bind is only found after that.
    return { binary: d.serverOptions.get(d.refs.binary), args: (dir) => ['-f', '-l', 'stdout', '-d', dir], ready: /\bReady to process requests\b/ }
  },
  account: () => daemonAccount(d),
  folders: () => [{ directory: logDirectoryOf(d), logs: /^radius-(?:auth|acct)-\d{4}-\d{2}-\d{2}\.jsonl$/ }, { directory: runDirectoryOf(d) }],
  cleartextIn: freeradiusCleartextIn,
  // A rollback to a release that lets in a user refused now is refused (revocations.ts).
  revokedSince: freeradiusRevokedSince,
})
