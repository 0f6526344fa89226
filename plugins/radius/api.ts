/**
 * The radius plugin's contract: RADIUS profiles (reply attributes for device
 * administration). The AAA policy depends on this plugin and hands it its
 * rules through `registerPolicySource`, so the FreeRADIUS renderer can write
 * the policy without this plugin depending on the policy (as tacacs does).
 */
import type { Knex } from 'knex'
import { createServiceRef } from '../../sdk/index.js'

export interface RadiusAttribute {
  /** FreeRADIUS dictionary name (`Service-Type`, `Cisco-AVPair`, `Tunnel-Private-Group-Id`). */
  name: string
  /** The value as FreeRADIUS writes it (`Administrative-User`, `shell:priv-lvl=15`, `100`). */
  value: string
}

export interface RadiusProfile {
  id: string
  name: string
  description: string | null
  attributes: RadiusAttribute[]
  created_at: string
  updated_at: string
}

type Db = Knex | Knex.Transaction

/**
 * One AAA policy rule as the renderer sees it, names resolved (the same shape
 * as the tacacs plugin's `PolicyRuleView`; radius does not depend on tacacs).
 */
export interface RadiusPolicyRule {
  id: string
  name: string
  position: number
  enabled: boolean
  is_default: boolean
  who: { type: 'user'; user_id: string; username: string } | { type: 'group'; group_id: string; group_name: string } | { type: 'any' }
  where: { type: 'device'; device_id: string; device_name: string } | { type: 'device_group'; device_group_id: string; device_group_name: string } | { type: 'any' }
  radius_profile_id: string | null
}

/** Who supplies the ordered rules (the AAA policy plugin). */
export interface RadiusPolicySource {
  /** Every rule in evaluation order, the default rule last. */
  listRules(db: Db): Promise<RadiusPolicyRule[]>
}

export interface RadiusService {
  getProfile(id: string, db?: Db): Promise<RadiusProfile | null>
  listProfiles(db?: Db): Promise<RadiusProfile[]>
  /** The AAA policy registers its ordered rules here (once); the FreeRADIUS renderer reads them. */
  registerPolicySource(source: RadiusPolicySource): void
}

export const radiusServiceRef = createServiceRef<RadiusService>({ id: 'radius.service' })
