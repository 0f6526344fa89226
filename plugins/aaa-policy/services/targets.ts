/** Each kind a rule references, and the owner contract (sdk/references.ts) that reaches it. */
import type { IdentityService, ReferenceTarget } from '../../../sdk/index.js'
import type { InventoryService } from '../../inventory/api.js'
import type { RadiusService } from '../../radius/api.js'
import type { TacacsService } from '../../tacacs/api.js'
import type { RefKind } from '../errors.js'
import type { RuleRow } from '../tables.js'

export type TargetKind = Exclude<RefKind, 'rule'>

/** Each kind's owner contract; a profile kind is null when its plugin is not in the edition. */
export type PolicyTargets = Record<'user' | 'group' | 'device' | 'device_group', ReferenceTarget> & Record<'tacacs_profile' | 'radius_profile', ReferenceTarget | null>

/** The rule column holding each kind. */
export const COLUMN = {
  user: 'who_user_id',
  group: 'who_group_id',
  device: 'where_device_id',
  device_group: 'where_device_group_id',
  tacacs_profile: 'tacacs_profile_id',
  radius_profile: 'radius_profile_id',
} as const satisfies Record<TargetKind, keyof RuleRow>

export type RefColumn = (typeof COLUMN)[TargetKind]

export function policyTargets(d: { identity: IdentityService; inventory: InventoryService; tacacs?: TacacsService; radius?: RadiusService }): PolicyTargets {
  return {
    user: d.identity.references.user,
    group: d.identity.references.user_group,
    device: d.inventory.references.device,
    device_group: d.inventory.references.device_group,
    tacacs_profile: d.tacacs?.references.tacacs_profile ?? null,
    radius_profile: d.radius?.references.radius_profile ?? null,
  }
}
