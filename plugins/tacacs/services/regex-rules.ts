/**
 * A `regex` argument rule is a safe regex (sdk/safe-regex.ts, where the dialect
 * moved so configuration tracking shares it); the tacacs name for its check.
 */
export { checkSafeRegex as checkArgumentRegex, REGEX_FLAGS, type RegexProblem } from '../../../sdk/index.js'
