/** Compliance's coded errors; messages in locales/compliance-{en,ru}.ts (under `ncm:errors.`). */
import { defineError, PortcullisError, type RegexProblem } from '../../sdk/index.js'

export const NcmComplianceErrors = {
  ruleNameTaken: defineError(409, 'NCM_RULE_NAME_TAKEN', 'ncm:errors.rule_name_taken'),
  /** Rules decide on the configurations' secrets too, so writing one needs ncm.reveal beside ncm.rules.manage. */
  revealRequired: defineError(403, 'NCM_REVEAL_REQUIRED', 'ncm:errors.reveal_required'),
} as const

/** 422 NCM_REGEX_UNSAFE at the pattern, its detail saying what the pattern breaks. */
export const ruleRegexUnsafe = (problem: RegexProblem, field: string) => new PortcullisError(422, 'NCM_REGEX_UNSAFE', `ncm:errors.rule_regex.${problem}`, { field })
