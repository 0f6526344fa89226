/**
 * The profile's patterns (prompt, login and enable prompts, pager) in the safe-regex dialect the core
 * checked them with when the profile was saved (sdk/safe-regex.ts: bounded backtracking, flags `isu`).
 * A pattern that does not compile here is the session's `protocol_error`, never a crash.
 *
 * - a prompt (`prompt`, `login_prompt`, `enable_prompt`) must match the whole current line, trailing
 *   blanks removed: `Router#` matches `[\w.-]+[>#]`, a line of configuration ending in `#` does not;
 * - a pager prompt (`pager_pattern`) must match at the start of the current line, leading blanks removed.
 */
import { compileSafeRegex } from '../../sdk/safe-regex.js'

/** The analysis allows O(n²) patterns: only a line's first characters are tested. */
const MAX_TESTED = 4096

export interface PromptMatcher {
  test(line: string): boolean
}

export function linePattern(p: string): PromptMatcher {
  const re = compileSafeRegex(p, 'line', { allowSlash: true })
  return { test: (line) => re.test(line.trimEnd().slice(-MAX_TESTED)) }
}

export function prefixPattern(p: string): PromptMatcher {
  const re = compileSafeRegex(p, 'prefix', { allowSlash: true })
  return { test: (line) => re.test(line.trimStart().slice(0, MAX_TESTED)) }
}
