/**
 * The body rules (api/check.ts checks with them), loaded once as their own chunk, outside the
 * first screen's bundle: generated at build from the server's OpenAPI document
 * (ui/scripts/openapi.ts, body-rules.ts).
 */
import type { BodyRules } from './check'

export * from './check'

let loading: Promise<BodyRules> | null = null
let loaded: BodyRules | null = null

/** The rules, loaded once. */
export function loadRules(): Promise<BodyRules> {
  // A chunk that cannot load (the server upgraded under an open tab) checks nothing: the server still does.
  loading ??= import('../generated/body-rules').then(
    (m) => (loaded = m.default),
    () => ((loading = null), { ops: {}, words: {} }),
  )
  return loading
}

/** The rules when already loaded (for a render), else null. */
export const rulesNow = (): BodyRules | null => loaded

