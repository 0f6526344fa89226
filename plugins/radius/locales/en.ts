export default {
  errors: {
    profile_name_taken: 'A RADIUS profile named "{{name}}" already exists.',
    attribute_unknown: 'Unknown RADIUS attribute "{{name}}". GET /api/v1/radius/dictionary lists the supported ones.',
    attribute_unknown_suggest: 'Unknown RADIUS attribute "{{name}}". Did you mean "{{suggestion}}"?',
    attribute_repeated: '{{name}} may appear only once in a profile.',
    reply_too_large:
      'The attributes take $t(radius:count.bytes, {"count": {{size}} }) in a RADIUS reply, $t(radius:count.bytes, {"count": {{over}} }) over the {{max}} a 4096-byte packet leaves for a profile beside the header, Message-Authenticator, MS-CHAP2-Success and Proxy-State (from attributes[{{index}}] on, the device would not receive them).',
    value: {
      control: 'The value of {{name}} contains a control character or a direction character (line break, tab, a bidirectional override …), which is not allowed.',
      percent: 'The value of {{name}} contains "%", which FreeRADIUS would expand; it is not allowed.',
      variable: 'The value of {{name}} contains "${" or "$ENV{", which FreeRADIUS would replace with a configuration or environment value; it is not allowed.',
      too_long: 'The value of {{name}} is $t(radius:count.bytes, {"count": {{size}} }) in UTF-8, $t(radius:count.bytes, {"count": {{over}} }) over the {{max}} that {{name}} carries in a RADIUS packet.',
      integer: '{{name}} takes a whole number from {{min}} to {{max}}.',
      enum: '{{name}} takes one of: {{values}}.',
      ipaddr: '{{name}} takes an IPv4 address such as 192.0.2.10.',
      ipv6addr: '{{name}} takes an IPv6 address such as 2001:db8::10.',
      hex: 'A {{name}} value starting with 0x is read as hex: it needs an even number of hex digits after 0x.',
      avpair: '{{name}} takes attribute=value (or attribute*value), for example shell:priv-lvl=15.',
      tag: 'The value of {{name}} must not start with ":": FreeRADIUS would read ":N:" as a tag.',
    },
  },
  count: {
    bytes_one: '{{count}} byte',
    bytes_other: '{{count}} bytes',
  },
}
