export default {
  errors: {
    device_name_taken: 'A device named "{{name}}" already exists (names are compared without regard to case).',
    address_invalid: 'Not an IPv4 or IPv6 address or CIDR prefix: write 10.0.0.1, 10.1.0.0/16 or 2001:db8::/64.',
    address_host_bits: 'The prefix has host bits set. Did you mean {{network}}, or a single address with /32 or /128?',
    address_taken: 'Device "{{device}}" already has the address {{address}}. Nested prefixes are allowed (the most specific one wins); the same prefix twice is not.',
    group_not_found: 'There is no device group with id {{id}}.',
    device_referenced: 'The device is still referenced by {{referrers}}. Remove those references first.',
    group_name_taken: 'A device group named "{{name}}" already exists (names are compared without regard to case).',
    group_cycle: 'A device group cannot be placed under itself or under one of its own subgroups.',
    group_too_deep: 'Device groups nest at most $t(inventory:count.levels, {"count": {{max}} }) deep; this change would make {{depth}}.',
    group_in_use: 'The device group still holds $t(inventory:count.devices, {"count": {{devices}} }) and $t(inventory:count.subgroups, {"count": {{children}} }). Move or delete them first.',
    group_referenced: 'The device group is still referenced by {{referrers}}. Remove those references first.',
  },
  count: {
    levels_one: '{{count}} level',
    levels_other: '{{count}} levels',
    devices_one: '{{count}} device',
    devices_other: '{{count}} devices',
    subgroups_one: '{{count}} subgroup',
    subgroups_other: '{{count}} subgroups',
  },
}
