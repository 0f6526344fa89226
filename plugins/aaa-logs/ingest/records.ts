/**
 * One raw line of a source → the row of its table, or the reason it goes to
 * quarantine. Values are cut to their column's size and stripped of NUL bytes
 * so that a hostile value can never make a batch fail.
 */
import { isUtf8 } from 'node:buffer'
import { isIP } from 'node:net'
import { parseFreeradiusLine, type FreeradiusLogRecord } from '../../../sdk/logs/freeradius-parse.js'
import { parseLogLineDetailed, splitList } from '../../../sdk/logs/tac-plus-ng.js'
import type { LogKind } from '../api.js'

export type Row = Record<string, unknown>
/** `record`: the parsed RADIUS line, for the record listeners (ingest/listeners.ts). */
export type Parsed = { ok: true; row: Row; username: string; timestamp: string; record?: FreeradiusLogRecord } | { ok: false; reason: string }


const clean = (v: string) => (v.includes('\u0000') ? v.replace(/\u0000/g, '') : v)
/** A varchar(n) value: null when empty. */
const vc = (v: string | null | undefined, n: number): string | null => (v === null || v === undefined || v === '' ? null : clean(v).slice(0, n))
/** The `auth_type` of an 802.1X or MAB row, where FreeRADIUS checked no PAP/CHAP/MS-CHAP password of its own. */
const NAC_AUTH_TYPES: Record<string, string> = { peap: 'PEAP', 'eap-tls': 'EAP-TLS', mab: 'MAB' }
const txt = (v: string | null | undefined): string | null => (v === null || v === undefined || v === '' ? null : clean(v))
const ipCache = new Map<string, boolean>()
const inet = (v: string | null | undefined): string | null => {
  if (!v) return null
  let ok = ipCache.get(v)
  if (ok === undefined) {
    ok = isIP(v) !== 0
    if (ipCache.size > 10000) ipCache.clear()
    ipCache.set(v, ok)
  }
  return ok ? v : null
}
const int = (v: string | null | undefined, max: number): number | null => {
  if (!v || !/^\d{1,18}$/.test(v)) return null
  const n = Number(v)
  return n <= max ? n : null
}
const pass = (msgid: string, result: string) => /PASS|PERMIT|ACK|SUCCE/i.test(msgid + ' ' + result) && !/FAIL|DENY|NAK|REJECT/i.test(msgid + ' ' + result)

export function parseLine(kind: LogKind, raw: Buffer): Parsed {
  if (!isUtf8(raw)) return { ok: false, reason: 'invalid UTF-8' }
  const line = raw.toString('utf8')
  if (kind.startsWith('tacacs_')) {
    const p = parseLogLineDetailed(line)
    if (!p.ok) return p
    const r = p.record
    if (`tacacs_${r.kind}` !== kind) return { ok: false, reason: `a ${r.kind} record in a ${kind} file` }
    const timestamp = r.timestamp // RFC 3339 with the daemon's offset and microseconds, checked by the parser
    const common: Row = {
      timestamp,
      username: clean(r.user).slice(0, 253),
      nas_ip: inet(r.device_address),
      device_name: vc(r.device, 128),
      client_address: vc(r.client_address, 64),
      session_id: vc(r.session_id, 128),
    }
    if (r.kind === 'authentication') {
      return {
        ok: true,
        username: r.user,
        timestamp,
        row: { ...common, status: pass(r.msgid, r.result) ? 'success' : 'failure', rule_name: vc(r.rule, 128), profile: vc(r.profile, 128), authen_type: vc(r.authen_type, 32), port: vc(r.device_port, 64), message: txt(r.hint), result_code: vc(r.msgid, 48) },
      }
    }
    if (r.kind === 'authorization') {
      return {
        ok: true,
        username: r.user,
        timestamp,
        row: {
          ...common,
          action: pass(r.msgid, r.result) ? 'permit' : 'deny',
          rule_name: vc(r.rule, 128),
          profile: vc(r.profile, 128),
          service: vc(r.service, 64),
          priv_lvl: int(r.priv_lvl, 15),
          command: txt(r.cmd),
          arguments: splitList(r.args).map(clean),
          reply_arguments: splitList(r.rargs).map(clean),
          result_code: vc(r.msgid, 48),
        },
      }
    }
    const action = (r.acct_type || r.msgid.replace(/^ACCT-/, '')).toLowerCase()
    return {
      ok: true,
      username: r.user,
      timestamp,
      row: { ...common, action: vc(action, 16) ?? 'unknown', service: vc(r.service, 64), command: txt(r.cmd), arguments: splitList(r.args).map(clean), port: vc(r.device_port, 64) },
    }
  }
  const p = parseFreeradiusLine(line)
  if (p.kind === 'error') return { ok: false, reason: p.reason }
  if (`radius_${p.kind === 'auth' ? 'authentication' : 'accounting'}` !== kind) return { ok: false, reason: `a ${p.kind} record in a ${kind} file` }
  const e = p.event
  // nas_ip and device_name: the client FreeRADIUS verified (as a TACACS+ row's); what the NAS claims beside them.
  const common: Row = {
    timestamp: e.timestamp,
    username: clean(e.username).slice(0, 253),
    nas_ip: inet(e.nasIp),
    device_name: vc(e.clientName, 128),
    client_address: vc(e.callingStationId, 64),
    calling_station_id: vc(e.callingStationId, 64),
    nas_port: vc(e.nasPort, 64),
    nas_ip_address: inet(e.nasIpAddress),
    nas_identifier: vc(e.nasIdentifier, 253),
  }
  if (p.kind === 'auth') {
    const a = p.event
    // 802.1X and MAB: the row names the user who authenticated (PEAP's inner identity, the certificate's user),
    // not the outer identity (`anonymous`), and how (PEAP, EAP-TLS, MAB) where there was no password to name.
    const username = a.nacUser ?? a.username
    return {
      ok: true,
      username,
      timestamp: a.timestamp,
      record: p,
      row: {
        ...common,
        username: clean(username).slice(0, 253),
        session_id: null,
        status: a.result,
        auth_type: a.authType ?? NAC_AUTH_TYPES[a.nacMethod ?? ''] ?? null,
        rule_name: vc(a.ruleName, 128),
        rule_label: vc(a.ruleLabel, 128),
        called_station_id: vc(a.calledStationId, 128),
        reply_attributes: a.replyAttributes.map((x) => ({ name: clean(x.name).slice(0, 128), value: clean(x.value) })),
        reason: txt(a.reason),
        reject_reason: a.rejectReason,
        reply_attributes_truncated: a.replyTruncated,
        // What the change-impact replay needs to evaluate the request again (migration 0008).
        nac_method: a.nacMethod,
        nac_user: vc(a.nacUser, 253),
        outer_identity: username !== a.username ? vc(clean(a.username).slice(0, 253), 253) : null,
        nas_port_type: vc(a.nasPortType, 64),
      },
    }
  }
  const c = p.event
  return {
    ok: true,
    username: c.username,
    timestamp: c.timestamp,
    record: p,
    row: {
      ...common,
      session_id: vc(c.acctSessionId, 128),
      acct_status_type: vc(c.acctStatusType, 32),
      acct_session_id: vc(c.acctSessionId, 128),
      framed_ip: inet(c.framedIp),
      session_time: c.sessionTime,
      input_octets: c.inputOctets,
      output_octets: c.outputOctets,
    },
  }
}
