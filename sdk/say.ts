/**
 * Words outside a request. In a route a plugin translates with `req.t` (the caller's language,
 * i18next). A pure function that writes human text (a policy trace, say) takes a `Say` instead, so
 * the route passes `req.t` and a test or a benchmark passes `sayFrom(en)`: the English text stays
 * in the plugin's catalogue, once, and no code keeps a second English copy.
 */
import type { LocaleResources } from './plugin.js'

/** Translate a key (`ns:a.b` or `a.b`) with `{{name}}` values: the shape of `req.t`. */
export type Say = (key: string, vars?: Record<string, unknown>) => string

/**
 * A `Say` reading one catalogue directly: `{{name}}` interpolation only (no plurals, no nesting),
 * enough for the plain English a pure function's default needs. A missing key answers the key,
 * as i18next does.
 */
export function sayFrom(resources: LocaleResources): Say {
  return (key, vars = {}) => {
    let node: string | LocaleResources | undefined = resources
    for (const part of key.slice(key.indexOf(':') + 1).split('.')) node = typeof node === 'object' ? node[part] : undefined
    if (typeof node !== 'string') return key
    return node.replace(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m))
  }
}

/** Brand shared by every copy of the SDK (as the errors' brand). */
const PHRASE = Symbol.for('portcullis.phrase')

/**
 * A message key standing for a value of another message: `vars: { reason: phrase('nac:test_reason.mab_username') }`.
 * The kernel translates it in the caller's language when it renders the outer message (the error
 * envelope's `detail`, `req.t`), so an error's explanation is not English inside a Russian sentence.
 */
export interface Phrase {
  readonly [PHRASE]: true
  readonly key: string
  readonly vars: Record<string, unknown>
}

export const phrase = (key: string, vars: Record<string, unknown> = {}): Phrase => Object.freeze({ [PHRASE]: true as const, key, vars })

export const isPhrase = (v: unknown): v is Phrase => typeof v === 'object' && v !== null && (v as Record<symbol, unknown>)[PHRASE] === true
