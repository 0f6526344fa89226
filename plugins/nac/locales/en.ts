export default {
  errors: {
    mac_invalid: 'Not a MAC address: write it as aa:bb:cc:dd:ee:ff, AA-BB-CC-DD-EE-FF, aabb.ccdd.eeff or aabbccddeeff (one kind of separator, twelve hex digits).',
    mac_group: 'A group (multicast or broadcast) address: the first octet is odd, and no endpoint sends from such an address.',
    mac_zero: '00:00:00:00:00:00 is not an endpoint\'s address (a NAS reports it when it has none).',
    mac_taken: 'An endpoint with the MAC address {{mac}} already exists.',
    group_not_found: 'There is no endpoint group with id {{id}}.',
    group_name_not_found: 'There is no endpoint group named "{{name}}".',
    owner_not_found: 'There is no user with id {{id}}.',
    owner_name_not_found: 'There is no user named "{{name}}".',
    group_name_taken: 'An endpoint group named "{{name}}" already exists (names are compared without regard to case).',
    group_in_use: 'The endpoint group still holds $t(nac:count.endpoints, {"count": {{count}} }). Move or delete them first.',
    group_referenced: 'The endpoint group is still referenced by {{referrers}}. Remove those references first.',
    endpoint_referenced: 'The endpoint is still referenced by {{referrers}}. Remove those references first.',
    import_invalid: 'The file cannot be imported: {{reason}}. Nothing was written.',
    import_row: 'The row cannot be imported: {{reason}}.',
    import_duplicate: 'Row {{row}} of the file already has the MAC address {{mac}}.',
  },
  count: {
    endpoints_one: '{{count}} endpoint',
    endpoints_other: '{{count}} endpoints',
  },
}
