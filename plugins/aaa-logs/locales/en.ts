export default {
  errors: {
    exclusion_name_taken: 'A log exclusion rule named "{{name}}" already exists.',
    username_invalid: 'A user name must not contain control characters (line breaks, tabs …).',
    pattern_invalid: 'A user name pattern may use "*" (any run of characters) and "?" (one character) as wildcards and must not contain control characters.',
    group_unknown: 'There is no user group named "{{name}}".',
    nas_ip_invalid: 'nas_ip must be an IPv4 or IPv6 address.',
  },
}
