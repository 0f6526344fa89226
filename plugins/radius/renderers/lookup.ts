/**
 * The data files of the hashed lookups (rlm_files users files) that the policy and the replies read:
 * `portcullis/rules` and `portcullis/replies`, and the module instances (`mods-enabled/portcullis_lookup`).
 */
import { CONTROL_ATTRIBUTES } from '../../../sdk/logs/freeradius.js'
import { attributesProblem, formatValue, quoteValue } from '../services/values.js'
import { type CompiledPolicy, type CompiledRule, POLICY_ATTRIBUTES } from './policy.js'
import { FreeradiusRenderError, HEADER, qname, T } from './syntax.js'

/**
 * A stored profile the API would refuse now (a rule added since, a row that bypassed it): not written, since
 * FreeRADIUS would cut a value or drop attributes without a word. The deploy fails and says which profile.
 */
function checkProfile(p: NonNullable<CompiledRule['profile']>): void {
  const problem = attributesProblem(p.attributes)
  if (!problem) return
  const why =
    problem.kind === 'too_large'
      ? `its attributes take ${problem.size} bytes, ${problem.over} over the ${problem.max} a RADIUS packet leaves for them`
      : problem.kind === 'value' && problem.problem.reason === 'too_long'
        ? `the value of attributes[${problem.index}] (${problem.name}) is ${String(problem.problem.vars.over)} bytes too long`
        : `attributes[${problem.index}] breaks the attribute rules (${problem.kind === 'value' ? problem.problem.reason : problem.kind})`
  throw new FreeradiusRenderError(`RADIUS profile ${p.name}: ${why}; change the profile through the API`)
}

/**
 * `portcullis/rules`, the users file of `portcullis_rules` (keyed on control:Tmp-String-5): per
 * "principal:location class" the candidate rules (Tmp-Integer-5 without conditions, Tmp-Integer-4 with),
 * and per "r<index>" the rule's name, profile label, and why it lets nobody in.
 */
export function rulesTable(c: CompiledPolicy): string {
  const out = [HEADER, '# The AAA policy precomputed: candidates per "principal:location class", then each rule by its index (portcullis/policy).']
  for (const [k, rules] of c.candidates) {
    out.push(`${k}${T}${rules.map((r) => `${r.condition === null ? POLICY_ATTRIBUTES.plain : POLICY_ATTRIBUTES.conditional} += ${r.index}`).join(', ')}`)
  }
  for (const r of c.rules) {
    if (r.skipped) continue
    const items = [`${CONTROL_ATTRIBUTES.ruleName} := ${quoteValue(r.rule.name)}`]
    if (r.profile) items.push(`${CONTROL_ATTRIBUTES.ruleLabel} := ${qname(r.profile.name, 'RADIUS profile')}`)
    else items.push(`${POLICY_ATTRIBUTES.none} := "${r.rule.is_default ? 'default-' : ''}${r.rule.radius_profile_id ? 'gone' : 'none'}"`)
    out.push(`r${r.index}${T}${items.join(', ')}`)
  }
  out.push('')
  return out.join('\n')
}

/**
 * `portcullis/replies`, the post-auth users file of `portcullis_replies` (keyed on "r.<rule name>"):
 * each permitting rule's RADIUS profile, in the profile's order (`+=`: repeated attributes are all sent).
 */
export function replies(c: CompiledPolicy): string {
  const out = [HEADER, "# Each permitting rule's RADIUS profile, in the profile's order (`+=`: repeated attributes are all sent)."]
  for (const r of c.rules) {
    if (r.skipped || !r.profile) continue
    checkProfile(r.profile)
    if (!r.profile.attributes.length) continue
    out.push(`r.${r.rule.name}`, r.profile.attributes.map((a) => `${T}${a.name} += ${formatValue(a)}`).join(',\n'))
  }
  out.push('')
  return out.join('\n')
}

/** `mods-enabled/portcullis_lookup`: the three hashed lookups. */
export const LOOKUP_MODULES = `${HEADER}
# Hashed lookups (rlm_files): the users, the precomputed policy, the profiles' replies. Entry names
# are compared exactly; every key has a prefix, so that none is ever the users file's DEFAULT.
files portcullis_users {
${T}key = "u.%{User-Name}"
${T}filename = \${confdir}/portcullis/verifiers
}
files portcullis_rules {
${T}key = "%{control:${POLICY_ATTRIBUTES.key}}"
${T}filename = \${confdir}/portcullis/rules
}
files portcullis_replies {
${T}key = "r.%{control:${CONTROL_ATTRIBUTES.ruleName}}"
${T}postauth_usersfile = \${confdir}/portcullis/replies
}
`
