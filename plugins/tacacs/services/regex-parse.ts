/**
 * The syntax half of the regex rule check (regex-rules.ts): a parser for
 * the subset of regular expressions PCRE2 and JavaScript read alike, into
 * the small tree the backtracking analysis needs, with each character class
 * as a set of ASCII characters (matching is case-insensitive, so letters
 * stand for both cases). Anything outside the subset is refused by name.
 */

/** Why a pattern is refused; each has a message under `tacacs:errors.regex.*`. */
export type RegexProblem =
  | 'slash'
  | 'anchor'
  | 'lookbehind'
  | 'named_group'
  | 'group_syntax'
  | 'backreference'
  | 'unicode_property'
  | 'escape'
  | 'class'
  | 'quantifier'
  | 'nested_quantifier'
  | 'ambiguous_alternation'
  | 'adjacent_repeats'
  | 'too_ambiguous'
  | 'syntax'

/**
 * The flags tac_plus-ng compiles `/…/` with, in JavaScript: PCRE2_CASELESS | PCRE2_UTF under the
 * `regex-match-case = no` the configuration renderer writes, and PCRE2_MULTILINE always.
 */
export const REGEX_FLAGS = 'imu'

/** Largest `{n,m}` bound accepted. */
export const MAX_REPEAT = 1000

export class Refused extends Error {
  constructor(readonly problem: RegexProblem) {
    super(problem)
  }
}

// ---- character sets: 128 ASCII slots and one for everything else ----

export type CharSet = Uint8Array
const OTHER = 128
export const emptySet = (): CharSet => new Uint8Array(129)
const fullSet = (): CharSet => new Uint8Array(129).fill(1)
const setOf = (...codes: number[]): CharSet => {
  const s = emptySet()
  for (const c of codes) s[c] = 1
  return s
}
const range = (s: CharSet, from: number, to: number) => {
  for (let c = from; c <= to; c++) s[c] = 1
  return s
}
const complement = (s: CharSet): CharSet => s.map((v) => (v ? 0 : 1))
export const union = (a: CharSet, b: CharSet): CharSet => a.map((v, i) => v | b[i])
export const overlaps = (a: CharSet, b: CharSet) => a.some((v, i) => v && b[i])
export const subset = (a: CharSet, b: CharSet) => a.every((v, i) => !v || b[i])
/** Matching is case-insensitive, as in the daemon: a letter stands for both cases. */
const fold = (s: CharSet): CharSet => {
  const out = s.slice()
  for (let c = 65; c <= 90; c++) if (s[c] || s[c + 32]) out[c] = out[c + 32] = 1
  return out
}

const DIGIT = () => range(emptySet(), 48, 57)
const WORD = () => range(range(range(setOf(95), 48, 57), 65, 90), 97, 122)
const SPACE = () => {
  const s = setOf(32, 9, 10, 11, 12, 13)
  s[OTHER] = 1 // JavaScript's \s also takes Unicode spaces
  return s
}

// ---- the syntax tree the analysis needs ----

export type Item =
  | { t: 'set'; set: CharSet }
  | { t: 'assert'; alt?: Seq[] }
  | { t: 'group'; alt: Seq[] }
  | { t: 'rep'; item: Item; min: number; max: number }
export type Seq = Item[]

const SYNTAX = '^$\\.*+?()[]{}|'
const HEX = /^[0-9A-Fa-f]{2}$/

export class Parser {
  private i = 0
  constructor(private readonly s: string) {}

  parse(): Seq[] {
    const alt = this.alt()
    if (this.i < this.s.length) throw new Refused('syntax') // an unmatched `)`
    return alt
  }

  private peek(o = 0) {
    return this.s[this.i + o]
  }

  private alt(): Seq[] {
    const seqs = [this.seq()]
    while (this.peek() === '|') {
      this.i++
      seqs.push(this.seq())
    }
    return seqs
  }

  private seq(): Seq {
    const items: Seq = []
    while (this.i < this.s.length && this.peek() !== '|' && this.peek() !== ')') items.push(this.quantified())
    return items
  }

  private quantified(): Item {
    const item = this.atom()
    const q = this.quantifier()
    if (!q) return item
    if (item.t === 'assert') throw new Refused('quantifier')
    if (this.peek() === '?') this.i++ // lazy: the same in both engines
    if (this.peek() !== undefined && '*+?{'.includes(this.peek())) throw new Refused('quantifier') // possessive, or doubled
    return { t: 'rep', item, ...q }
  }

  private quantifier(): { min: number; max: number } | null {
    const c = this.peek()
    if (c === '*' || c === '+' || c === '?') {
      this.i++
      return { min: c === '+' ? 1 : 0, max: c === '?' ? 1 : Infinity }
    }
    if (c !== '{') return null
    const m = /^\{(\d{1,4})(?:(,)(\d{1,4})?)?\}/.exec(this.s.slice(this.i))
    if (!m) throw new Refused('quantifier') // a literal `{` must be escaped: the engines disagree on it
    const min = Number(m[1])
    const max = m[2] ? (m[3] === undefined ? Infinity : Number(m[3])) : min
    if (min > MAX_REPEAT || (max !== Infinity && (max > MAX_REPEAT || max < min))) throw new Refused('quantifier')
    this.i += m[0].length
    return { min, max }
  }

  private atom(): Item {
    const c = this.s[this.i++]
    switch (c) {
      case '(':
        return this.group()
      case '[':
        return { t: 'set', set: this.cls() }
      case '.':
        return { t: 'set', set: fullSet() }
      case '^':
      case '$':
        throw new Refused('anchor')
      case '\\': {
        const x = this.escape(false)
        return x.t === 'set' ? { t: 'set', set: fold(x.set) } : x
      }
      case '/':
        throw new Refused('slash')
      case '*':
      case '+':
      case '?':
      case '{':
      case '}':
        throw new Refused('quantifier')
      case ']':
        throw new Refused('class')
      default:
        return { t: 'set', set: fold(setOf(this.code(c))) }
    }
  }

  private code(c: string): number {
    const n = c.charCodeAt(0)
    return n < 128 ? n : OTHER
  }

  private group(): Item {
    let kind: 'group' | 'assert' = 'group'
    if (this.peek() === '?') {
      const a = this.peek(1)
      const b = this.peek(2)
      if (a === ':') this.i += 2
      else if (a === '=' || a === '!') {
        this.i += 2
        kind = 'assert'
      } else if (a === '<' && (b === '=' || b === '!')) throw new Refused('lookbehind')
      else if (a === '<' || a === 'P' || a === "'") throw new Refused('named_group')
      else throw new Refused('group_syntax')
    }
    const alt = this.alt()
    if (this.s[this.i++] !== ')') throw new Refused('syntax')
    return kind === 'assert' ? { t: 'assert', alt } : { t: 'group', alt }
  }

  /** After a backslash. Only escapes both engines read the same way. */
  private escape(inClass: boolean): Item {
    const e = this.s[this.i++]
    if (e === undefined) throw new Refused('syntax')
    if (e === '/') throw new Refused('slash')
    if (e >= '1' && e <= '9') throw new Refused('backreference')
    if (e === 'k') throw new Refused('backreference')
    if (e === 'p' || e === 'P') throw new Refused('unicode_property')
    const set = (s: CharSet): Item => ({ t: 'set', set: s })
    switch (e) {
      case 'd':
        return set(DIGIT())
      case 'D':
        return set(complement(DIGIT()))
      case 'w':
        return set(WORD())
      case 'W':
        return set(complement(WORD()))
      case 's':
        return set(SPACE())
      case 'S':
        return set(complement(SPACE()))
      case 't':
        return set(setOf(9))
      case 'n':
        return set(setOf(10))
      case 'r':
        return set(setOf(13))
      case 'f':
        return set(setOf(12))
      case 'b':
        return inClass ? set(setOf(8)) : { t: 'assert' }
      case 'B':
        if (inClass) throw new Refused('escape')
        return { t: 'assert' }
      case 'x': {
        const hex = this.s.slice(this.i, this.i + 2)
        if (!HEX.test(hex)) throw new Refused('escape')
        this.i += 2
        return set(setOf(parseInt(hex, 16)))
      }
      case '-':
        if (!inClass) throw new Refused('escape') // JavaScript refuses `\-` outside a class
        return set(setOf(45))
      default:
        if (SYNTAX.includes(e)) return set(setOf(e.charCodeAt(0)))
        throw new Refused('escape')
    }
  }

  /** After `[`. Refuses what the engines read differently: `[]…]`, `[^]`, `[[:alpha:]]`, ranges of classes. */
  private cls(): CharSet {
    let negate = false
    if (this.peek() === '^') {
      negate = true
      this.i++
    }
    if (this.peek() === ']') throw new Refused('class')
    let out = emptySet()
    for (;;) {
      const c = this.peek()
      if (c === undefined) throw new Refused('syntax')
      if (c === ']') {
        this.i++
        break
      }
      const start = this.classAtom()
      if (this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== undefined) {
        this.i++
        const end = this.classAtom()
        if (start.code === null || end.code === null || start.code > end.code) throw new Refused('class')
        out = union(out, range(emptySet(), start.code, end.code))
      } else out = union(out, start.set)
    }
    out = fold(out)
    return negate ? complement(out) : out
  }

  /** One member of a class: a character (with its code, so it can start a range) or a class escape. */
  private classAtom(): { set: CharSet; code: number | null } {
    const c = this.s[this.i++]
    if (c === '[') throw new Refused('class')
    if (c === '/') throw new Refused('slash')
    if (c !== '\\') return { set: setOf(this.code(c)), code: this.code(c) }
    const before = this.i
    const item = this.escape(true) as { t: 'set'; set: CharSet }
    const e = this.s[before]
    const single = e === 'x' || e === 't' || e === 'n' || e === 'r' || e === 'f' || e === 'b' || e === '-' || SYNTAX.includes(e)
    const code = single ? item.set.findIndex((v) => v === 1) : null
    return { set: item.set, code }
  }
}

