/**
 * What the policy test reads, behind one small interface: from the database (the policy as
 * edited, `against: database`) or from the inputs a deployed release was rendered from
 * (`against: deployed`, services/deployed-inputs.ts). evaluate.ts runs the same code on either.
 */
import type { Knex } from 'knex'
import { directorySettingRefs, identitySettingRefs, type IdentityService, type Say, type SettingsService, type UserRef } from '../../../sdk/index.js'
import type { Device, InventoryService } from '../../inventory/api.js'
import type { RadiusProfile, RadiusService } from '../../radius/api.js'
import { tacacsChapWritable, tacacsMschapWritable, type CommandDecision, type TacacsProfile, type TacacsService } from '../../tacacs/api.js'
import type { PolicyRuleView } from '../api.js'

export type PolicyUser = Pick<UserRef, 'id' | 'username' | 'enabled' | 'network_login' | 'expires_at'>

/** What the daemon holds to check a login with: nothing (null), or the verifiers, and whether CHAP can be checked. */
export interface LoginMaterial {
  /** FreeRADIUS is given the kept cleartext (CHAP): present, and writable into its files. */
  chap: boolean
  /** tac_plus-ng is given it for CHAP (`password chap = clear`); absent (inputs of an older release): false, as it was then. */
  tacacs_chap?: boolean
  /** …and for MS-CHAP (`password ms-chap = clear`). */
  tacacs_mschap?: boolean
  /** Account lockout was on for tac_plus-ng (identity.lockout_threshold > 0): it got no CHAP or MS-CHAP password (plugins/tacacs/renderers/lockout.ts). */
  tacacs_lockout?: true
  /**
   * A directory user: no verifier, the directory checks the password (PAP, ASCII; docs/directory.md), and the
   * user groups mapped to a directory group hold them only as the directory says at login, which the test cannot know.
   */
  directory?: true
  /**
   * …while no directory is set (directory.url null): FreeRADIUS rejects them before the policy
   * (`directory_not_configured`), tac_plus-ng is not given them (an unknown user). Absent (inputs of an
   * older release): as if a directory was set.
   */
  no_directory?: true
}

/** What the daemons check a directory user's login with: the directory (never CHAP). */
export const DIRECTORY_LOGIN: LoginMaterial = { chap: false, directory: true }
const NO_DIRECTORY_LOGIN: LoginMaterial = { chap: false, directory: true, no_directory: true }

/** A directory user's login material as the daemons get it in this snapshot: with or without a directory (no settings service, older callers: with). */
export const directoryLogin = async (settings: SettingsService | undefined, db: Knex | Knex.Transaction): Promise<LoginMaterial> =>
  settings && (await settings.get(directorySettingRefs.url, db)) === null ? NO_DIRECTORY_LOGIN : DIRECTORY_LOGIN

export interface PolicyData {
  /** By name, compared without regard to case (the daemons compare exactly: evaluate checks). */
  findUser(username: string): Promise<PolicyUser | null>
  loginMaterial(userId: string): Promise<LoginMaterial | null>
  groupIdsOf(userId: string): Promise<string[]>
  getDevice(id: string): Promise<Device | null>
  findDeviceByAddress(ip: string): Promise<Device | null>
  findRadiusClient(address: string): Promise<Device | null>
  deviceGroupIds(deviceId: string): Promise<string[]>
  listRules(): Promise<readonly PolicyRuleView[]>
  tacacsProfile(id: string): Promise<TacacsProfile | null>
  /** `say`: the reason's language (the tacacs plugin's English without). */
  authorizeCommand(profile: TacacsProfile, line: string, privLvl?: number, say?: Say): Promise<CommandDecision>
  radiusProfile(id: string): Promise<RadiusProfile | null>
}

/** A kept password FreeRADIUS can be given for CHAP (plugins/radius/renderers/syntax.ts CLEARTEXT: no control characters). */
// eslint-disable-next-line no-control-regex -- the renderer refuses control characters, so must the test
export const CHAP_WRITABLE = /^[^\u0000-\u001f\u007f]+$/

/**
 * What tac_plus-ng is given of a kept password (the tacacs contract's predicates, as its renderer uses them):
 * CHAP unless it holds `${` (replaced from the daemon's environment) or NUL; MS-CHAP only when it is
 * also inside the Basic Multilingual Plane (the daemon's UTF-16 conversion gets the others wrong).
 */
export function loginMaterialOf(v: { cleartext?: string }, tacacsLockout = false): LoginMaterial {
  const c = v.cleartext
  const out: LoginMaterial = { chap: c !== undefined && CHAP_WRITABLE.test(c), tacacs_chap: c !== undefined && tacacsChapWritable(c), tacacs_mschap: c !== undefined && tacacsMschapWritable(c) }
  // Only when on: inputs kept while it was off read as before.
  return tacacsLockout ? { ...out, tacacs_lockout: true } : out
}

/** identity.lockout_threshold > 0 in this snapshot; no settings service (older callers): off. */
export const tacacsLockoutOn = async (settings: SettingsService | undefined, db: Knex | Knex.Transaction): Promise<boolean> =>
  settings ? (await settings.get(identitySettingRefs.lockoutThreshold, db)) > 0 : false

export interface DatabaseDataDeps {
  identity: IdentityService
  inventory: InventoryService
  tacacs: TacacsService | undefined
  radius: RadiusService | undefined
  /** Reads identity.lockout_threshold (TACACS+ CHAP refused while the lockout is on); absent: off. */
  settings?: SettingsService
  /** The ordered rules as the renderers read them; the route serves them from the in-memory cache (services/cache.ts). */
  listRules(db: Knex | Knex.Transaction): Promise<readonly PolicyRuleView[]>
}

/** The policy as edited, read through one transaction (one connection: one query at a time). */
export function databasePolicyData(d: DatabaseDataDeps, db: Knex.Transaction): PolicyData {
  return {
    findUser: (username) => d.identity.findUser({ username }, db),
    async loginMaterial(userId) {
      const v = await d.identity.networkVerifiers(userId, db)
      if (!v) return (await d.identity.findUser({ id: userId }, db))?.source === 'directory' ? directoryLogin(d.settings, db) : null
      return loginMaterialOf(v, await tacacsLockoutOn(d.settings, db))
    },
    groupIdsOf: (userId) => d.identity.groupIdsOf(userId, db),
    getDevice: (id) => d.inventory.getDevice(id, db),
    findDeviceByAddress: (ip) => d.inventory.findDeviceByAddress(ip, db),
    findRadiusClient: (address) => d.inventory.findRadiusClient(address, db),
    deviceGroupIds: (deviceId) => d.inventory.deviceGroupIds(deviceId, db),
    listRules: () => d.listRules(db),
    tacacsProfile: async (id) => (d.tacacs ? d.tacacs.getProfile(id, db) : null),
    authorizeCommand: (profile, line, privLvl, say) => d.tacacs!.authorizeCommand(profile, line, db, privLvl, say),
    radiusProfile: async (id) => (d.radius ? d.radius.getProfile(id, db) : null),
  }
}
