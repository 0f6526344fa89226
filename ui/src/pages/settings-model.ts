/**
 * The settings screen's model, apart from React: which section a setting sits in, its words in the
 * screen's language, whether it matches a search, and the value being edited (a draft) against the
 * saved one.
 */
import type { SettingsMessages, SettingWords } from '../i18n/settings-en.js'
import { settingInput, shown } from './setting-input.js'

/**
 * A setting as GET /settings lists it (the console's Setting, from the OpenAPI types): written out here
 * so that the server's tests can read this file without the console's API client.
 */
export interface Setting {
  key: string
  owner: string
  description: string
  value: unknown
  default: unknown
  schema: unknown
  secret: boolean
}

/** The sections in the order of the screen: what a network engineer looks for, not which plugin owns it. */
export const SECTIONS = ['signIn', 'lockout', 'directory', 'mfa', 'mail', 'tacacs', 'radius', 'nac', 'guests', 'certificates', 'logs', 'deploys', 'policy', 'ncm', 'reports', 'updates'] as const
export type SectionId = (typeof SECTIONS)[number]

/** A key's section where its namespace does not say it (a daemon's MFA mode is read with the second factor). */
const BY_KEY: Record<string, SectionId> = {
  'identity.lockout_threshold': 'lockout', 'identity.lockout_seconds': 'lockout',
  'radius.mfa_mode': 'mfa', 'radius.mfa_append_device_groups': 'mfa', 'tacacs.mfa_mode': 'mfa',
  'nac.est_enabled': 'certificates', 'nac.est_mtls_proxy_secret': 'certificates', 'nac.portal_redirect_key': 'guests',
  'deploy.log_retention_days': 'logs',
}
const BY_NAMESPACE: Record<string, SectionId> = {
  identity: 'signIn', directory: 'directory', mfa: 'mfa', mail: 'mail', tacacs: 'tacacs', radius: 'radius', nac: 'nac', portal: 'guests',
  pki: 'certificates', 'aaa-logs': 'logs', deploy: 'deploys', policy_impact: 'policy', ncm: 'ncm', reports: 'reports', update_feed: 'updates',
}

/** The console's words for a key, or undefined for a key it does not know (a third-party plugin's). */
export function wordsOf(t: SettingsMessages, key: string): SettingWords | undefined {
  return Object.hasOwn(t.keys, key) ? (t.keys as Record<string, SettingWords>)[key] : undefined
}

export interface Section<S extends Setting = Setting> {
  /** A SectionId, or `plugin:<owner>` for the settings of a plugin the console has no words for. */
  id: string
  title: string
  settings: S[]
}

/** The settings in sections: the known keys in the dictionary's order, the unknown ones by plugin, by key. */
export function sectionsOf<S extends Setting>(t: SettingsMessages, list: S[]): Section<S>[] {
  const order = Object.keys(t.keys)
  const known = new Map<string, S[]>()
  const others = new Map<string, S[]>()
  for (const s of list) {
    const id = wordsOf(t, s.key) ? (BY_KEY[s.key] ?? BY_NAMESPACE[s.key.split('.')[0]]) : undefined
    if (id) known.set(id, [...(known.get(id) ?? []), s])
    else others.set(s.owner, [...(others.get(s.owner) ?? []), s])
  }
  const rank = (k: string) => order.indexOf(k)
  return [
    ...SECTIONS.filter((id) => known.has(id)).map((id) => ({ id, title: t.sections[id], settings: known.get(id)!.sort((a, b) => rank(a.key) - rank(b.key)) })),
    ...[...others.keys()].sort().map((o) => ({ id: `plugin:${o}`, title: t.plugin(o), settings: others.get(o)!.sort((a, b) => a.key.localeCompare(b.key)) })),
  ]
}

/** A search matches a setting's label, key or description in the screen's language (each word somewhere). */
export function matches(t: SettingsMessages, s: Setting, search: string): boolean {
  const w = wordsOf(t, s.key)
  const text = `${w?.label ?? ''} ${s.key} ${w?.description ?? s.description}`.toLowerCase()
  return search.toLowerCase().split(/\s+/).filter(Boolean).every((x) => text.includes(x))
}

/** The input's value for the saved one: a secret shows empty (write-only), JSON as text. */
export function draftOf(s: Setting): unknown {
  if (s.secret) return ''
  return settingInput(s.schema).kind === 'json' ? JSON.stringify(s.value, null, 2) : s.value
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/** The value a draft sends, or an error word when it cannot be sent (JSON that does not parse). */
export function valueOf(s: Setting, draft: unknown): { value: unknown } | { invalidJson: true } {
  const input = settingInput(s.schema)
  if (input.kind === 'json') {
    try {
      return { value: JSON.parse(String(draft)) }
    } catch {
      return { invalidJson: true }
    }
  }
  if ((draft === '' || draft === undefined) && input.nullable) return { value: null }
  return { value: draft }
}

/** Whether a draft differs from the saved value (a secret: whether something was typed). */
export function isChanged(s: Setting, draft: unknown): boolean {
  if (s.secret) return draft !== ''
  const v = valueOf(s, draft)
  return !('value' in v) || !same(v.value, s.value)
}

/** Whether "back to the default" has something to do: the draft is not the default (never for a secret). */
export function differsFromDefault(s: Setting, draft: unknown): boolean {
  if (s.secret) return false
  const v = valueOf(s, draft)
  return !('value' in v) || !same(v.value, s.default)
}

/** The default's draft (JSON as text). */
export function defaultDraft(s: Setting): unknown {
  return settingInput(s.schema).kind === 'json' ? JSON.stringify(s.default, null, 2) : s.default
}

export { shown }
