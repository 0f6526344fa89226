/**
 * The radius plugin's contract: RADIUS profiles (reply attributes for device
 * administration). The AAA policy, when loaded with this plugin, hands it its
 * rules through `registerPolicySource`, so the FreeRADIUS renderer can write
 * the policy without this plugin depending on the policy (as tacacs does).
 */
import type { Knex } from 'knex'
import { createServiceRef, type NacPolicySource, type PolicyRuleView, type PolicySource, type ReferenceTarget } from '../../sdk/index.js'

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
  /** MS-CHAPv1 is accepted for the rules that grant this profile; refused otherwise. */
  allow_mschapv1: boolean
  created_at: string
  updated_at: string
}

type Db = Knex | Knex.Transaction

/** The policy's rules as the renderer sees them (defined once in the SDK, shared with the tacacs plugin). */
export type RadiusPolicyRule = PolicyRuleView
export type RadiusPolicySource = PolicySource

export interface RadiusService {
  getProfile(id: string, db?: Db): Promise<RadiusProfile | null>
  listProfiles(db?: Db): Promise<RadiusProfile[]>
  /** The AAA policy registers its ordered rules here (once); the FreeRADIUS renderer reads them. */
  registerPolicySource(source: RadiusPolicySource): void
  /**
   * The nac plugin registers its compiled NAC policy here (once), when the edition has it: the
   * FreeRADIUS renderer then adds 802.1X and MAB to the same tree (sdk/nac-policy.ts).
   */
  registerNacPolicySource(source: NacPolicySource): void
  /**
   * RADIUS profiles as other plugins reference them (sdk/references.ts): ids checked and locked,
   * names, and guards consulted when a profile is deleted or renamed. A profile delete is always
   * allowed: only `clear` guards are accepted.
   */
  references: { radius_profile: ReferenceTarget }
}

/** The deploy target of the FreeRADIUS renderer: what a deploy or its listeners name the daemon. */
export const FREERADIUS_DAEMON = 'freeradius'

export const radiusServiceRef = createServiceRef<RadiusService>({ id: 'radius.service' })
