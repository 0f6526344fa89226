/**
 * Typed settings, namespaced by plugin (`nac.est_enabled`). Each plugin
 * declares its keys with `defineSetting`; values are validated against the
 * declared schema on write and at boot (a stored or configured value of the
 * wrong type refuses the boot with SETTING_INVALID).
 */
import type { Knex } from 'knex'
import type { ValidateFunction } from 'ajv'
import { CommonErrors, defineError, jsonText, type AuditService, type SecretsService, type SettingRef, type SettingsService } from '../../sdk/index.js'
import { BootError } from '../boot-error.js'
import type { Validation } from '../http/validation.js'

export const SettingErrors = {
  adminRequired: defineError(403, 'SETTING_ADMIN_REQUIRED', 'core:settings.admin_required'),
}

export class SettingsStore implements SettingsService {
  private readonly refs = new Map<string, { ref: SettingRef<unknown>; owner: string; check: ValidateFunction }>()
  /** Values remembered for a second: fast on the request path, and another node's change shows within a second. */
  private cache = new Map<string, { value: unknown; at: number }>()

  constructor(private readonly knex: Knex, private readonly validation: Validation, private readonly audit: AuditService, private readonly secrets: SecretsService) {}

  /** Secret settings are stored sealed: `{ "sealed": "v1…" }` in place of the value. */
  private seal(ref: SettingRef<unknown> | undefined, value: unknown): unknown {
    return ref?.secret && value !== null ? { sealed: this.secrets.encrypt(`setting:${ref.key}`, JSON.stringify(value)) } : value
  }

  private open(ref: SettingRef<unknown>, stored: unknown): unknown {
    if (!ref.secret || stored === null || typeof stored !== 'object' || !('sealed' in (stored as object))) return stored
    return JSON.parse(this.secrets.decrypt(`setting:${ref.key}`, (stored as { sealed: string }).sealed))
  }

  /** `namespaces`: the owner's id and any namespaces its definition claims (PluginDefinition.settingNamespaces). */
  declare(owner: string, ref: SettingRef<unknown>, namespaces: readonly string[] = [owner]): void {
    if (this.refs.has(ref.key)) throw new BootError('SETTING_DUPLICATE', `setting ${ref.key} is declared twice (by ${this.refs.get(ref.key)!.owner} and ${owner})`)
    if (owner !== 'kernel' && !namespaces.some((n) => ref.key.startsWith(n + '.'))) throw new BootError('PLUGIN_INVALID', `plugin ${owner} declares setting ${ref.key} outside its namespaces ${namespaces.map((n) => `"${n}."`).join(', ')}`)
    // The kernel declares first: a namespace it uses (identity., mail., deploy.) is not a plugin's to claim.
    const area = ref.key.slice(0, ref.key.indexOf('.'))
    if (owner !== 'kernel' && area !== owner && [...this.refs.values()].some((r) => r.owner === 'kernel' && r.ref.key.startsWith(area + '.'))) {
      throw new BootError('PLUGIN_INVALID', `plugin ${owner} declares setting ${ref.key} in the kernel's namespace "${area}."`)
    }
    const check = this.validation.compileData(ref.schema)
    if (!check(structuredClone(ref.default))) throw new BootError('SETTING_INVALID', `default of setting ${ref.key} does not match its schema: ${this.validation.describe(check.errors)}`)
    this.refs.set(ref.key, { ref, owner, check })
  }

  list(): { key: string; owner: string; ref: SettingRef<unknown> }[] {
    return [...this.refs.entries()].map(([key, v]) => ({ key, owner: v.owner, ref: v.ref })).sort((a, b) => a.key.localeCompare(b.key))
  }

  /** The security-relevant settings with their values (secrets masked) and their last change: what system info shows. */
  async securityState(): Promise<{ key: string; owner: string; value: unknown; updated_at: string | null; updated_by: string | null }[]> {
    const marked = this.list().filter((s) => s.ref.security)
    const rows = await this.knex('settings').whereIn('key', marked.map((s) => s.key)).select('key', 'updated_at', 'updated_by')
    const byKey = new Map(rows.map((r) => [r.key, r]))
    return Promise.all(
      marked.map(async (s) => {
        const value = await this.get(s.ref)
        const row = byKey.get(s.key)
        return { key: s.key, owner: s.owner, value: s.ref.secret ? (value === null ? null : '***') : value, updated_at: row ? new Date(row.updated_at).toISOString() : null, updated_by: row?.updated_by ?? null }
      }),
    )
  }

  find(key: string): SettingRef<unknown> | undefined {
    return this.refs.get(key)?.ref
  }

  /**
   * Boot check: every stored value, and every value from the config file, must be valid.
   * Config-file values are initial values: written only where no value is stored yet, so a
   * change made through the API survives the next restart.
   */
  async verifyAndSeed(configured: Record<string, unknown>, canWrite: boolean, options?: { has(key: string): boolean }): Promise<void> {
    let rows = await this.knex('settings').select('key', 'value')
    // A key that became a server option (a program, a path) leaves the store: a value once
    // written through the API must never be run, so it is deleted, not migrated.
    const moved = rows.filter((r) => options?.has(r.key)).map((r) => r.key)
    if (moved.length && canWrite) await this.knex('settings').whereIn('key', moved).delete()
    rows = rows.filter((r) => !moved.includes(r.key))
    for (const row of rows) {
      const d = this.refs.get(row.key)
      if (!d) continue // a setting of a plugin not loaded in this edition
      if (d.ref.secret) continue // sealed: checked when written
      if (!d.check(row.value)) throw new BootError('SETTING_INVALID', `stored value of ${row.key} is invalid: ${this.validation.describe(d.check.errors)}`)
    }
    for (const [key, value] of Object.entries(configured)) {
      const d = this.refs.get(key)
      if (!d && options?.has(key)) throw new BootError('CONFIG_INVALID', `${key} is a server option, not a setting: give it under "options" in the config file (or its environment variable)`)
      if (!d) throw new BootError('SETTING_INVALID', `config file sets unknown setting ${key}`)
      if (!d.check(value)) throw new BootError('SETTING_INVALID', `configured value of ${key} is invalid: ${this.validation.describe(d.check.errors)}`)
      if (canWrite && !rows.some((r) => r.key === key)) await this.write(key, value, 'config-file')
    }
    this.cache.clear()
  }

  async get<T>(ref: SettingRef<T>, db: Knex | Knex.Transaction = this.knex): Promise<T> {
    const hit = this.cache.get(ref.key)
    if (hit && Date.now() - hit.at < 1000) return hit.value as T
    const value = await this.read(db, ref)
    this.cache.set(ref.key, { value, at: Date.now() })
    return value
  }

  async set<T>(ref: SettingRef<T>, value: T, ctx: Parameters<SettingsService['set']>[2] = {}): Promise<void> {
    const d = this.refs.get(ref.key)
    if (!d) throw CommonErrors.notFound({ field: 'key' })
    // settings.write does not reach where mail and links go or how long sessions live: an administrator's call.
    if (ref.security && ctx.actor && !ctx.actor.isAdmin) throw SettingErrors.adminRequired({ field: 'key', vars: { key: ref.key } })
    if (!d.check(value)) throw this.validation.toError(d.check.errors, 'value')
    const run = async (trx: Knex.Transaction) => {
      // A reference (a CA, a group) must exist: checked in the transaction that writes it.
      if (d.ref.check) await d.ref.check(value, trx)
      const before = await this.read(trx, ref)
      await this.write(ref.key, value, ctx.actor?.username ?? null, trx)
      const shown = (v: unknown) => (ref.secret && v !== null ? '***' : v)
      await this.audit.record({ action: ref.security ? 'security_setting.update' : 'setting.update', resourceType: 'setting', resourceId: ref.key, resourceName: ref.key, before: shown(before), after: shown(value) }, { actor: ctx.actor ?? null, requestId: ctx.requestId, trx })
    }
    if (ctx.trx) await run(ctx.trx)
    else await this.knex.transaction(run)
    this.cache.delete(ref.key)
  }

  /** The stored value, opened when sealed, else the default; its schema was checked when written. */
  private async read<T>(db: Knex | Knex.Transaction, ref: SettingRef<T>): Promise<T> {
    const row = await db('settings').where({ key: ref.key }).first('value')
    return row ? (this.open(ref as SettingRef<unknown>, row.value) as T) : ref.default
  }

  private async write(key: string, value: unknown, by: string | null, trx: Knex | Knex.Transaction = this.knex) {
    await trx('settings')
      .insert({ key, value: jsonText(this.seal(this.refs.get(key)?.ref, value)), updated_at: new Date(), updated_by: by })
      .onConflict('key')
      .merge(['value', 'updated_at', 'updated_by'])
  }

}
