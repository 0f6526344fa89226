/**
 * The compliance check of one configuration against rules (docs/ncm.md "Compliance"). Pure: the
 * caller hands the stripped raw text (what the device holds) and its masked copy (what a reader may
 * see); lines are decided on the raw text and shown from the masked one.
 *
 * - `literal`: a whole line, leading and trailing spaces removed, equals the pattern (case matters).
 * - `regex`: a safe regex (sdk/safe-regex.ts, the dialect of TACACS+ command rules, where `/` may be
 *   used: it is never written between slashes) matches a whole trimmed line, case-insensitively. The checker allows patterns of O(n²) at worst, so only a line's
 *   first MAX_TESTED_CHARS characters are tested: a device's line is never long enough to stall the
 *   ingest that calls this.
 * - `must_contain` passes when some line matches; `must_not_contain` when none does.
 */
import { compileSafeRegex } from '../../../sdk/index.js'

export type Requirement = 'must_contain' | 'must_not_contain'
export type MatchKind = 'literal' | 'regex'
export type RuleStatus = 'pass' | 'fail'

export const MAX_TESTED_CHARS = 4096
/** Lines kept as evidence per rule and device. */
export const MAX_EVIDENCE = 5

export interface RuleSpec {
  id: string
  requirement: Requirement
  match: MatchKind
  pattern: string
}

/** One line of evidence: its number (1-based) and its masked text. */
export interface EvidenceLine {
  line: number
  text: string
}

export interface RuleOutcome {
  status: RuleStatus
  /** The matching lines (for must_not_contain, the offending ones), at most MAX_EVIDENCE, masked. */
  evidence: EvidenceLine[]
  /** How many lines matched in all. */
  match_count: number
}

export interface CompiledRule extends RuleSpec {
  test: (trimmedLine: string) => boolean
}

/** A rule ready to run; throws UnsafeRegexError for a pattern the checker refuses (stored rules were checked). */
export function compileRule(r: RuleSpec): CompiledRule {
  if (r.match === 'literal') return { ...r, test: (line) => line === r.pattern }
  const re = compileSafeRegex(r.pattern, 'line', { allowSlash: true })
  return { ...r, test: (line) => re.test(line) }
}

/** The lines of a configuration as the rules see them (line ends normalized, trimmed). */
export function configLines(text: string): string[] {
  return text.split(/\r?\n/)
}

/**
 * Every rule over one configuration. `masked` must have the same lines as `raw` (masking replaces
 * values inside a line, never a line end); where it does not, evidence shows no text rather than
 * the raw line.
 */
export function evaluateConfig(raw: string, masked: string, rules: CompiledRule[]): Map<string, RuleOutcome> {
  const lines = configLines(raw)
  const shown = configLines(masked)
  const sameShape = shown.length === lines.length
  const out = new Map<string, RuleOutcome>()
  const hits = rules.map(() => [] as number[])
  const counts = rules.map(() => 0)
  // Literal rules by their pattern, so a configuration of 50,000 lines is one pass, not one per rule.
  const literal = new Map<string, number[]>()
  const regex: number[] = []
  rules.forEach((r, i) => {
    if (r.match === 'literal') literal.set(r.pattern, [...(literal.get(r.pattern) ?? []), i])
    else regex.push(i)
  })
  for (let n = 0; n < lines.length; n++) {
    const trimmed = lines[n].trim()
    const tested = trimmed.length > MAX_TESTED_CHARS ? trimmed.slice(0, MAX_TESTED_CHARS) : trimmed
    const matched = [...(literal.get(trimmed) ?? [])]
    for (const i of regex) if (rules[i].test(tested)) matched.push(i)
    for (const i of matched) {
      counts[i]++
      if (hits[i].length < MAX_EVIDENCE) hits[i].push(n)
    }
  }
  rules.forEach((r, i) => {
    const found = counts[i] > 0
    const status: RuleStatus = (r.requirement === 'must_contain') === found ? 'pass' : 'fail'
    const evidence = hits[i].map((n) => ({ line: n + 1, text: sameShape ? shown[n].trim() : '' }))
    out.set(r.id, { status, evidence, match_count: counts[i] })
  })
  return out
}
