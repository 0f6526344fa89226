/**
 * The reply attributes a RADIUS profile may carry, for device administration.
 * Every name, vendor, type and enum value here was checked against the
 * FreeRADIUS 3.2.1 dictionaries (Debian freeradius-common 3.2.1+dfsg-4,
 * /usr/share/freeradius/dictionary.*): a name FreeRADIUS does not know would
 * make the rendered configuration fail to load. The file a name comes from is
 * noted beside each group, so the next person can re-check it.
 *
 * Bounds are ours: FreeRADIUS only knows that an integer is 32 bits unsigned
 * and that a value fits in one attribute (253 octets, 247 for a vendor's);
 * tighter ranges come from the RFCs or the vendor documentation and catch
 * typos early.
 */

/** `enum` is an integer attribute written by one of its VALUE names. */
export type RadiusValueType = 'integer' | 'string' | 'ipaddr' | 'ipv6addr' | 'enum' | 'octets'

export interface DictionaryEntry {
  /** The FreeRADIUS dictionary name, spelled as the dictionary spells it. */
  name: string
  /** The dictionary's VENDOR name; null for a standard (RFC) attribute. */
  vendor: string | null
  type: RadiusValueType
  /** The VALUE names an `enum` accepts. */
  values?: readonly string[]
  /** Integer bounds. */
  min?: number
  max?: number
  /** Longest value in octets (UTF-8) for `string` and `octets`. */
  maxLength?: number
  /** True when a profile may list the attribute more than once. */
  repeatable: boolean
  /** `has_tag` in the FreeRADIUS dictionary: a string value starting with `:N:` would be read as tag N. */
  tagged?: true
  /** `avpair`: `attribute=value` or `attribute*value` (Cisco-style AV pairs). */
  format?: 'avpair'
  description: string
}

/** One RADIUS attribute holds at most 253 octets of value (RFC 2865 §5: type, length, then the value; length ≤ 255). */
export const MAX_VALUE_OCTETS = 253
/**
 * A vendor-specific value holds 6 octets fewer (RFC 2865 §5.26: the Vendor-Id, then the vendor's own
 * type and length, inside the 253): 247. FreeRADIUS cuts a longer one at 247 octets, even inside a
 * UTF-8 character, and sends the rest of the reply as if nothing happened.
 */
export const MAX_VSA_VALUE_OCTETS = MAX_VALUE_OCTETS - 6
const UINT32_MAX = 4294967295

const str = (name: string, vendor: string | null, repeatable: boolean, description: string, extra: Partial<DictionaryEntry> = {}): DictionaryEntry => ({
  name, vendor, type: 'string', maxLength: vendor ? MAX_VSA_VALUE_OCTETS : MAX_VALUE_OCTETS, repeatable, description, ...extra,
})
const int = (name: string, vendor: string | null, min: number, max: number, description: string): DictionaryEntry => ({
  name, vendor, type: 'integer', min, max, repeatable: false, description,
})
const enm = (name: string, vendor: string | null, values: readonly string[], description: string, tagged = false): DictionaryEntry => ({
  name, vendor, type: 'enum', values, repeatable: false, description, ...(tagged ? { tagged: true as const } : {}),
})

const ENTRIES: DictionaryEntry[] = [
  // dictionary.rfc2865, plus Authorize-Only (rfc3576) and Framed-Management (rfc5607).
  enm(
    'Service-Type',
    null,
    [
      'Login-User', 'Framed-User', 'Callback-Login-User', 'Callback-Framed-User', 'Outbound-User', 'Administrative-User',
      'NAS-Prompt-User', 'Authenticate-Only', 'Callback-NAS-Prompt', 'Call-Check', 'Callback-Administrative', 'Authorize-Only',
      'Framed-Management',
    ],
    'The service granted: Administrative-User (privileged CLI) or NAS-Prompt-User (unprivileged) on most devices.',
  ),
  str('Reply-Message', null, true, 'Text the device may show to the user; several are shown in order.'),
  int('Session-Timeout', null, 1, UINT32_MAX, 'Seconds before the session ends.'),
  int('Idle-Timeout', null, 1, UINT32_MAX, 'Seconds of inactivity before the session ends.'),
  enm('Termination-Action', null, ['Default', 'RADIUS-Request'], 'What the device does when the session ends.'),
  { name: 'Class', vendor: null, type: 'octets', maxLength: MAX_VALUE_OCTETS, repeatable: true, description: 'Opaque value the device echoes in accounting. Text, or hex as 0x…' },
  str('Filter-Id', null, true, 'Name of a filter (ACL) defined on the device.'),
  { name: 'Framed-IP-Address', vendor: null, type: 'ipaddr', repeatable: false, description: 'IPv4 address assigned to the user.' },
  { name: 'Framed-IP-Netmask', vendor: null, type: 'ipaddr', repeatable: false, description: 'IPv4 netmask for Framed-IP-Address.' },
  int('Framed-MTU', null, 64, 65535, 'MTU for the user (RFC 2865: 64 to 65535).'),
  // dictionary.rfc6911
  { name: 'Framed-IPv6-Address', vendor: null, type: 'ipv6addr', repeatable: false, description: 'IPv6 address assigned to the user.' },
  // dictionary.rfc2869: RFC 2869 §5.16 says it SHOULD NOT be less than 60.
  int('Acct-Interim-Interval', null, 60, UINT32_MAX, 'Seconds between interim accounting updates.'),
  // dictionary.rfc2868, plus VLAN (13) from rfc3580. Written without a tag (tag 0), so each appears once.
  enm(
    'Tunnel-Type',
    null,
    ['PPTP', 'L2F', 'L2TP', 'ATMP', 'VTP', 'AH', 'IP', 'MIN-IP', 'ESP', 'GRE', 'DVS', 'IP-in-IP', 'VLAN'],
    'VLAN for a VLAN assignment (RFC 3580), with Tunnel-Medium-Type IEEE-802 and Tunnel-Private-Group-Id.',
    true,
  ),
  enm(
    'Tunnel-Medium-Type',
    null,
    ['IP', 'IPv4', 'IPv6', 'NSAP', 'HDLC', 'BBN-1822', 'IEEE-802', 'E.163', 'E.164', 'F.69', 'X.121', 'IPX', 'Appletalk', 'DecNet-IV', 'Banyan-Vines', 'E.164-NSAP'],
    'IEEE-802 for a VLAN assignment.',
    true,
  ),
  str('Tunnel-Private-Group-Id', null, false, 'The VLAN id or name for a VLAN assignment.', { tagged: true }),

  // dictionary.arista (VENDOR Arista 30065)
  str('Arista-AVPair', 'Arista', true, 'EOS attribute-value pair, e.g. shell:roles=network-admin.', { format: 'avpair' }),
  int('Arista-User-Priv-Level', 'Arista', 0, 15, 'EOS privilege level.'),
  str('Arista-User-Role', 'Arista', false, 'EOS role name.'),
  // dictionary.aruba (VENDOR Aruba 14823)
  str('Aruba-Admin-Role', 'Aruba', false, 'Management role on Aruba controllers and switches (root, read-only …).'),
  str('Aruba-User-Role', 'Aruba', false, 'User role on Aruba controllers.'),
  int('Aruba-User-Vlan', 'Aruba', 1, 4094, 'VLAN for the user.'),
  // dictionary.cisco (VENDOR Cisco 9)
  str('Cisco-AVPair', 'Cisco', true, 'Cisco attribute-value pair, e.g. shell:priv-lvl=15 or shell:roles="network-admin".', { format: 'avpair' }),
  // dictionary.fortinet (VENDOR Fortinet 12356)
  str('Fortinet-Group-Name', 'Fortinet', false, 'Group the FortiGate matches to an administrator or firewall policy.'),
  str('Fortinet-Access-Profile', 'Fortinet', false, 'Administrator access profile (super_admin, prof_admin …).'),
  str('Fortinet-Vdom-Name', 'Fortinet', false, 'VDOM the administrator is confined to.'),
  // dictionary.h3c (VENDOR H3C 25506)
  enm('H3C-Exec-Privilege', 'H3C', ['Visit', 'Monitor', 'System', 'Manage'], 'Comware user level.'),
  // dictionary.hp (VENDOR HP 11): ProCurve / Aruba-OS switch management authorization.
  int('HP-Privilege-Level', 'HP', 0, 15, 'Privilege level.'),
  str('HP-Command-String', 'HP', false, 'Commands, separated by ";", allowed or denied per HP-Command-Exception.'),
  enm('HP-Command-Exception', 'HP', ['Permit-List', 'Deny-List'], 'Whether HP-Command-String lists permitted or denied commands.'),
  // dictionary.huawei (VENDOR Huawei 2011)
  int('Huawei-Exec-Privilege', 'Huawei', 0, 15, 'VRP command level.'),
  // dictionary.juniper (VENDOR Juniper 2636)
  str('Juniper-Local-User-Name', 'Juniper', false, 'Junos login class template user the session runs as.'),
  str('Juniper-Allow-Commands', 'Juniper', false, 'Regular expression of operational commands allowed beyond the class.'),
  str('Juniper-Deny-Commands', 'Juniper', false, 'Regular expression of operational commands denied.'),
  str('Juniper-Allow-Configuration', 'Juniper', false, 'Regular expression of configuration hierarchies allowed.'),
  str('Juniper-Deny-Configuration', 'Juniper', false, 'Regular expression of configuration hierarchies denied.'),
  // dictionary.mikrotik (VENDOR Mikrotik 14988)
  str('Mikrotik-Group', 'Mikrotik', false, 'RouterOS user group (full, read, write …).'),
  // dictionary.paloalto (VENDOR PaloAlto 25461)
  str('PaloAlto-Admin-Role', 'PaloAlto', false, 'PAN-OS administrator role (superuser, an admin role profile …).'),
  str('PaloAlto-Admin-Access-Domain', 'PaloAlto', false, 'PAN-OS access domain.'),
  str('PaloAlto-User-Group', 'PaloAlto', false, 'PAN-OS user group.'),
]

/** The dictionary, by exact name. FreeRADIUS names are case-insensitive, but we store the canonical spelling. */
export const DICTIONARY: ReadonlyMap<string, DictionaryEntry> = new Map(ENTRIES.map((e) => [e.name, Object.freeze(e)]))

const byLowerName = new Map(ENTRIES.map((e) => [e.name.toLowerCase(), e.name]))

/** The canonical spelling of a name that differs only in case (`cisco-avpair` → `Cisco-AVPair`), for the error hint. */
export const suggestName = (name: string): string | null => byLowerName.get(name.toLowerCase()) ?? null

/** Every entry in shipping order: standard attributes first, then vendors A to Z. */
export const dictionaryEntries = (): readonly DictionaryEntry[] => ENTRIES
