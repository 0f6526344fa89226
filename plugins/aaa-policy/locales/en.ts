import impactUnreplayable from './unreplayable-en.js'
import trace from './trace-en.js'
import verdict from './verdict-en.js'
import refusals from './refusals-en.js'
import conditionReason from './conditions-en.js'

export default {
  errors: {
    name_taken: 'A policy rule named "{{name}}" already exists.',
    default_protected: 'The default rule cannot be deleted. Give it a profile, or leave it without one so that it denies.',
    default_fixed: 'The default rule matches every user on every device and is always evaluated last: its "{{name}}" cannot be set.',
    missing: {
      user: 'No user has the id {{id}}.',
      group: 'No user group has the id {{id}}.',
      device: 'No device has the id {{id}}.',
      device_group: 'No device group has the id {{id}}.',
      tacacs_profile: 'No TACACS+ profile has the id {{id}}.',
      radius_profile: 'No RADIUS profile has the id {{id}}.',
      rule: 'No policy rule has the id {{id}}.',
    },
    unavailable: {
      tacacs_profile: 'No TACACS+ profile has the id {{id}}: this edition does not load the tacacs plugin. Leave tacacs_profile_id out or null.',
      radius_profile: 'No RADIUS profile has the id {{id}}: this edition does not load the radius plugin. Leave radius_profile_id out or null.',
    },
    who_exactly_one: 'Give exactly one of who.user_id and who.group_id.',
    where_exactly_one: 'Give exactly one of where.device_id and where.device_group_id.',
    condition_invalid: 'Invalid rule condition: {{reason}}.',
    position_range: 'Position must be between 0 and {{max}}: the default rule stays last.',
    order_duplicate: 'Rule {{id}} appears more than once in the order.',
    order_incomplete: 'The order must list every rule exactly once; rule {{id}} is missing.',
    default_not_last: 'The default rule must be the last in the order.',
    test_target: 'Give exactly one of device_id and nas_ip.',
    test_command_shell: 'A command is authorized under service shell; leave service out or set it to shell.',
    test_protocol_unavailable: 'This edition does not load the {{plugin}} plugin, so no {{protocol}} daemon decides: test the other protocol.',
    test_tacacs_only: '"{{name}}" applies to the TACACS+ protocol only.',
    test_command_cr: 'A word <cr> is taken only as the last word, the end marker a Cisco NAS appends: anywhere else tac_plus-ng decides the line differently with and without the NAS\'s own marker, so no single answer is right.',
    test_method_tacacs_only: 'The method {{method}} is a TACACS+ one: a RADIUS login is pap, chap or mschapv2.',
    test_not_deployed: 'No active release of {{daemon}} on this node holds the policy test\'s inputs (never deployed, or deployed before releases kept them): deploy first, or test against the database.',
  },
  trace,
  verdict: { ...verdict, ...refusals },
  condition_reason: conditionReason,
  impact_unreplayable: impactUnreplayable,
}
