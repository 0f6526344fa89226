/**
 * For tests and benchmarks that drive the ingester directly, outside the
 * server: settings read from the settings table with some keys fixed, server
 * options from given values, and an exclusion loader without the identity
 * service. The `portcullis aaa-logs-*` commands do not use these: they run in
 * the booted platform and get the kernel's own services.
 */
import type { Knex } from 'knex'
import type { IdentityService, ServerOptionRef, ServerOptionsService, SettingRef, SettingsService } from '../../../sdk/index.js'
import type { LoadExclusions } from '../api.js'
import { exclusionLoader } from '../services/exclusions.js'

/** Settings from the settings table, with overrides (key → value) taking precedence. */
export function tableSettings(knex: Knex, overrides: Record<string, unknown> = {}): SettingsService {
  return {
    async get<T>(ref: SettingRef<T>): Promise<T> {
      if (ref.key in overrides) return overrides[ref.key] as T
      const row = (await knex('settings').where({ key: ref.key }).first('value')) as { value: T } | undefined
      return row ? row.value : ref.default
    },
    async set() {
      throw new Error('settings are read-only here')
    },
  }
}

/** Server options: the given values, else each option's environment variable, else its default. */
export function envOptions(values: Record<string, unknown> = {}, env = process.env): ServerOptionsService {
  return {
    get<T>(ref: ServerOptionRef<T>): T {
      if (ref.key in values) return values[ref.key] as T
      const raw = ref.env ? env[ref.env] : undefined
      return raw ? (raw as T) : ref.default
    },
  }
}

/** The plugin's exclusion loader without the identity service: `user_group` rules fail to resolve. */
export function cliExclusions(): LoadExclusions {
  const noIdentity = new Proxy({}, { get: () => () => Promise.reject(new Error('identity is not available here')) }) as IdentityService
  return exclusionLoader(noIdentity)
}
