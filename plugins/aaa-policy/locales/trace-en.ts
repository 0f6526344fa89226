/**
 * The policy test's trace reasons (services/first-match.ts), spread into locales/en.ts under `trace`.
 * `{{user}}`, `{{device}}` and `{{nas}}` are the request's parts (`user`, `device`, `nas` below):
 * the walk splits a reason there once per rule list and language, then joins each request's part in.
 */
export default {
  disabled: 'disabled',
  not_user: 'user is not {{username}}',
  user: 'user {{username}}',
  device: 'device {{device}}',
  nas: 'NAS address {{address}}',
  not_in_group: '{{user}} is not a member of group {{group}}',
  not_device: '{{device}} is not {{name}}',
  not_in_device_group: '{{device}} is not in group {{group}}',
  not_from: '{{nas}} is not in {{prefixes}}',
  outside_window: 'outside its time window {{window}}',
  matched_default: 'matched: the default rule (any user, any device)',
  matched: 'matched: {{who}}, {{where}}{{client}}{{when}}',
  who_group: 'user {{username}} in group {{group}}',
  who_user: 'user {{username}}',
  any_user: 'any user',
  where_group: 'device {{device}} in group {{group}}',
  where_device: 'device {{device}}',
  any_device: 'any device',
  client: ', NAS address {{address}} in {{prefixes}}',
  when: ', inside its time window {{window}}',
}
