/**
 * The renderer `tacacs.tac_plus-ng`: reads the data through the deploy's snapshot (devices, users,
 * profiles, the AAA policy, the lockout and second-factor settings) and hands it to the pure
 * `buildTacPlusNgConfig` (config.ts), then adds the files beside the configuration.
 */
import path from 'node:path'
import type { Knex } from 'knex'
import { activeReleaseDir, identitySettingRefs, type ConfigRenderer, type DaemonAccount, type DaemonRun, type IdentityService, type RenderedFile, type ServerOptionRef, type ServerOptionsService, type SettingRef, type SettingsService } from '../../../sdk/index.js'
import type { InventoryService } from '../../inventory/api.js'
import type { MfaService } from '../../mfa/api.js'
import type { PolicyRuleView, PolicySource, TacacsProfile, TacacsService } from '../api.js'
import { tacPlusNgCleartextIn } from './chap.js'
import { tacPlusNgRevokedSince } from './revocations.js'
import { buildTacPlusNgConfig, TAC_PLUS_NG_CONFIG_FILE, tacPlusNgSecrets, type TacPlusNgConfigInput } from './config.js'
import { checkLockoutPrograms, defaultMavisDirectory, shadowFile, TAC_PLUS_NG_SHADOW_FILE, type TacPlusNgLockout } from './lockout.js'
import { DIRECTORY_CA_FILE, isDirectoryUser, readDirectory } from './directory.js'
import { checkMfaPrograms, MFA_BACKEND_SOURCE, TAC_PLUS_NG_MFA_BACKEND, type TacacsMfaMode, type TacPlusNgMfa } from './mfa.js'
import { renderTimespec } from './rule.js'
import { TacPlusNgRenderError } from './syntax.js'

export interface TacPlusNgRendererDeps {
  inventory: InventoryService
  identity: IdentityService
  tacacs: TacacsService
  settings: SettingsService
  serverOptions: ServerOptionsService
  /** The registered AAA policy (the tacacs service keeps it); null when none is. */
  policySource: () => PolicySource | null
  /** Where logs go when the log directory setting is null: the platform's data folder. */
  dataDir: string
  refs: {
    listenAddress: SettingRef<string>
    listenPort: SettingRef<number>
    logDirectory: ServerOptionRef<string | null>
    user: ServerOptionRef<string | null>
    group: ServerOptionRef<string | null>
    binary: ServerOptionRef<string>
    mavisDirectory: ServerOptionRef<string | null>
    perlBinary: ServerOptionRef<string>
    lockoutDirectory: ServerOptionRef<string | null>
    mfaMode: SettingRef<TacacsMfaMode>
  }
  /** The mfa plugin's service, when the edition loads it: the internal surface's address and key. */
  mfa?: MfaService
}

/** The account of server options tacacs.daemon_user / tacacs.daemon_group: both or neither. */
function daemonAccount(d: TacPlusNgRendererDeps): DaemonAccount | null {
  const [user, group] = [d.serverOptions.get(d.refs.user), d.serverOptions.get(d.refs.group)]
  if (user === null && group === null) return null
  if (user === null || group === null) throw new TacPlusNgRenderError('set both server options tacacs.daemon_user and tacacs.daemon_group, or neither')
  return { user, group }
}

const logDirectoryOf = (d: TacPlusNgRendererDeps) => d.serverOptions.get(d.refs.logDirectory) ?? path.join(d.dataDir, 'logs', 'tacacs')

/** Where tacauth_limit keeps the failure counts (a folder the workers write). */
const lockoutDirectoryOf = (d: TacPlusNgRendererDeps) => d.serverOptions.get(d.refs.lockoutDirectory) ?? path.join(d.dataDir, 'tacacs-lock')

/** The lockout as the settings and server options say, the programs checked; null while identity.lockout_threshold is 0. */
async function lockoutOf(d: TacPlusNgRendererDeps, snapshot: Knex.Transaction): Promise<TacPlusNgLockout | null> {
  const threshold = await d.settings.get(identitySettingRefs.lockoutThreshold, snapshot)
  if (!(threshold > 0)) return null
  const mavisDirectory = d.serverOptions.get(d.refs.mavisDirectory) ?? defaultMavisDirectory(d.serverOptions.get(d.refs.binary))
  if (!mavisDirectory) throw new TacPlusNgRenderError('account lockout is on (identity.lockout_threshold > 0) and needs the tac_plus-ng MAVIS folder, not found next to tacacs.binary: set server option tacacs.mavis_directory')
  const lockout: TacPlusNgLockout = {
    threshold,
    seconds: await d.settings.get(identitySettingRefs.lockoutSeconds, snapshot),
    mavisDirectory,
    perl: d.serverOptions.get(d.refs.perlBinary),
    shadowPath: path.join(activeReleaseDir(d.dataDir, 'tac_plus-ng'), TAC_PLUS_NG_SHADOW_FILE),
    stateDirectory: lockoutDirectoryOf(d),
  }
  checkLockoutPrograms(lockout)
  return lockout
}

/** The second factor as tacacs.mfa_mode and the mfa plugin say, the programs checked; null: the password alone. */
async function mfaOf(d: TacPlusNgRendererDeps, snapshot: Knex.Transaction): Promise<TacPlusNgMfa | null> {
  const mode = await d.settings.get(d.refs.mfaMode, snapshot)
  const link = mode === 'off' || !d.mfa ? null : await d.mfa.daemonLink(snapshot)
  if (!link) return null
  if (link.baseUrl === null) throw new TacPlusNgRenderError(`setting mfa.internal_key is set and tacacs.mfa_mode is ${mode}, so tac_plus-ng must reach the MFA surface: set server option mfa.internal_url (or tacacs.mfa_mode off)`)
  const mavisDirectory = d.serverOptions.get(d.refs.mavisDirectory) ?? defaultMavisDirectory(d.serverOptions.get(d.refs.binary))
  if (!mavisDirectory) throw new TacPlusNgRenderError('the second factor (tacacs.mfa_mode) needs the tac_plus-ng MAVIS folder, not found next to tacacs.binary: set server option tacacs.mavis_directory')
  const release = activeReleaseDir(d.dataDir, 'tac_plus-ng')
  const mfa: TacPlusNgMfa = { baseUrl: link.baseUrl, key: link.key, perl: d.serverOptions.get(d.refs.perlBinary), mavisDirectory, backendPath: path.join(release, TAC_PLUS_NG_MFA_BACKEND), shadowPath: path.join(release, TAC_PLUS_NG_SHADOW_FILE) }
  checkMfaPrograms(mfa)
  return mfa
}

/** Rule texts in order: the very `renderRule` text the preview shows, with the profile's name; the rules themselves (for the location realms); and the rules' timespecs. */
async function renderRules(
  d: TacPlusNgRendererDeps,
  snapshot: Knex.Transaction,
  profiles: TacacsProfile[],
): Promise<{ rules: string[] | null; ruleViews: TacPlusNgConfigInput['ruleViews']; timespecs: string[] }> {
  const source = d.policySource()
  if (!source) return { rules: null, ruleViews: undefined, timespecs: [] }
  const byId = new Map(profiles.map((p) => [p.id, p.name]))
  const rules: PolicyRuleView[] = await source.listRules(snapshot)
  const ruleViews = rules.map((rule) => ({ rule, profileName: rule.tacacs_profile_id ? (byId.get(rule.tacacs_profile_id) ?? null) : null }))
  return {
    rules: ruleViews.map((v) => d.tacacs.renderRule(v.rule, v.profileName)),
    ruleViews,
    timespecs: rules.flatMap((r) => renderTimespec(r) ?? []),
  }
}

export const createTacPlusNgRenderer = (d: TacPlusNgRendererDeps): ConfigRenderer => ({
  id: 'tacacs.tac_plus-ng',
  daemon: 'tac_plus-ng',
  async render(snapshot: Knex.Transaction): Promise<RenderedFile[]> {
    const [address, port] = [await d.settings.get(d.refs.listenAddress, snapshot), await d.settings.get(d.refs.listenPort, snapshot)]
    const deviceGroups = await d.inventory.listGroups(snapshot)
    // Every key in one statement (one query per device made 10,000 devices take seconds).
    const keys = await d.inventory.allDeviceSecrets('tacacs_key', snapshot)
    const devices: TacPlusNgConfigInput['devices'] = (await d.inventory.listDevices(snapshot)).map((device) => ({
      device,
      tacacsKey: device.enabled && device.has_tacacs_key ? (keys.get(device.id) ?? null) : null,
    }))
    const userGroups = await d.identity.userGroups(snapshot)
    const users = await d.identity.networkUsers(snapshot)
    const profileList = await d.tacacs.listProfiles(snapshot)
    const profiles: TacPlusNgConfigInput['profiles'] = []
    for (const profile of profileList) profiles.push({ profile, text: await d.tacacs.renderProfile(profile, snapshot), secrets: await d.tacacs.profileSecrets(profile, snapshot) })
    const { rules, ruleViews, timespecs } = await renderRules(d, snapshot, profileList)
    const lockout = await lockoutOf(d, snapshot)
    const directory = users.some(isDirectoryUser)
      ? await readDirectory(d.settings, d.identity, snapshot, { mavisDirectory: d.serverOptions.get(d.refs.mavisDirectory) ?? defaultMavisDirectory(d.serverOptions.get(d.refs.binary)), perl: d.serverOptions.get(d.refs.perlBinary), caPath: path.join(activeReleaseDir(d.dataDir, 'tac_plus-ng'), DIRECTORY_CA_FILE) })
      : null
    const mfa = await mfaOf(d, snapshot)
    const input: TacPlusNgConfigInput = {
      listen: { address, port },
      logDirectory: logDirectoryOf(d),
      account: daemonAccount(d),
      deviceGroups,
      devices,
      userGroups,
      users,
      profiles,
      rules,
      ruleViews,
      timespecs,
      lockout,
      directory,
      mfa,
    }
    // Each file declares the secrets it holds (RenderedFile.secrets): no view of the release shows them.
    const files: RenderedFile[] = [{ path: TAC_PLUS_NG_CONFIG_FILE, content: buildTacPlusNgConfig(input), mode: 0o600, secrets: tacPlusNgSecrets(input) }]
    if (lockout || mfa) files.push({ path: TAC_PLUS_NG_SHADOW_FILE, content: shadowFile(users), mode: 0o600, secrets: users.flatMap((u) => (u.verifiers ? [u.verifiers.sha512_crypt] : [])).sort() })
    if (mfa) files.push({ path: TAC_PLUS_NG_MFA_BACKEND, content: MFA_BACKEND_SOURCE, mode: 0o600 })
    if (directory?.caCertificate) files.push({ path: DIRECTORY_CA_FILE, content: directory.caCertificate.replace(/\n*$/, '\n'), mode: 0o644 })
    return files
  },
  async run(): Promise<DaemonRun | null> {
    // Foreground (`-f`) with its workers: the spawnd process keeps the listening socket and hands each
    // connection to a worker, which drops to tacacs.daemon_user itself (`spawn { userid groupid }`). Not
    // `-1` (one process): tac_plus-ng calls that mode "degraded, unsuitable for real-life usage". Its own
    // messages go to syslog; stdout/stderr carry what it prints before that (a broken configuration).
    return { binary: d.serverOptions.get(d.refs.binary), args: (dir) => ['-f', path.join(dir, TAC_PLUS_NG_CONFIG_FILE)] }
  },
  account: () => daemonAccount(d),
  // The dated logs of log-format.ts (authentication-2026-11-23.log …): removed after deploy.log_retention_days.
  // …and the folder of the lockout counts (lockout.ts), kept when the lockout is off (a later turn-on finds it ready).
  folders: () => [{ directory: logDirectoryOf(d), logs: /^(?:authentication|authorization|accounting)-\d{4}-\d{2}-\d{2}\.log$/ }, { directory: lockoutDirectoryOf(d) }],
  // Older releases holding a CHAP password this one no longer has are removed at deploy.
  cleartextIn: (files) => tacPlusNgCleartextIn(files, TAC_PLUS_NG_CONFIG_FILE),
  // A rollback to a release that lets in a user refused now is refused (revocations.ts).
  revokedSince: tacPlusNgRevokedSince,
})
