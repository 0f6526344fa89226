/**
 * The profile's patterns (prompt, login and enable prompts, pager) as regular expressions. The core
 * checks them with the safe-regex dialect when a profile is saved; the collector compiles them again
 * here and refuses a pattern it cannot compile (a `protocol_error`, never a crash).
 *
 * - a prompt (`prompt`, `login_prompt`, `enable_prompt`) must match the whole current line, trailing
 *   blanks removed: `Router#` matches `[\w.-]+[>#]`, and a line of configuration ending in `#` does not;
 * - a pager prompt (`pager_pattern`) must match at the start of the current line, leading blanks removed.
 */
const FLAGS = 'isu'

export interface PromptMatcher {
  test(line: string): boolean
}

export function linePattern(p: string): PromptMatcher {
  const re = new RegExp(`^(?:${p})$`, FLAGS)
  return { test: (line) => re.test(line.trimEnd()) }
}

export function prefixPattern(p: string): PromptMatcher {
  const re = new RegExp(`^(?:${p})`, FLAGS)
  return { test: (line) => re.test(line.trimStart()) }
}
