/**
 * When a MASTER_KEY passphrase is too weak to protect the data. scrypt makes
 * every guess expensive, but a passphrase that an attacker would try among the
 * first few billion candidates falls anyway, so these are refused at start:
 *
 * - shorter than 32 characters;
 * - fewer than 10 different characters ("aaaa…", "12121212…");
 * - an estimated strength under 96 bits. The estimate is the cheapest way to
 *   describe the passphrase from these pieces, each costing a number of bits:
 *   a word of the common-password or diceware lists of @zxcvbn-ts/language-common
 *   (log2 of its rank, +1 with capitals), a repetition of something earlier
 *   ("passwordpassword…", "abcabc…"), a run of consecutive characters
 *   ("abcdef", "987654"), or else a single character (log2 of the size of the
 *   character classes used: 26 lower, 26 upper, 10 digits, 33 ASCII symbols,
 *   100 for anything else). Six random diceware words reach about 100 bits;
 *   32 random hex characters about 165.
 *
 * The estimate only catches the obvious (it knows no grammar, no English
 * dictionary, no l33t spelling): 32 random bytes (`openssl rand -hex 32`) are
 * the recommended key.
 */
import { commonWords } from './common-words.js'

export const MIN_PASSPHRASE_LENGTH = 32
export const MIN_DISTINCT_CHARACTERS = 10
export const MIN_PASSPHRASE_BITS = 96
/** The estimate looks at this many characters; more can only add strength. */
const ESTIMATE_PREFIX = 1024

let ranks: Map<string, number> | null = null
let longestWord = 0
function dictionary(): Map<string, number> {
  if (ranks) return ranks
  const m = new Map<string, number>()
  const diceware = commonWords('diceware-common')
  for (const w of diceware) m.set(w.toLowerCase(), diceware.length)
  commonWords('passwords-common').forEach((w, i) => {
    const k = w.toLowerCase()
    if ((m.get(k) ?? Infinity) > i + 1) m.set(k, i + 1)
  })
  for (const k of m.keys()) longestWord = Math.max(longestWord, k.length)
  return (ranks = m)
}

function charsetBits(chars: string[]): number {
  let size = 0
  if (chars.some((c) => /[a-z]/.test(c))) size += 26
  if (chars.some((c) => /[A-Z]/.test(c))) size += 26
  if (chars.some((c) => /[0-9]/.test(c))) size += 10
  if (chars.some((c) => /[ -/:-@[-`{-~]/.test(c))) size += 33
  if (chars.some((c) => c.codePointAt(0)! > 126 || c.codePointAt(0)! < 32)) size += 100
  return Math.log2(Math.max(size, 2))
}

/** The estimated strength of `text` in bits (see the header for the model). */
export function estimateBits(text: string): number {
  const chars = Array.from(text).slice(0, ESTIMATE_PREFIX)
  const n = chars.length
  if (n === 0) return 0
  const lower = chars.map((c) => c.toLowerCase())
  const codes = chars.map((c) => c.codePointAt(0)!)
  const dict = dictionary()
  const perChar = charsetBits(chars)
  const lengthBits = Math.log2(n + 1)
  // lcp[j * n + i]: how many characters from i repeat those from j (j < i), overlaps allowed.
  const lcp = new Uint16Array(n * n + n + 1)
  for (let j = n - 1; j >= 0; j--)
    for (let i = n - 1; i > j; i--) if (chars[i] === chars[j]) lcp[j * n + i] = i + 1 < n ? lcp[(j + 1) * n + i + 1] + 1 : 1
  const cost = new Float64Array(n + 1).fill(Infinity)
  cost[0] = 0
  const relax = (to: number, bits: number) => {
    if (bits < cost[to]) cost[to] = bits
  }
  for (let i = 0; i < n; i++) {
    const here = cost[i]
    relax(i + 1, here + perChar)
    for (let len = 3, w = lower.slice(i, i + 2).join(''); len <= Math.min(longestWord, n - i); len++) {
      w += lower[i + len - 1]
      const rank = dict.get(w)
      if (rank !== undefined) relax(i + len, here + Math.log2(rank + 1) + (chars.slice(i, i + len).some((c, k) => c !== lower[i + k]) ? 1 : 0))
    }
    let longest = 0
    for (let j = 0; j < i; j++) longest = Math.max(longest, lcp[j * n + i])
    for (let len = 2; len <= longest; len++) relax(i + len, here + Math.log2(i + 1) + lengthBits)
    for (const step of [1, -1]) {
      let len = 1
      while (i + len < n && codes[i + len] - codes[i + len - 1] === step) {
        len++
        if (len >= 3) relax(i + len, here + perChar + lengthBits + 1)
      }
    }
  }
  return cost[n]
}

/** Why `passphrase` is too weak for a master key, or null when it is acceptable. */
export function passphraseWeakness(passphrase: string): string | null {
  const chars = Array.from(passphrase)
  if (chars.length < MIN_PASSPHRASE_LENGTH) return `it is ${chars.length} characters long; a passphrase needs at least ${MIN_PASSPHRASE_LENGTH}`
  const distinct = new Set(chars).size
  if (distinct < MIN_DISTINCT_CHARACTERS) return `it uses only ${distinct} different characters; at least ${MIN_DISTINCT_CHARACTERS} are needed`
  const bits = Math.floor(estimateBits(passphrase))
  if (bits < MIN_PASSPHRASE_BITS) {
    return `it is too predictable: about ${bits} bits by the estimate, which counts common passwords and words, repeated parts and runs such as "abc" or "123" as cheap; at least ${MIN_PASSPHRASE_BITS} are needed`
  }
  return null
}
