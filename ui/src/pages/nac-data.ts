/**
 * The NAC schemas by name (what the NAC screens pick from is in pickers.ts).
 */
import type { components } from '../generated/api'

type S = components['schemas']
export type Endpoint = S['EndpointResponse']
export type EndpointGroup = S['EndpointGroupResponse']
export type AuthProfile = S['AuthorizationProfileResponse']
export type NacRule = S['NacPolicyRuleResponse']
export type NacCondition = S['NacConditionInput']
export type NacTestResult = S['NacPolicyTestResponse']
export type NacSession = S['SessionResponse']
