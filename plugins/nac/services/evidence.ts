/**
 * What the network tells of an endpoint, as profiling rules read it: Cisco
 * device-sensor AVPairs (DHCP options, CDP and LLDP TLVs, the HTTP user agent)
 * and NAS-Port-Type, from the RADIUS records the aaa-logs ingester hands over.
 *
 * A device-sensor AVPair's value is a TLV, `<type:2><length:2><value>` after
 * `dhcp-option=`, `cdp-tlv=`, `lldp-tlv=` or `http-tlv=`, with binary type and
 * length bytes: the parser hands each AVPair over byte for byte (one character
 * per byte), and text values are read as UTF-8. FreeRADIUS's printed form, with
 * octal escapes (`\000\074\000\010MSFT 5.0`), and the named form some
 * collectors write (`dhcp-option=dhcp-class-identifier=MSFT 5.0`,
 * `cdp-tlv=cdpCachePlatform=Cisco IP Phone 7962`) are read too.
 */

/** The attributes a profiling condition may test (schemas/profiling-rules.ts lists them for the API). */
export const EVIDENCE_ATTRIBUTES = [
  'vendor',
  'dhcp_class_id',
  'dhcp_parameter_list',
  'dhcp_hostname',
  'cdp_platform',
  'lldp_system_description',
  'user_agent',
  'nas_port_type',
] as const
export type EvidenceAttribute = (typeof EVIDENCE_ATTRIBUTES)[number]
export type Evidence = Partial<Record<EvidenceAttribute, string>>

/** Stored values are cut here: enough for any user agent a rule needs, bounded for the table. */
const MAX_VALUE = 500

/** Octal escapes (`\000`) back to the characters they stand for (one char per byte). */
const unescapeOctal = (s: string) => (s.includes('\\') ? s.replace(/\\([0-3][0-7]{2})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8))) : s)

/** Bytes (one char each) as UTF-8 text; as they are when they are not bytes or not UTF-8. */
function utf8(s: string): string {
  if (/[^\u0000-\u00ff]/.test(s)) return s
  const b = Buffer.from(s, 'latin1')
  const t = b.toString('utf8')
  return t.includes('\ufffd') ? s : t
}

/** Printable text: control characters out, spaces trimmed; null when nothing is left. */
function text(s: string): string | null {
  const t = utf8(s).replace(/[\u0000-\u001f\u007f]/g, '').trim()
  return t ? t.slice(0, MAX_VALUE) : null
}

/** `<type:2><length:2><value>` (chars as bytes), or null when the value is not one. */
function tlv(s: string): { type: number; value: string } | null {
  if (s.length < 4) return null
  for (let i = 0; i < 4; i++) if (s.charCodeAt(i) > 0xff) return null
  const type = (s.charCodeAt(0) << 8) | s.charCodeAt(1)
  const len = (s.charCodeAt(2) << 8) | s.charCodeAt(3)
  if (type === 0 || len > s.length - 4 || (s.charCodeAt(0) >= 0x20 && s.charCodeAt(2) >= 0x20)) return null
  return { type, value: s.slice(4, 4 + len) }
}

/** DHCP option 55 as the usual fingerprint text: the option numbers, comma-separated (`1,3,6,15`). */
const paramList = (bytes: string) => [...bytes].map((c) => c.charCodeAt(0)).join(',').slice(0, MAX_VALUE)

const NAMED: Record<string, EvidenceAttribute> = {
  'dhcp-class-identifier': 'dhcp_class_id',
  'class-identifier': 'dhcp_class_id',
  'dhcp-parameter-request-list': 'dhcp_parameter_list',
  'parameter-request-list': 'dhcp_parameter_list',
  'host-name': 'dhcp_hostname',
  'hostname': 'dhcp_hostname',
  'cdpcacheplatform': 'cdp_platform',
  'platform-type': 'cdp_platform',
  'lldpsystemdescription': 'lldp_system_description',
  'system-description': 'lldp_system_description',
  'user-agent': 'user_agent',
}

/** One Cisco-AVPair → the evidence it carries (attribute and value), or null. */
export function sensorEvidence(avpair: string): [EvidenceAttribute, string] | null {
  const eq = avpair.indexOf('=')
  if (eq < 0) return null
  const kind = avpair.slice(0, eq).trim().toLowerCase()
  if (kind !== 'dhcp-option' && kind !== 'cdp-tlv' && kind !== 'lldp-tlv' && kind !== 'http-tlv') return null
  const raw = unescapeOctal(avpair.slice(eq + 1))
  const t = tlv(raw)
  if (t) {
    let attr: EvidenceAttribute | null = null
    if (kind === 'dhcp-option') attr = t.type === 60 ? 'dhcp_class_id' : t.type === 55 ? 'dhcp_parameter_list' : t.type === 12 ? 'dhcp_hostname' : null
    else if (kind === 'cdp-tlv') attr = t.type === 6 ? 'cdp_platform' : null
    else if (kind === 'lldp-tlv') attr = t.type === 6 ? 'lldp_system_description' : null
    // The HTTP sensor reports the request's User-Agent header; the only text it sends.
    else attr = 'user_agent'
    if (!attr) return null
    const v = attr === 'dhcp_parameter_list' ? paramList(t.value) : text(t.value)
    return v ? [attr, v] : null
  }
  // The named form: `<name>=<value>`.
  const eq2 = raw.indexOf('=')
  if (eq2 < 0) return kind === 'http-tlv' && text(raw) ? ['user_agent', text(raw)!] : null
  const attr = NAMED[raw.slice(0, eq2).trim().toLowerCase()]
  if (!attr) return null
  let v = raw.slice(eq2 + 1)
  if (attr === 'dhcp_parameter_list') v = v.replace(/\s+/g, '')
  const clean = text(v)
  return clean ? [attr, clean] : null
}

/** The evidence of one record: its device-sensor AVPairs and its NAS-Port-Type. */
export function recordEvidence(avpairs: readonly string[], nasPortType: string | null): Evidence {
  const e: Evidence = {}
  for (const a of avpairs) {
    const x = sensorEvidence(a)
    if (x) e[x[0]] = x[1]
  }
  const npt = nasPortType ? text(nasPortType) : null
  if (npt) e.nas_port_type = npt.slice(0, 64)
  return e
}
