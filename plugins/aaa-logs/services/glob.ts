/**
 * User-name globs: `*` is any run of characters (also none), `?` exactly one
 * character, anything else itself; the pattern covers the whole name.
 *
 * Matched by the iterative two-pointer algorithm (remember the last `*` and
 * retry from one character further): O(pattern × name) in the worst case and
 * no backtracking stack, so a pattern such as `*a*a*a*a*a*a*a*b` against a long
 * name cannot blow up the way a compiled RegExp can. Case-sensitive, by code
 * point (a name with astral characters is compared as characters, not halves).
 */
export interface Glob {
  /** True when the name matches the whole pattern. */
  test(name: string): boolean
}

/** Runs of `*` collapse to one: same meaning, fewer restarts. */
export function compileGlob(pattern: string): Glob {
  const p = Array.from(pattern.replace(/\*{2,}/g, '*'))
  if (!p.includes('*') && !p.includes('?')) return { test: (name) => name === pattern }
  if (p.length === 1 && p[0] === '*') return { test: () => true }
  return { test: (name) => globMatch(p, Array.from(name)) }
}

function globMatch(p: readonly string[], s: readonly string[]): boolean {
  let pi = 0
  let si = 0
  let star = -1
  let mark = 0
  while (si < s.length) {
    if (pi < p.length && (p[pi] === '?' || (p[pi] !== '*' && p[pi] === s[si]))) {
      pi++
      si++
    } else if (pi < p.length && p[pi] === '*') {
      star = pi++
      mark = si
    } else if (star >= 0) {
      pi = star + 1
      si = ++mark
    } else return false
  }
  while (pi < p.length && p[pi] === '*') pi++
  return pi === p.length
}

/** Control characters (C0, DEL, C1) are never part of a user name. */
export const hasControl = (s: string) => /[\u0000-\u001f\u007f-\u009f]/.test(s)
