/**
 * The parser of the lines freeradius.ts makes FreeRADIUS write (the format and its escaping are
 * described there), for the aaa-logs ingester. It never throws: a line it cannot read comes back
 * as a `FreeradiusParseError` with a reason.
 */
import { CONTROL_ATTRIBUTES, FREERADIUS_LOG_FORMAT_VERSION, RADIUS_REJECT_REASONS, REPLY_ATTRIBUTES, type RadiusRejectReason } from './freeradius.js'

export interface RadiusReplyAttribute {
  name: string
  value: string
}

/** What every line says of where the request came from: the verified client and the NAS's claims. */
interface FreeradiusOrigin {
  /**
   * The packet's source address: the client FreeRADIUS verified (its secret and Message-Authenticator).
   * Lines written before the source address was logged: NAS-IP-Address.
   */
  nasIp: string | null
  /** The name of that client (the device) in clients.conf; null in lines written before it was logged. */
  clientName: string | null
  /** NAS-IP-Address as the NAS claims it (any configured NAS may put any address here). */
  nasIpAddress: string | null
}

/**
 * What NAC profiling and sessions read (freeradius.ts PROFILING_ATTRIBUTES), from the line's
 * `profiling` field; empty in lines written before it was logged, or when FreeRADIUS cut it.
 */
export interface FreeradiusProfiling {
  /** NAS-Port-Id: the port as the switch names it (`GigabitEthernet1/0/7`). */
  nasPortId: string | null
  /** NAS-Port-Type as FreeRADIUS names it (`Ethernet`, `Wireless-802.11`, `Virtual`). */
  nasPortType: string | null
  /**
   * Every Cisco-AVPair of the request (up to SENSOR_AVPAIRS), in packet order (device-sensor:
   * `dhcp-option=…`, `cdp-tlv=…`, `lldp-tlv=…`, `http-tlv=…`), byte for byte: each byte one character
   * (U+0000–U+00FF, "latin1"), since the TLVs hold binary type and length bytes.
   */
  ciscoAvPairs: string[]
  /** The `profiling` field was cut by FreeRADIUS (its xlat buffer) and dropped. */
  profilingTruncated: boolean
}

export interface FreeradiusAuthEvent extends FreeradiusOrigin, FreeradiusProfiling {
  /** ISO 8601, UTC. */
  timestamp: string
  username: string
  callingStationId: string | null
  calledStationId: string | null
  nasPort: string | null
  nasIdentifier: string | null
  /** PAP | CHAP | MS-CHAPv2 | MS-CHAPv1 (the RADIUS renderer names it so), or null (EAP and others). */
  authType: 'PAP' | 'CHAP' | 'MS-CHAPv2' | 'MS-CHAPv1' | null
  result: 'accept' | 'reject'
  ruleName: string | null
  ruleLabel: string | null
  replyAttributes: RadiusReplyAttribute[]
  /**
   * The reply list was cut: FreeRADIUS 3.2 expands one xlat into at most 2,047 bytes, so a reply of
   * more than about 1.5 KB of attributes arrives cut; `replyAttributes` holds the whole ones before the cut.
   */
  replyTruncated: boolean
  /** Why a reject happened (Module-Failure-Message), when FreeRADIUS says. */
  reason: string | null
  /** Why a reject happened, as a code (`RADIUS_REJECT_REASONS`); null on accepts and in older lines. */
  rejectReason: RadiusRejectReason | null
  /** 802.1X and MAB (control Portcullis-NAC-Method): `peap`, `eap-tls`, `mab`; null on device administration and in older lines. */
  nacMethod: NacLogMethod | null
  /** 802.1X: the authenticated user (PEAP inner identity, EAP-TLS certificate Common-Name); `username` is the outer identity. */
  nacUser: string | null
  /** EAP-Type of the last round (`PEAP`, `TLS`, `Identity` …), when the request carried EAP. */
  eapType: string | null
  nasPortType: string | null
  nasPortId: string | null
  /** The VLAN given: the accept's first Tunnel-Private-Group-Id; null on rejects and without one. */
  vlan: string | null
  /** The named ACL given: the accept's first Filter-Id. */
  filterId: string | null
}

export type NacLogMethod = 'peap' | 'eap-tls' | 'mab'
const NAC_METHODS: ReadonlySet<string> = new Set<NacLogMethod>(['peap', 'eap-tls', 'mab'])

export interface FreeradiusAcctEvent extends FreeradiusOrigin, FreeradiusProfiling {
  timestamp: string
  username: string
  callingStationId: string | null
  calledStationId: string | null
  nasPort: string | null
  nasIdentifier: string | null
  acctStatusType: string
  acctSessionId: string | null
  framedIp: string | null
  sessionTime: number | null
  /**
   * Octets with the Gigawords folded in (Acct-Input-Octets + Acct-Input-Gigawords × 2³²), as a decimal
   * string (it may pass 2⁵³); null when absent, or over a signed 64-bit column (2⁶³ − 1).
   */
  inputOctets: string | null
  outputOctets: string | null
}

export type FreeradiusLogRecord = { kind: 'auth'; event: FreeradiusAuthEvent } | { kind: 'acct'; event: FreeradiusAcctEvent }

export interface FreeradiusParseError {
  kind: 'error'
  reason: string
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** Undo the second layer of escapes linelog adds inside values. */
const undoSecondEscape = (s: string): string => (s.includes('\\') ? s.replace(/\\(["\\/])/g, '$1') : s)

function parseJsonObject(text: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(text)
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null
  } catch {
    return null
  }
}

/** One attribute's value as a string: strings, numbers and booleans; the first of an array. */
function attr(list: unknown, name: string): string | null {
  if (list === null || typeof list !== 'object') return null
  let v = (list as Record<string, unknown>)[name]
  if (Array.isArray(v)) v = v[0]
  if (typeof v === 'string') return v === '' ? null : undoSecondEscape(v)
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  return null
}

/** The `sensor` list: hex strings → byte strings (one char per byte); empty and malformed entries are skipped. */
function sensorList(v: unknown): string[] {
  if (!Array.isArray(v)) return []
  const out: string[] = []
  for (const x of v) if (typeof x === 'string' && x.length && x.length % 2 === 0 && /^[0-9a-fA-F]+$/.test(x)) out.push(Buffer.from(x, 'hex').toString('latin1'))
  return out
}

/**
 * A line whose `profiling` field FreeRADIUS cut: the line without that field (the fields after it are
 * separate xlats, whole), or null when the line has no such field or is still not JSON without it.
 */
function dropCutProfiling(text: string): Record<string, unknown> | null {
  const at = text.indexOf(',"profiling":{')
  if (at < 0) return null
  const next = text.indexOf(',"replies":[', at)
  return parseJsonObject(text.slice(0, at) + (next < 0 ? '}' : text.slice(next)))
}

const num = (s: string | null): number | null => (s !== null && /^\d{1,18}$/.test(s) ? Number(s) : null)

const INT64_MAX = (1n << 63n) - 1n
/** Octets + Gigawords × 2³² (RFC 2869 §5.1, 5.2), both 32-bit counters; null when the octets are absent or the total passes a bigint. */
function octets64(octets: string | null, gigawords: string | null): string | null {
  if (octets === null || !/^\d{1,20}$/.test(octets)) return null
  const gw = gigawords !== null && /^\d{1,20}$/.test(gigawords) ? BigInt(gigawords) : 0n
  const total = BigInt(octets) + (gw << 32n)
  return total <= INT64_MAX ? total.toString() : null
}

/** The reply list: an array of `{name, value}` (lines since every reply attribute is logged), or the older object of selected ones. */
function replyList(obj: Record<string, unknown>): RadiusReplyAttribute[] {
  const out: RadiusReplyAttribute[] = []
  if (Array.isArray(obj.replies)) {
    for (const e of obj.replies) {
      if (e === null || typeof e !== 'object') continue
      const name = (e as Record<string, unknown>).name
      if (typeof name !== 'string' || name === '') continue
      const v = (e as Record<string, unknown>).value
      for (const x of Array.isArray(v) ? v : [v]) {
        if (typeof x === 'string') out.push({ name, value: undoSecondEscape(x) })
        else if (typeof x === 'number' || typeof x === 'boolean') out.push({ name, value: String(x) })
      }
    }
    return out
  }
  const reply = obj.reply !== null && typeof obj.reply === 'object' ? obj.reply : {}
  for (const name of REPLY_ATTRIBUTES) {
    const v = attr(reply, name)
    if (v !== null) out.push({ name, value: v })
  }
  return out
}

/**
 * A line whose reply list FreeRADIUS cut (its xlat buffer is 2,048 bytes): the fields before `"replies":`
 * (whole: the list is the line's last field) and the list's whole elements, or null when it is not such a line.
 */
function salvageCutReplies(text: string): { obj: Record<string, unknown>; replies: unknown[] } | null {
  const at = text.indexOf(',"replies":[')
  if (at < 0) return null
  const obj = parseJsonObject(text.slice(0, at) + '}')
  if (!obj) return null
  const list = text.slice(at + ',"replies":['.length)
  let depth = 0
  let inString = false
  let end = 0
  for (let i = 0; i < list.length; i++) {
    const c = list[i]
    if (inString) {
      if (c === '\\') i++
      else if (c === '"') inString = false
    } else if (c === '"') inString = true
    else if (c === '{') depth++
    else if (c === '}' && --depth === 0) end = i + 1
    else if (c === ']' && depth === 0) break
  }
  try {
    const replies: unknown = JSON.parse('[' + list.slice(0, end) + ']')
    return Array.isArray(replies) ? { obj, replies } : null
  } catch {
    return { obj, replies: [] }
  }
}

const REASONS: ReadonlySet<string> = new Set(RADIUS_REJECT_REASONS)
const reasonOf = (raw: string | null): RadiusRejectReason | null => (raw !== null && REASONS.has(raw) ? (raw as RadiusRejectReason) : null)

function authTypeOf(raw: string | null): FreeradiusAuthEvent['authType'] {
  switch ((raw ?? '').toUpperCase()) {
    case 'PAP':
    // A directory user's PAP password, checked by an LDAP bind (plugins/radius/renderers/directory.ts).
    case 'LDAP':
      return 'PAP'
    case 'CHAP':
      return 'CHAP'
    case 'MS-CHAP':
    case 'MSCHAP':
    case 'MS-CHAPV2':
      return 'MS-CHAPv2'
    case 'MS-CHAPV1':
      return 'MS-CHAPv1'
    default:
      return null
  }
}

/** What an auth line says of 802.1X and MAB (all null on device administration and in older lines). */
function nacFields(obj: Record<string, unknown>, req: object, replies: RadiusReplyAttribute[]): Pick<FreeradiusAuthEvent, 'nacMethod' | 'nacUser' | 'eapType' | 'nasPortType' | 'nasPortId' | 'vlan' | 'filterId'> {
  const method = attr(obj.control, CONTROL_ATTRIBUTES.nacMethod)
  const first = (name: string) => replies.find((a) => a.name === name)?.value ?? null
  return {
    nacMethod: method !== null && NAC_METHODS.has(method) ? (method as NacLogMethod) : null,
    nacUser: attr(obj.control, CONTROL_ATTRIBUTES.nacUser),
    eapType: attr(req, 'EAP-Type'),
    // In the request attributes of auth lines (the NAC's), and in the profiling field of every line.
    nasPortType: attr(req, 'NAS-Port-Type') ?? attr(obj.profiling, 'NAS-Port-Type'),
    nasPortId: attr(req, 'NAS-Port-Id') ?? attr(obj.profiling, 'NAS-Port-Id'),
    vlan: first('Tunnel-Private-Group-Id'),
    filterId: first('Filter-Id'),
  }
}

/**
 * One line (a string, or the raw bytes without the newline) → a record, or an
 * error with its reason (never throws).
 */
export function parseFreeradiusLine(line: string | Uint8Array): FreeradiusLogRecord | FreeradiusParseError {
  let text: string
  if (typeof line === 'string') text = line
  else {
    try {
      text = utf8.decode(line)
    } catch {
      return { kind: 'error', reason: 'invalid UTF-8' }
    }
  }
  text = text.replace(/\r?\n$/, '')
  if (text.trim() === '') return { kind: 'error', reason: 'empty line' }
  let obj = parseJsonObject(text) ?? parseJsonObject(undoSecondEscape(text))
  let replyTruncated = false
  let profilingTruncated = false
  if (!obj) {
    obj = dropCutProfiling(text)
    profilingTruncated = obj !== null
  }
  if (!obj) {
    const cut = salvageCutReplies(text)
    if (cut) {
      obj = { ...cut.obj, replies: cut.replies }
      replyTruncated = true
    }
  }
  if (!obj) return { kind: 'error', reason: text.trimEnd().endsWith('}') ? 'not valid JSON' : 'truncated JSON (no closing brace)' }
  if (obj.v !== FREERADIUS_LOG_FORMAT_VERSION) return { kind: 'error', reason: `unknown format version ${JSON.stringify(obj.v ?? null).slice(0, 20)}` }
  const secs = typeof obj.ts === 'number' ? obj.ts : Number(obj.ts)
  if (!Number.isFinite(secs) || secs <= 0) return { kind: 'error', reason: 'missing or bad timestamp' }
  const us = Number(obj.us)
  const timestamp = new Date(secs * 1000 + (Number.isFinite(us) && us >= 0 && us < 1e6 ? Math.floor(us / 1000) : 0)).toISOString()
  const req = obj.request
  if (req === null || typeof req !== 'object') return { kind: 'error', reason: 'missing request attributes' }
  const common = {
    timestamp,
    username: attr(req, 'User-Name') ?? '',
    nasIp: attr(obj, 'src') ?? attr(req, 'Packet-Src-IP-Address') ?? attr(req, 'NAS-IP-Address'),
    clientName: attr(obj, 'client'),
    nasIpAddress: attr(req, 'NAS-IP-Address'),
    callingStationId: attr(req, 'Calling-Station-Id'),
    calledStationId: attr(req, 'Called-Station-Id'),
    nasPort: attr(req, 'NAS-Port'),
    nasIdentifier: attr(req, 'NAS-Identifier'),
    nasPortId: attr(obj.profiling, 'NAS-Port-Id'),
    nasPortType: attr(obj.profiling, 'NAS-Port-Type'),
    ciscoAvPairs: sensorList(obj.sensor),
    profilingTruncated,
  }
  if (obj.kind === 'auth') {
    if (obj.result !== 'accept' && obj.result !== 'reject') return { kind: 'error', reason: 'missing or bad result' }
    const replyAttributes = replyList(obj)
    return {
      kind: 'auth',
      event: {
        ...common,
        authType: authTypeOf(attr(obj.control, CONTROL_ATTRIBUTES.authType)),
        result: obj.result,
        ruleName: attr(obj.control, CONTROL_ATTRIBUTES.ruleName),
        ruleLabel: attr(obj.control, CONTROL_ATTRIBUTES.ruleLabel),
        replyAttributes,
        replyTruncated,
        reason: attr(req, 'Module-Failure-Message'),
        rejectReason: obj.result === 'reject' ? reasonOf(attr(obj.control, CONTROL_ATTRIBUTES.rejectReason)) : null,
        ...nacFields(obj, req, obj.result === 'accept' ? replyAttributes : []),
      },
    }
  }
  if (obj.kind === 'acct') {
    const acctStatusType = attr(req, 'Acct-Status-Type')
    if (!acctStatusType) return { kind: 'error', reason: 'accounting line without Acct-Status-Type' }
    return {
      kind: 'acct',
      event: {
        ...common,
        acctStatusType,
        acctSessionId: attr(req, 'Acct-Session-Id'),
        framedIp: attr(req, 'Framed-IP-Address'),
        sessionTime: num(attr(req, 'Acct-Session-Time')),
        inputOctets: octets64(attr(req, 'Acct-Input-Octets'), attr(req, 'Acct-Input-Gigawords')),
        outputOctets: octets64(attr(req, 'Acct-Output-Octets'), attr(req, 'Acct-Output-Gigawords')),
      },
    }
  }
  return { kind: 'error', reason: `unknown record kind ${JSON.stringify(obj.kind ?? null).slice(0, 20)}` }
}
