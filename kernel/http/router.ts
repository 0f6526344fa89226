/**
 * The route table. Routes match by specificity, not by the order plugins
 * registered them: a path is compared segment by segment, and at the first
 * segment where two routes differ a fixed segment wins over a parameter. So
 * `/tacacs/command-sets/references/counts` answers its own route even when
 * `/tacacs/command-sets/{command_set_id}` was registered first, and of
 * `/a/{x}/c` and `/a/b/{y}` the path `/a/b/c` goes to the second (its
 * leftmost fixed segment decides). Boot refuses two routes of one method
 * that differ only in parameter names (registry.ts), so no tie is left.
 *
 * Fixed paths are found with one map lookup; parameterized ones are tried in
 * specificity order. As before (koa-router, `strict: false`, case-insensitive):
 * one trailing slash is ignored, fixed segments match whatever their case, and
 * parameter values are percent-decoded. HEAD is answered by GET routes.
 */

const PARAM = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/

interface Pattern<T> {
  /** A fixed segment (lower case), or null for a parameter. */
  segments: (string | null)[]
  names: string[]
  byMethod: Map<string, T>
}

export interface RouteMatch<T> {
  value: T
  params: Record<string, string>
}

const decode = (s: string) => {
  if (!s.includes('%')) return s
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

/** Fixed before parameter, segment by segment; then the shorter path (never both match one path). */
export function bySpecificity(a: readonly (string | null)[], b: readonly (string | null)[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const fa = a[i] !== null
    const fb = b[i] !== null
    if (fa !== fb) return fa ? -1 : 1
  }
  return a.length - b.length
}

export class RouteTable<T> {
  private readonly fixed = new Map<string, Map<string, T>>()
  private readonly patterns: Pattern<T>[] = []
  private readonly patternKeys = new Map<string, Pattern<T>>()

  /** `path`: absolute, OpenAPI style (`/api/v1/devices/{device_id}`). */
  add(method: string, path: string, value: T): void {
    const parts = path.split('/').slice(1)
    const segments = parts.map((p) => (PARAM.test(p) ? null : p.toLowerCase()))
    if (!segments.includes(null)) {
      const key = normalize(path.toLowerCase())
      let m = this.fixed.get(key)
      if (!m) this.fixed.set(key, (m = new Map()))
      m.set(method, value)
      return
    }
    const names = parts.flatMap((p) => PARAM.exec(p)?.[1] ?? [])
    const shape = segments.map((s) => s ?? '{}').join('/')
    let pattern = this.patternKeys.get(shape)
    if (!pattern) {
      pattern = { segments, names, byMethod: new Map() }
      this.patternKeys.set(shape, pattern)
      this.patterns.push(pattern)
      this.patterns.sort((a, b) => bySpecificity(a.segments, b.segments))
    }
    pattern.byMethod.set(method, value)
  }

  /** The route for this method and path, or null; `allowed` lists the methods the path has when none is this one. */
  find(method: string, path: string): RouteMatch<T> | null {
    const m = method === 'HEAD' ? 'GET' : method
    const key = normalize(path.toLowerCase())
    const fixed = this.fixed.get(key)?.get(m)
    if (fixed !== undefined) return { value: fixed, params: {} }
    if (this.patterns.length === 0) return null
    const parts = normalize(path).split('/')
    for (const p of this.patterns) {
      const value = p.byMethod.get(m)
      if (value === undefined) continue
      const params = matchSegments(p, parts)
      if (params) return { value, params }
    }
    return null
  }

  /** Every method some route answers on this path (for a 405's Allow). */
  allowed(path: string): string[] {
    const out = new Set<string>(this.fixed.get(normalize(path.toLowerCase()))?.keys() ?? [])
    const parts = normalize(path).split('/')
    for (const p of this.patterns) if (matchSegments(p, parts)) for (const k of p.byMethod.keys()) out.add(k)
    return [...out]
  }
}

/** `/a/b/` → `/a/b` (koa-router's `strict: false`); `/` stays. */
function normalize(path: string): string {
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path
}

/** `parts` is the path split on `/` (a leading empty part for the root). */
function matchSegments<T>(p: Pattern<T>, parts: string[]): Record<string, string> | null {
  if (parts.length !== p.segments.length + 1) return null
  let params: Record<string, string> | null = null
  let n = 0
  for (let i = 0; i < p.segments.length; i++) {
    const part = parts[i + 1]
    const seg = p.segments[i]
    if (seg === null) {
      if (part === '') return null
      ;(params ??= {})[p.names[n++]] = decode(part)
    } else if (seg !== part && seg !== part.toLowerCase()) return null
  }
  return params ?? {}
}
