/** The plugin's coded errors; messages live in locales/ under the `radius` namespace. */
import { defineError } from '../../sdk/index.js'
import type { AttributeProblem, ValueProblem } from './services/values.js'

const valueInvalid = (reason: ValueProblem['reason']) => defineError(422, 'RADIUS_ATTRIBUTE_VALUE_INVALID', `radius:errors.value.${reason}`)

export const RadiusErrors = {
  profileNameTaken: defineError(409, 'PROFILE_NAME_TAKEN', 'radius:errors.profile_name_taken'),
  attributeUnknown: defineError(422, 'RADIUS_ATTRIBUTE_UNKNOWN', 'radius:errors.attribute_unknown'),
  /** The same code, when the name differs from a supported one only in case. */
  attributeUnknownSuggest: defineError(422, 'RADIUS_ATTRIBUTE_UNKNOWN', 'radius:errors.attribute_unknown_suggest'),
  attributeRepeated: defineError(422, 'RADIUS_ATTRIBUTE_REPEATED', 'radius:errors.attribute_repeated'),
  replyTooLarge: defineError(422, 'RADIUS_REPLY_TOO_LARGE', 'radius:errors.reply_too_large'),
  value: {
    control: valueInvalid('control'),
    percent: valueInvalid('percent'),
    variable: valueInvalid('variable'),
    too_long: valueInvalid('too_long'),
    integer: valueInvalid('integer'),
    enum: valueInvalid('enum'),
    ipaddr: valueInvalid('ipaddr'),
    ipv6addr: valueInvalid('ipv6addr'),
    hex: valueInvalid('hex'),
    avpair: valueInvalid('avpair'),
    tag: valueInvalid('tag'),
  } satisfies Record<ValueProblem['reason'], unknown>,
} as const

/** The coded error for a problem found in `attributes`, naming the item and field. */
export function attributeError(p: AttributeProblem) {
  const at = `attributes[${p.index}]`
  switch (p.kind) {
    case 'unknown':
      return p.suggestion
        ? RadiusErrors.attributeUnknownSuggest({ field: `${at}.name`, vars: { name: p.name, suggestion: p.suggestion } })
        : RadiusErrors.attributeUnknown({ field: `${at}.name`, vars: { name: p.name } })
    case 'repeated':
      return RadiusErrors.attributeRepeated({ field: `${at}.name`, vars: { name: p.name } })
    case 'value':
      return RadiusErrors.value[p.problem.reason]({ field: `${at}.value`, vars: { name: p.name, ...p.problem.vars } })
    case 'too_large':
      return RadiusErrors.replyTooLarge({ field: 'attributes', vars: { size: p.size, max: p.max, over: p.over, index: p.index } })
  }
}
