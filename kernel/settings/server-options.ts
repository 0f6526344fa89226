/**
 * Server options: what names a program, a path or a command line. Their values
 * come from the environment (the variable each option names) or the config
 * file's `options` object, are checked against the option's schema at boot
 * (CONFIG_INVALID otherwise), and never change while the server runs. Nothing
 * reachable through the API reads or writes them.
 */
import type { ValidateFunction } from 'ajv'
import type { ServerOptionRef, ServerOptionsService } from '../../sdk/index.js'
import { BootError } from '../boot-error.js'
import type { Validation } from '../http/validation.js'

type Env = Record<string, string | undefined>

export class ServerOptions implements ServerOptionsService {
  private readonly values = new Map<string, { ref: ServerOptionRef<unknown>; owner: string; value: unknown; source: 'env' | 'config-file' | 'default' }>()

  constructor(
    private readonly validation: Validation,
    private readonly configured: Record<string, unknown>,
    private readonly env: Env,
  ) {}

  declare(owner: string, ref: ServerOptionRef<unknown>): void {
    if (this.values.has(ref.key)) throw new BootError('SETTING_DUPLICATE', `server option ${ref.key} is declared twice (by ${this.values.get(ref.key)!.owner} and ${owner})`)
    if (owner !== 'kernel' && !ref.key.startsWith(owner + '.')) throw new BootError('PLUGIN_INVALID', `plugin ${owner} declares server option ${ref.key} outside its namespace "${owner}."`)
    const check = this.validation.compileData(ref.schema)
    if (!check(structuredClone(ref.default))) throw new BootError('SETTING_INVALID', `default of server option ${ref.key} does not match its schema: ${this.validation.describe(check.errors)}`)
    const raw = ref.env ? this.env[ref.env] : undefined
    let value: unknown = ref.default
    let source: 'env' | 'config-file' | 'default' = 'default'
    if (raw !== undefined && raw !== '') {
      value = this.fromEnv(ref, raw, check)
      source = 'env'
    } else if (ref.key in this.configured) {
      value = this.configured[ref.key]
      source = 'config-file'
    }
    const given = source === 'env' ? `${ref.env} (server option ${ref.key})` : `config file option ${ref.key}`
    if (ref.replacedBy && source !== 'default') throw new BootError('CONFIG_INVALID', `${given} is no longer read: set ${ref.replacedBy} instead`)
    if (!check(value)) throw new BootError('CONFIG_INVALID', `${source === 'env' ? ref.env : `config file option ${ref.key}`} is invalid: ${this.validation.describe(check.errors)}`)
    this.values.set(ref.key, { ref, owner, value, source })
  }

  /** A string option takes the variable's text as is; any other type is JSON (`{"freeradius": ["/usr/bin/systemctl", "reload", "freeradius"]}`). */
  private fromEnv(ref: ServerOptionRef<unknown>, raw: string, check: ValidateFunction): unknown {
    const isValid: (v: unknown) => boolean = check
    if (isValid(raw)) return raw
    try {
      return JSON.parse(raw) as unknown
    } catch {
      throw new BootError('CONFIG_INVALID', `${ref.env} (server option ${ref.key}) must be JSON: ${raw.slice(0, 80)}`)
    }
  }

  /** After every owner declared: a configured key nobody declares is a typo or an option of a plugin not loaded. */
  verify(loadedSettings: ReadonlySet<string>): void {
    for (const key of Object.keys(this.configured)) {
      if (this.values.has(key)) continue
      const hint = loadedSettings.has(key) ? ` (${key} is a setting: give it under "settings")` : ''
      throw new BootError('CONFIG_INVALID', `config file sets unknown server option ${key}${hint}`)
    }
  }

  has(key: string): boolean {
    return this.values.has(key)
  }

  get<T>(ref: ServerOptionRef<T>): T {
    const v = this.values.get(ref.key)
    if (!v) throw new Error(`server option ${ref.key} was not declared`)
    return v.value as T
  }

  /** Every option, its value and where the value came from (documentation, `portcullis` CLI, system info). */
  list(): { key: string; owner: string; env: string | null; value: unknown; source: 'env' | 'config-file' | 'default'; description: string }[] {
    return [...this.values.values()]
      .map((v) => ({ key: v.ref.key, owner: v.owner, env: v.ref.env ?? null, value: v.value, source: v.source, description: v.ref.description }))
      .sort((a, b) => a.key.localeCompare(b.key))
  }
}
