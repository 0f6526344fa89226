/**
 * The tacacs plugin's tables as its code reads them (sdk/tables.ts): knex's
 * row types for every query on them, and the declaration the kernel checks
 * against the migrated database at boot (migrations/0001_tacacs.ts).
 */
import { column, defineTable, type TableType } from '../../sdk/index.js'
import type { Command, EnableMode, ProfileService, ShellAttribute } from './api.js'

export const CommandSetTable = defineTable('tacacs_command_sets', {
  id: column.uuid().defaulted(),
  name: column.varchar(),
  description: column.varchar().nullable(),
  /** Ordered, `arguments` always present (services/command-set-store.ts prepareCommands). */
  commands: column.jsonb<Command[]>().defaulted(),
  /** Kept beside the array so that a list page never reads the commands. */
  command_count: column.integer().defaulted(),
  created_at: column.timestamp().defaulted(),
  updated_at: column.timestamp().defaulted(),
})

export const ProfileTable = defineTable('tacacs_profiles', {
  id: column.uuid().defaulted(),
  name: column.varchar(),
  description: column.varchar().nullable(),
  privilege_level: column.smallint().defaulted(),
  shell_attributes: column.jsonb<ShellAttribute[]>().defaulted(),
  /** For a command no set matches (a CHECK constraint keeps it to these). */
  default_action: column.varchar<'permit' | 'deny'>().defaulted(),
  /** Services other than shell with their attributes (migration 0003). */
  services: column.jsonb<ProfileService[]>().defaulted(),
  /** none: enable refused; login: the user's login password; secret: `enable_secret` (migration 0002). */
  enable_mode: column.varchar<EnableMode>().defaulted(),
  /** The level enable grants up to (`enable N = …`); a NAS asking for more is refused. */
  enable_privilege_level: column.smallint().defaulted(),
  /** The SHA-512 crypt verifier of the enable secret; set exactly when enable_mode is secret. Never returned. */
  enable_secret: column.text().nullable(),
  created_at: column.timestamp().defaulted(),
  updated_at: column.timestamp().defaulted(),
})

/** A profile's command sets, in order (`position` from 0). */
export const ProfileCommandSetTable = defineTable('tacacs_profile_command_sets', {
  profile_id: column.uuid(),
  command_set_id: column.uuid(),
  position: column.integer(),
})

export const tacacsTables = [CommandSetTable, ProfileTable, ProfileCommandSetTable]

declare module 'knex/types/tables.js' {
  interface Tables {
    tacacs_command_sets: TableType<typeof CommandSetTable>
    tacacs_profiles: TableType<typeof ProfileTable>
    tacacs_profile_command_sets: TableType<typeof ProfileCommandSetTable>
  }
}
