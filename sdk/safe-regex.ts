/**
 * The safe regex dialect: what a TACACS+ `regex` argument rule may hold (its
 * first use), and since then every pattern an operator types that the server
 * runs (configuration tracking's prompts, strip and secret lines, compliance
 * rules). The same text runs in two engines:
 * PCRE2 inside tac_plus-ng (`cmd =~ /…/`) and JavaScript in the simulation,
 * so a pattern is accepted only inside the subset both read alike, and only
 * when it cannot backtrack catastrophically (the simulation runs in the API
 * process, where one slow pattern would stall every request).
 *
 * The check parses the pattern itself, with an allow-list: anything this
 * parser does not know is refused, rather than guessed at. The escapes the
 * two engines read differently (`\w \W \b \B \s \S`) are accepted and
 * rewritten where the pattern is used (safe-regex-parse.ts, `portablePattern`),
 * rather than refused: patterns already stored keep working, and an operator
 * writes `\w+` as any regex reference teaches.
 */
import { emptySet, overlaps, Parser, portablePattern, REGEX_FLAGS, Refused, subset, union, type CharSet, type Item, type RegexProblem, type Seq } from './safe-regex-parse.js'

export { portablePattern, REGEX_FLAGS, type RegexProblem } from './safe-regex-parse.js'

// ---- catastrophic backtracking ----

const nullable = (x: Item): boolean => {
  switch (x.t) {
    case 'set':
      return false
    case 'assert':
      return true
    case 'group':
      return x.alt.some((seq) => seq.every(nullable))
    case 'rep':
      return x.min === 0 || nullable(x.item)
  }
}

/** Characters a match of `x` can start with. */
const first = (x: Item): CharSet => {
  switch (x.t) {
    case 'set':
      return x.set
    case 'assert':
      return emptySet()
    case 'group':
      return x.alt.map(firstOfSeq).reduce(union, emptySet())
    case 'rep':
      return first(x.item)
  }
}
const firstOfSeq = (seq: Seq): CharSet => {
  let out = emptySet()
  for (const it of seq) {
    out = union(out, first(it))
    if (!nullable(it)) break
  }
  return out
}

/** Every character a match of `x` can hold. */
const chars = (x: Item): CharSet => {
  switch (x.t) {
    case 'set':
      return x.set
    case 'assert':
      return emptySet()
    case 'group':
      return x.alt.flat().map(chars).reduce(union, emptySet())
    case 'rep':
      return chars(x.item)
  }
}

/** The sequences inside a group or a lookahead. */
const inner = (x: Item): Seq[] => (x.t === 'group' || x.t === 'assert' ? (x.alt ?? []) : [])

const containsRepeat = (x: Item): boolean => (x.t === 'rep' ? x.max > 1 || containsRepeat(x.item) : inner(x).flat().some(containsRepeat))

/** An alternation (anywhere inside `x`) two of whose branches can start alike, or one of which can match nothing. */
const ambiguousAlternation = (x: Item): boolean => {
  if (x.t === 'rep') return ambiguousAlternation(x.item)
  const alt = inner(x)
  if (alt.length > 1) {
    if (alt.some((seq) => seq.every(nullable))) return true
    const firsts = alt.map(firstOfSeq)
    for (let a = 0; a < firsts.length; a++) for (let b = a + 1; b < firsts.length; b++) if (overlaps(firsts[a], firsts[b])) return true
  }
  return alt.flat().some(ambiguousAlternation)
}

/** Plain groups spliced into the sequence around them, so `\d+(\d+)` is seen as two neighbours. */
const flatten = (seq: Seq): Seq => seq.flatMap((x) => (x.t === 'group' && x.alt.length === 1 ? flatten(x.alt[0]) : [x]))

function checkSeq(seq: Seq): void {
  const flat = flatten(seq)
  // Unbounded repetitions in order; two that overlap with only what the first can also absorb between them
  // leave the split point open (O(n²)); a chain of two such links is O(n³) and refused, and so is a link
  // with nothing between (`\d+\d*`), which buys nothing and multiplies the work of whatever follows.
  const reps = flat.map((x, i) => ({ x, i })).filter(({ x }) => x.t === 'rep' && x.max === Infinity)
  let links = 0
  for (let k = 0; k + 1 < reps.length; k++) {
    const a = reps[k]
    const b = reps[k + 1]
    const sa = chars(a.x)
    if (!overlaps(sa, chars(b.x))) continue
    const between = flat.slice(a.i + 1, b.i)
    if (between.every(nullable)) throw new Refused('adjacent_repeats')
    if (between.every((x) => subset(chars(x), sa))) links++
  }
  if (links > 1) throw new Refused('too_ambiguous')
  for (const x of flat) checkItem(x)
}

function checkItem(x: Item): void {
  if (x.t === 'rep') {
    if (x.max > 1) {
      if (containsRepeat(x.item) || nullable(x.item)) throw new Refused('nested_quantifier')
      if (ambiguousAlternation(x.item)) throw new Refused('ambiguous_alternation')
    }
    checkItem(x.item)
  } else for (const seq of inner(x)) checkSeq(seq)
}

/** `allowSlash`: for a pattern never written between slashes (see Parser); tacacs refuses `/`. */
export interface SafeRegexOptions {
  allowSlash?: boolean
}

/**
 * Null when `pattern` is a safe regex, otherwise why not. The caller limits
 * its length and characters first (tacacs: printable ASCII, 1–200).
 */
export function checkSafeRegex(pattern: string, o: SafeRegexOptions = {}): RegexProblem | null {
  const parser = new Parser(pattern, o.allowSlash)
  try {
    const alt = parser.parse()
    for (const seq of alt) checkSeq(seq)
  } catch (e) {
    if (e instanceof Refused) return e.problem
    throw e
  }
  try {
    // The pattern as typed, and as rendered and simulated (safe-regex-parse.ts, portablePattern).
    new RegExp(`^(?:${pattern})$`, REGEX_FLAGS)
    new RegExp(`^(?:${parser.text})$`, REGEX_FLAGS)
  } catch {
    return 'syntax'
  }
  return null
}

/** Thrown by compileSafeRegex for a pattern checkSafeRegex refuses. */
export class UnsafeRegexError extends Error {
  constructor(readonly problem: RegexProblem) {
    super(`unsafe regex: ${problem}`)
  }
}

/**
 * A checked pattern compiled as it is simulated (the portable spelling, flags
 * `isu`): `line` must match a whole string (`^(?:p)$`), `prefix` its start
 * (`^(?:p)`). The analysis bounds backtracking to O(n²) at worst, so a caller
 * that runs it on long text caps the length it tests.
 */
export function compileSafeRegex(pattern: string, anchor: 'line' | 'prefix', o: SafeRegexOptions = {}): RegExp {
  const problem = checkSafeRegex(pattern, o)
  if (problem) throw new UnsafeRegexError(problem)
  const text = portablePattern(pattern, o)
  return new RegExp(anchor === 'line' ? `^(?:${text})$` : `^(?:${text})`, REGEX_FLAGS)
}
