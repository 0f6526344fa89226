/**
 * The radius plugin's table as its code reads it (sdk/tables.ts): knex's row
 * type for every query on it, and the declaration the kernel checks against
 * the migrated database at boot (migrations/).
 */
import { column, defineTable, type TableType } from '../../sdk/index.js'
import type { RadiusAttribute } from './api.js'

export const ProfileTable = defineTable('radius_profiles', {
  id: column.uuid().defaulted(),
  name: column.varchar(),
  description: column.varchar().nullable(),
  /** The ordered reply list: order is what FreeRADIUS sends. */
  attributes: column.jsonb<RadiusAttribute[]>().defaulted(),
  /** MS-CHAPv1 accepted for the rules that grant the profile (migrations/0002_radius_profiles_mschapv1.ts). */
  allow_mschapv1: column.boolean().defaulted(),
  created_at: column.timestamp().defaulted(),
  updated_at: column.timestamp().defaulted(),
})

export const radiusTables = [ProfileTable]

declare module 'knex/types/tables.js' {
  interface Tables {
    radius_profiles: TableType<typeof ProfileTable>
  }
}
