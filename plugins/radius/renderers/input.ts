/**
 * What the FreeRADIUS configuration is built from: its own file, so that the
 * builder (config.ts) and the policy compiler (policy.ts) both import it and
 * neither imports the other back (imports go one way: test/imports.test.ts).
 */
import type { DaemonAccount, DaemonDirectory, NetworkLoginRefusal, NetworkUser } from '../../../sdk/index.js'
import type { Device, DeviceGroup } from '../../inventory/api.js'
import type { RadiusPolicyRule, RadiusProfile } from '../api.js'
import type { FreeradiusMfa } from './mfa.js'
import type { FreeradiusNac } from './nac-input.js'

export interface FreeradiusConfigInput {
  listen: { address: string; authPort: number; acctPort: number }
  /** Absolute folder the daemon writes its JSON lines to, and its own log (radius.log). */
  logDirectory: string
  /** Absolute folder of the daemon's pid file (FreeRADIUS creates it when it starts). */
  runDirectory: string
  /** Where FreeRADIUS looks for its modules (rlm_*.so): absolute folders separated by ":". */
  libdir: string
  /** The unprivileged account the daemon runs as (security { user group }); null or absent: as it was started. */
  account?: DaemonAccount | null
  deviceGroups: Pick<DeviceGroup, 'id' | 'name' | 'parent_id'>[]
  devices: { device: Pick<Device, 'id' | 'name' | 'address' | 'device_group_id' | 'enabled'>; radiusSecret: string | null }[]
  users: Pick<NetworkUser, 'id' | 'username' | 'group_ids' | 'verifiers' | 'expires_at' | 'lockout_cleared_at' | 'source'>[]
  /** Settings identity.lockout_threshold (0: off) and identity.lockout_seconds (renderers/lockout.ts); absent: off. */
  lockout?: { threshold: number; seconds: number }
  /** The users who are not network users (disabled, network login off): rejected by name, with the reason. */
  refusedUsers: NetworkLoginRefusal[]
  profiles: Pick<RadiusProfile, 'id' | 'name' | 'attributes' | 'allow_mschapv1'>[]
  /** The directory (settings directory.*) for users with source directory (directory.ts); absent or null: none set. */
  directory?: FreeradiusDirectory | null
  /** The rules in evaluation order; null when no policy source is registered (everyone is rejected). */
  rules: RadiusPolicyRule[] | null
  /** The second factor on device logins (renderers/mfa.ts); null or absent: the password alone. */
  mfa?: FreeradiusMfa | null
  /** 802.1X and MAB (renderers/nac-*.ts) when a NacPolicySource is registered; null or absent: device administration only. */
  nac?: FreeradiusNac | null
}

/** The directory (settings directory.*) as renderers/directory.ts writes it for rlm_ldap. */
export type FreeradiusDirectory = DaemonDirectory
