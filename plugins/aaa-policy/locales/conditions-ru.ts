/** Почему префикс адреса NAS в правиле отклонён (services/conditions.ts parseClientPrefix); см. conditions-en.ts. */
export default {
  not_prefix: '{{text}} — не адрес и не префикс IPv4 или IPv6 в записи CIDR (10.1.0.0/16, 2001:db8::/32)',
  prefix_length: '{{text}}: длина префикса должна быть от 0 до {{bits}}',
  mapped: '{{text}} — префикс IPv6 с отображённым IPv4: запишите его как IPv4',
  host_bits: 'в {{text}} после /{{length}} установлены биты узла: сеть — {{network}}, отдельный адрес — /{{bits}}',
}
