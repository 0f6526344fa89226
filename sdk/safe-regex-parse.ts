/**
 * The syntax half of the safe regex check (safe-regex.ts): a parser for
 * the subset of regular expressions PCRE2 and JavaScript read alike, into
 * the small tree the backtracking analysis needs, with each character class
 * as a set of ASCII characters (matching is case-insensitive, so letters
 * stand for both cases). Anything outside the subset is refused by name.
 *
 * The parser also writes the pattern out again (`Parser.text`, and
 * `portablePattern`), in a form both engines read alike. Four escapes do
 * not mean the same in both, so they are spelled out: under the
 * case-insensitive Unicode matching both run, JavaScript counts `ſ` (U+017F)
 * and `K` (U+212A) as word characters for `\w \W \b \B` (they fold to `s`
 * and `k`) and PCRE2 does not, and JavaScript's `\s` takes the Unicode
 * spaces (NBSP, U+2028 …) where PCRE2's is ASCII only:
 *
 *   \w → [A-Za-z0-9_]       \W → [^A-Za-z0-9_]
 *   \s → [\t\n\x0b\f\r ]     \S → [^\t\n\x0b\f\r ]
 *   \b, \B → look-arounds on [A-Za-z0-9_]
 *
 * A class holding `\W` or `\S` (`[\W_]`) is written as the equivalent plain
 * class computed from its set. Both engines fold the cases of a class the
 * same way (`[A-Za-z]` takes `ſ` and `K` in both), so the rewritten pattern
 * decides every line alike in both (checked against PCRE2 itself in
 * plugins/tacacs/test/regex-engines.test.ts). Patterns stored before the rewrite keep
 * their text; only what is rendered and simulated changes.
 */

/** Why a pattern is refused; each has a message under `tacacs:errors.regex.*` (and the same words wherever else a safe regex is typed). */
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
 * The flags of the simulation's RegExp for tac_plus-ng's `/…/`: PCRE2_CASELESS | PCRE2_UTF (under the
 * `regex-match-case = no` the configuration renderer writes) are `i` and `u`. The daemon adds
 * PCRE2_MULTILINE, whose `^`/`$` also match at a line feed, and its `.` takes everything but a line
 * feed; no line holding a line feed reaches a command pattern (the profile denies control characters
 * first), so on the lines that do, `s` (`.` takes everything) and no `m` read alike. JavaScript's `m`
 * would also end a line at U+2028/U+2029, and its `.` would refuse them, which PCRE2 does not.
 */
export const REGEX_FLAGS = 'isu'

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
/** PCRE2's `\s`, which `\s` is rewritten to (JavaScript's would also take Unicode spaces). */
const SPACE = () => setOf(32, 9, 10, 11, 12, 13)

// ---- the portable spelling of the escapes the engines read differently ----

const WORD_CLASS = 'A-Za-z0-9_'
const SPACE_CLASS = '\\t\\n\\x0b\\f\\r '
const W = `[${WORD_CLASS}]`
/** Outside a class: the text both engines read as PCRE2 reads the escape. */
const PORTABLE_ESCAPE: Record<string, string> = {
  w: W,
  W: `[^${WORD_CLASS}]`,
  s: `[${SPACE_CLASS}]`,
  S: `[^${SPACE_CLASS}]`,
  b: `(?:(?<=${W})(?!${W})|(?<!${W})(?=${W}))`,
  B: `(?:(?<=${W})(?=${W})|(?<!${W})(?!${W}))`,
}
/** Inside a class: what `\w` and `\s` add to it (`\W` and `\S` make the whole class rewritten from its set). */
const PORTABLE_CLASS_ESCAPE: Record<string, string> = { w: WORD_CLASS, s: SPACE_CLASS }

/** One class member as text: letters and digits as they are, anything else as `\xHH`. */
const classChar = (c: number): string => (/[A-Za-z0-9]/.test(String.fromCharCode(c)) ? String.fromCharCode(c) : `\\x${c.toString(16).padStart(2, '0')}`)

/** A class matching exactly `set` (ASCII members, and every other character when the OTHER slot is set). */
function classText(set: CharSet): string {
  const negate = set[OTHER] === 1
  const members: number[] = []
  for (let c = 0; c < OTHER; c++) if ((set[c] === 1) !== negate) members.push(c)
  if (!members.length) return negate ? '(?:[\\x00-\\x7f]|[^\\x00-\\x7f])' : '(?!)'
  let body = ''
  for (let i = 0; i < members.length; ) {
    let j = i
    while (j + 1 < members.length && members[j + 1] === members[j] + 1) j++
    body += j - i >= 2 ? `${classChar(members[i])}-${classChar(members[j])}` : members.slice(i, j + 1).map(classChar).join('')
    i = j + 1
  }
  return `[${negate ? '^' : ''}${body}]`
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
  /** The pattern written out again as it is parsed, in the spelling both engines read alike. */
  text = ''
  /**
   * `allowSlash`: a `/` is an ordinary character. tac_plus-ng writes a pattern between slashes
   * (`cmd =~ /…/`), so the TACACS+ rules refuse it (the default); a pattern that is only ever run
   * here (configuration tracking) may hold one, as an interface name does (`Gi0/1`).
   */
  constructor(
    private readonly s: string,
    private readonly allowSlash = false,
  ) {}

  parse(): Seq[] {
    const alt = this.alt()
    if (this.i < this.s.length) throw new Refused('syntax') // an unmatched `)`
    return alt
  }

  /** Copy the source from `from` to the current position into the output. */
  private keep(from: number) {
    this.text += this.s.slice(from, this.i)
  }

  private peek(o = 0) {
    return this.s[this.i + o]
  }

  private alt(): Seq[] {
    const seqs = [this.seq()]
    while (this.peek() === '|') {
      this.i++
      this.text += '|'
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
    if (this.peek() === '?') {
      this.i++ // lazy: the same in both engines
      this.text += '?'
    }
    if (this.peek() !== undefined && '*+?{'.includes(this.peek())) throw new Refused('quantifier') // possessive, or doubled
    return { t: 'rep', item, ...q }
  }

  private quantifier(): { min: number; max: number } | null {
    const c = this.peek()
    if (c === '*' || c === '+' || c === '?') {
      this.i++
      this.text += c
      return { min: c === '+' ? 1 : 0, max: c === '?' ? 1 : Infinity }
    }
    if (c !== '{') return null
    const m = /^\{(\d{1,4})(?:(,)(\d{1,4})?)?\}/.exec(this.s.slice(this.i))
    if (!m) throw new Refused('quantifier') // a literal `{` must be escaped: the engines disagree on it
    const min = Number(m[1])
    const max = m[2] ? (m[3] === undefined ? Infinity : Number(m[3])) : min
    if (min > MAX_REPEAT || (max !== Infinity && (max > MAX_REPEAT || max < min))) throw new Refused('quantifier')
    this.i += m[0].length
    this.text += m[0]
    return { min, max }
  }

  private atom(): Item {
    const start = this.i
    const c = this.s[this.i++]
    switch (c) {
      case '(':
        return this.group()
      case '[':
        return { t: 'set', set: this.cls() }
      case '.':
        this.text += '.'
        return { t: 'set', set: fullSet() }
      case '^':
      case '$':
        throw new Refused('anchor')
      case '\\': {
        const x = this.escape(false)
        const e = this.s[start + 1]
        if (PORTABLE_ESCAPE[e] !== undefined) this.text += PORTABLE_ESCAPE[e]
        else this.keep(start)
        return x.t === 'set' ? { t: 'set', set: fold(x.set) } : x
      }
      case '/':
        if (!this.allowSlash) throw new Refused('slash')
        this.text += c
        return { t: 'set', set: setOf(47) }
      case '*':
      case '+':
      case '?':
      case '{':
      case '}':
        throw new Refused('quantifier')
      case ']':
        throw new Refused('class')
      default:
        this.text += c
        return { t: 'set', set: fold(setOf(this.code(c))) }
    }
  }

  private code(c: string): number {
    const n = c.charCodeAt(0)
    return n < 128 ? n : OTHER
  }

  private group(): Item {
    const start = this.i - 1
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
    this.keep(start)
    const alt = this.alt()
    if (this.s[this.i++] !== ')') throw new Refused('syntax')
    this.text += ')'
    return kind === 'assert' ? { t: 'assert', alt } : { t: 'group', alt }
  }

  /** After a backslash. Only escapes both engines read the same way. */
  private escape(inClass: boolean): Item {
    const e = this.s[this.i++]
    if (e === undefined) throw new Refused('syntax')
    if (e === '/') {
      if (!this.allowSlash) throw new Refused('slash')
      return { t: 'set', set: setOf(47) }
    }
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
    let body = ''
    let rewriteWhole = false
    for (;;) {
      const c = this.peek()
      if (c === undefined) throw new Refused('syntax')
      if (c === ']') {
        this.i++
        break
      }
      const start = this.classAtom()
      if (start.complemented) rewriteWhole = true
      if (this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== undefined) {
        this.i++
        const end = this.classAtom()
        if (start.code === null || end.code === null || start.code > end.code) throw new Refused('class')
        out = union(out, range(emptySet(), start.code, end.code))
        body += `${start.text}-${end.text}`
      } else {
        out = union(out, start.set)
        body += start.text
      }
    }
    out = fold(out)
    if (negate) out = complement(out)
    // `\W` and `\S` cannot be spelled inside a class: the whole class is written from its set.
    this.text += rewriteWhole ? classText(out) : `[${negate ? '^' : ''}${body}]`
    return out
  }

  /** One member of a class: a character (with its code, so it can start a range) or a class escape, and its portable text. */
  private classAtom(): { set: CharSet; code: number | null; text: string; complemented: boolean } {
    const from = this.i
    const c = this.s[this.i++]
    if (c === '[') throw new Refused('class')
    if (c === '/' && !this.allowSlash) throw new Refused('slash')
    if (c !== '\\') return { set: setOf(this.code(c)), code: this.code(c), text: c, complemented: false }
    const before = this.i
    const item = this.escape(true) as { t: 'set'; set: CharSet }
    const e = this.s[before]
    const single = e === 'x' || e === 't' || e === 'n' || e === 'r' || e === 'f' || e === 'b' || e === '-' || SYNTAX.includes(e)
    const code = single ? item.set.findIndex((v) => v === 1) : null
    const text = PORTABLE_CLASS_ESCAPE[e] ?? this.s.slice(from, this.i)
    return { set: item.set, code, text, complemented: e === 'W' || e === 'S' }
  }
}


/**
 * `pattern` in the spelling both engines read alike (see the file comment).
 * A pattern the parser refuses is returned as it is: only accepted patterns
 * are ever stored, so that is one stored under an older, looser check.
 */
export function portablePattern(pattern: string, o: { allowSlash?: boolean } = {}): string {
  const parser = new Parser(pattern, o.allowSlash)
  try {
    parser.parse()
  } catch (e) {
    if (e instanceof Refused) return pattern
    throw e
  }
  return parser.text
}
