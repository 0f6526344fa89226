/** Reading RADIUS profiles: the one row shape, shared by the routes and the service other plugins use. */
import type { Knex } from 'knex'
import { defineReferenceTarget, type NacPolicySource, type OwnedReferenceTarget, type RowOf } from '../../../sdk/index.js'
import type { RadiusPolicySource, RadiusProfile, RadiusService } from '../api.js'
import type { ProfileTable } from '../tables.js'

type Db = Knex | Knex.Transaction

export const PROFILES = 'radius_profiles'

type ProfileRow = RowOf<typeof ProfileTable>

const iso = (d: Date | string) => new Date(d).toISOString()

/** A copy of each attribute with only its two fields, so nothing else stored in the JSON leaks out. */
export const toProfile = (r: ProfileRow): RadiusProfile => ({
  id: r.id,
  name: r.name,
  description: r.description,
  attributes: r.attributes.map((a) => ({ name: a.name, value: a.value })),
  allow_mschapv1: r.allow_mschapv1,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
})

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export async function loadProfile(db: Db, id: string): Promise<RadiusProfile | null> {
  // A string that is not a UUID names no profile; asking PostgreSQL would fail the whole transaction.
  if (!UUID.test(id)) return null
  const row = await db(PROFILES).where({ id }).first()
  return row ? toProfile(row) : null
}

/**
 * The service behind `radiusServiceRef`. Every call takes the connection to
 * use: inside a transaction (a renderer's snapshot) pass it, since the
 * embedded engine has a single connection.
 */
/** What the plugin itself reaches beyond the contract: the registered policy source (the FreeRADIUS renderer). */
export interface RadiusServiceInternal extends RadiusService {
  policySource(): RadiusPolicySource | null
  nacPolicySource(): NacPolicySource | null
  /** The profile routes call beforeDelete and renamed. */
  references: { radius_profile: OwnedReferenceTarget }
}

export function createRadiusService(knex: Knex): RadiusServiceInternal {
  let source: RadiusPolicySource | null = null
  let nacSource: NacPolicySource | null = null
  return {
    // A profile delete is always allowed (the contract): referrers may only clear.
    references: { radius_profile: defineReferenceTarget({ kind: 'radius_profile', table: PROFILES, nameColumn: 'name', allow: ['clear'] }) },
    registerPolicySource(s) {
      // One policy decides; a second source would be a wiring mistake, not a choice.
      if (source && source !== s) throw new Error('radius: a policy source is already registered')
      source = s
    },
    policySource: () => source,
    registerNacPolicySource(s) {
      if (nacSource && nacSource !== s) throw new Error('radius: a NAC policy source is already registered')
      nacSource = s
    },
    nacPolicySource: () => nacSource,
    getProfile: (id, db = knex) => loadProfile(db, id),
    // Name, then id: a stable order, so rendered files come out the same from run to run.
    async listProfiles(db = knex) {
      return (await db(PROFILES).orderBy('name').orderBy('id')).map(toProfile)
    },
  }
}
