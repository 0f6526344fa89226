import { createHash, timingSafeEqual } from 'node:crypto'

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest()

/**
 * Constant time whatever the lengths: both sides are hashed to 32 bytes first,
 * so neither the comparison nor an early length check reveals the key's length or prefix.
 */
export function internalKeyMatches(expected: string, given: string | string[] | undefined): boolean {
  const candidate = typeof given === 'string' ? given : ''
  const same = timingSafeEqual(digest(expected), digest(candidate))
  return same && candidate.length > 0
}
