/** Why a rule's NAS address prefix is refused (services/conditions.ts parseClientPrefix), spread into locales/en.ts under `condition_reason`. */
export default {
  not_prefix: '{{text}} is not an IPv4 or IPv6 address or prefix in CIDR form (10.1.0.0/16, 2001:db8::/32)',
  prefix_length: '{{text}}: the prefix length must be 0 to {{bits}}',
  mapped: '{{text}} is an IPv4-mapped IPv6 prefix: write it as IPv4',
  host_bits: '{{text}} has host bits set after /{{length}}: the network is {{network}}, a single address is /{{bits}}',
}
