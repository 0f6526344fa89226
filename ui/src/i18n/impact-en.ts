/** English for the change impact on the Deploys screen: en.ts's `impact`. */
const n = (x: number) => x.toLocaleString('en-US')
const pl = (x: number, one: string, many: string) => `${n(x)} ${x === 1 ? one : many}`

/** The numbers the sentence is made of (sdk/policy-impact.ts `summary`). */
export interface SentenceNumbers {
  users_losing_access: number
  devices_losing_access: number
  deny_to_permit: { requests: number; events: number }
  attributes: { requests: number; events: number }
  rules_newly_deciding: number
  requests_newly_decided: { requests: number; events: number }
}

const impact = {
  title: 'Whose access changes',
  checking: 'Replaying the real requests of the last days against the edited policy…',
  sources: { aaa: 'AAA policy', nac: 'NAC policy' } as Record<string, string>,
  /** The summary in one sentence, from its numbers (as the server's `summary.text`). */
  sentence: (s: SentenceNumbers): string => {
    const parts: string[] = []
    if (s.users_losing_access) parts.push(`${pl(s.users_losing_access, 'user loses', 'users lose')} access to ${pl(s.devices_losing_access, 'device', 'devices')}`)
    if (s.deny_to_permit.requests) parts.push(`${pl(s.deny_to_permit.events, 'request is', 'requests are')} newly permitted`)
    if (s.attributes.requests) parts.push(`${pl(s.attributes.events, 'request gets', 'requests get')} other attributes`)
    if (s.rules_newly_deciding) parts.push(`${pl(s.rules_newly_deciding, 'rule now decides', 'rules now decide')} ${pl(s.requests_newly_decided.events, 'request', 'requests')} ${s.rules_newly_deciding === 1 ? 'it' : 'they'} did not`)
    return parts.length ? parts.join('; ') : 'No replayed request is answered differently'
  },
  replayed: (distinct: number, events: number, days: number) => `${pl(distinct, 'distinct request', 'distinct requests')} (${pl(events, 'real request', 'real requests')}) of the last ${pl(days, 'day', 'days')} replayed.`,
  unaffected: (events: number) => `${pl(events, 'other real request', 'other real requests')} of the window no edit reaches (its user, device, rules and profiles unchanged): answered alike, not replayed.`,
  states: {
    unavailable: 'Not available: its plugin is not loaded.',
    forbidden: 'Not shown: you may not read this policy or its logs.',
    failed: (e: string) => `Could not be computed: ${e}`,
  },
  limits: {
    max_requests: (x: number) => `Stopped at the cap of ${n(x)} distinct requests: the numbers cover those.`,
    time_budget: (x: number) => `Stopped by the time budget of ${n(x)} s: the numbers cover what was replayed.`,
  },
  details: 'Details',
  groups: { users: 'Users', user_groups: 'User groups', devices: 'Devices', device_groups: 'Device groups', rules: 'Rules' },
  columns: { name: 'Name', permit_to_deny: 'Permit → deny', deny_to_permit: 'Deny → permit', attributes: 'Attributes', rule: 'Rule only', events: 'Real requests' },
  changes: (shown: number, total: number) => `Changed requests (${n(shown)} of ${n(total)})`,
  change: { permit_to_deny: 'permit → deny', deny_to_permit: 'deny → permit', attributes: 'attributes', rule: 'rule' },
  kinds: {
    tacacs_authentication: 'TACACS+ login', tacacs_session: 'TACACS+ session', tacacs_command: 'TACACS+ command',
    radius_authentication: 'RADIUS login', nac_authentication: 'NAC',
  } as Record<string, string>,
  request: 'Request', changeColumn: 'Change', before: 'Deployed', after: 'Edited', events: 'Real requests',
  noRule: 'no rule', line: (set: string, line: string | null) => `${set}: ${line ?? 'default'}`,
  testDeployed: 'Test against the deployed policy', testPending: 'Test against the edited policy',
  unreplayable: (x: number, events: number) => `Not replayable: ${pl(x, 'request', 'requests')} (${pl(events, 'real request', 'real requests')})`,
  confirmQuestion: (requests: number, events: number, days: number) =>
    `${pl(requests, 'request that is permitted today is', 'requests that are permitted today are')} denied after this deploy (${pl(events, 'real request', 'real requests')} in the last ${pl(days, 'day', 'days')}). Deploy anyway?`,
  deployAnyway: 'Deploy anyway',
}

export default impact
export type ImpactMessages = typeof impact
