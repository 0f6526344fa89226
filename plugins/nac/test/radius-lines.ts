/**
 * FreeRADIUS linelog lines as the rendered tree writes them (sdk/logs/freeradius.ts), for the tests
 * and the benchmark that feed the real ingester: the request attributes, the profiling field with
 * device-sensor AVPairs in FreeRADIUS's octal-escaped TLV form, and the reply list.
 */
import type { Knex } from 'knex'
import { parseFreeradiusLine } from '../../../sdk/logs/freeradius-parse.js'
import { applyAccounting } from '../services/sessions.js'

export interface LineBase {
  /** Epoch seconds. */
  ts: number
  mac: string
  nas?: string
  user?: string
  portId?: string
  portType?: string
  /** Cisco-AVPairs: bytes (sensorTlv) or text. */
  avpairs?: (Buffer | string)[]
}

/** A device-sensor AVPair as the switch sends it: `<kind>=<type:2><len:2><value>` (text as UTF-8), as bytes. */
export function sensorTlv(kind: 'dhcp-option' | 'cdp-tlv' | 'lldp-tlv' | 'http-tlv', type: number, value: string | number[]): Buffer {
  const body = typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value)
  return Buffer.concat([Buffer.from(`${kind}=`), Buffer.from([type >> 8, type & 0xff, body.length >> 8, body.length & 0xff]), body])
}

function profiling(b: LineBase): Record<string, unknown> {
  const p: Record<string, unknown> = {}
  if (b.portId) p['NAS-Port-Id'] = b.portId
  if (b.portType) p['NAS-Port-Type'] = b.portType
  return p
}

/** The sensor list as the template writes it: the hex of each AVPair, "" for the absent ones. */
const sensor = (b: LineBase) => [...(b.avpairs ?? []).map((a) => Buffer.from(a).toString('hex')), '', '']

/**
 * linelog writes `json_encode` output inside a JSON string template, so a backslash in a value comes
 * out doubled once more: the parser undoes that second layer (`\\` → `\`).
 */
const linelog = (o: unknown) => JSON.stringify(o).replace(/\\\\/g, '\\\\\\\\')

export function authLine(b: LineBase & { result?: 'accept' | 'reject'; vlan?: string; filterId?: string; interim?: number }): string {
  const replies: { name: string; type: string; value: string }[] = []
  if (b.result !== 'reject') {
    if (b.vlan) replies.push({ name: 'Tunnel-Type', type: 'integer', value: 'VLAN' }, { name: 'Tunnel-Medium-Type', type: 'integer', value: 'IEEE-802' }, { name: 'Tunnel-Private-Group-Id', type: 'string', value: b.vlan })
    if (b.filterId) replies.push({ name: 'Filter-Id', type: 'string', value: b.filterId })
    if (b.interim) replies.push({ name: 'Acct-Interim-Interval', type: 'integer', value: String(b.interim) })
  }
  return linelog({
    v: 1,
    kind: 'auth',
    ts: String(b.ts),
    us: '0',
    src: b.nas ?? '10.9.0.1',
    client: 'sw1',
    result: b.result ?? 'accept',
    request: { 'User-Name': b.user ?? b.mac.replace(/:/g, ''), 'Calling-Station-Id': b.mac.toUpperCase().replace(/:/g, '-'), 'NAS-Port': '7' },
    control: { 'Auth-Type': 'eap' },
    profiling: profiling(b),
    sensor: sensor(b),
    replies,
  }) + '\n'
}

export function acctLine(b: LineBase & { status: 'Start' | 'Interim-Update' | 'Stop' | 'Accounting-On'; sid?: string; time?: number; inOctets?: number; outOctets?: number; inGiga?: number; framedIp?: string }): string {
  const req: Record<string, string> = { 'User-Name': b.user ?? b.mac.replace(/:/g, ''), 'Calling-Station-Id': b.mac.toUpperCase().replace(/:/g, '-'), 'Acct-Status-Type': b.status, 'NAS-Port': '7' }
  if (b.sid) req['Acct-Session-Id'] = b.sid
  if (b.time !== undefined) req['Acct-Session-Time'] = String(b.time)
  if (b.inOctets !== undefined) req['Acct-Input-Octets'] = String(b.inOctets)
  if (b.outOctets !== undefined) req['Acct-Output-Octets'] = String(b.outOctets)
  if (b.inGiga !== undefined) req['Acct-Input-Gigawords'] = String(b.inGiga)
  if (b.framedIp) req['Framed-IP-Address'] = b.framedIp
  return linelog({ v: 1, kind: 'acct', ts: String(b.ts), us: '0', src: b.nas ?? '10.9.0.1', client: 'sw1', request: req, profiling: profiling(b), sensor: sensor(b) }) + '\n'
}

/** The file names the ingester tails (radius-auth-/radius-acct-YYYY-MM-DD.jsonl). */
export const AUTH_FILE = 'radius-auth-2026-11-27.jsonl'
export const ACCT_FILE = 'radius-acct-2026-11-27.jsonl'

/**
 * NAC sessions as the ingester makes them: accounting lines FreeRADIUS writes (`acctLine`), parsed by
 * the log reader and folded into sessions in one transaction, as services/observe.ts does. For tests
 * outside this plugin that need live sessions without running the daemon and the ingester.
 */
export async function recordAccounting(knex: Knex, lines: readonly string[]): Promise<void> {
  const events = lines.map((l) => {
    const r = parseFreeradiusLine(l.trim())
    if (r.kind !== 'acct') throw new Error(`not an accounting line: ${l}`)
    return r.event
  })
  await knex.transaction((trx) => applyAccounting(trx, events))
}
