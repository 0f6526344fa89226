/**
 * The TACACS+ commands a set of devices saw in a time window, for another plugin (configuration
 * tracking's "who changed it"): authorization and accounting records that carry a command, newest
 * first. Read where the log lists read (the replica when it is fresh enough): a few seconds stale
 * is fine for an answer about the past.
 */
import { isIP } from 'node:net'
import type { DatabaseService } from '../../../sdk/index.js'
import type { TacacsCommandRecord, TacacsCommandsQuery } from '../api.js'

/** The most records one call returns, whatever `limit` asks. */
export const TACACS_COMMANDS_MAX = 5000

interface Row {
  kind: 'authorization' | 'accounting'
  id: string
  timestamp: Date | string
  username: string
  nas_ip: string | null
  device_name: string | null
  client_address: string | null
  session_id: string | null
  action: string
  command: string
  priv_lvl: number | null
}

/**
 * One query over both tables, each side bounded by the same `(nas_ip, timestamp DESC)` index walk
 * (migration 0001), then merged: `limit + 1` rows tell whether there were more.
 */
export async function tacacsCommands(database: DatabaseService, q: TacacsCommandsQuery): Promise<{ items: TacacsCommandRecord[]; truncated: boolean }> {
  // Only addresses reach the literal: anything else cannot match an inet column anyway.
  const ips = [...new Set(q.nasIps.map((a) => a.trim()).filter((a) => isIP(a) !== 0))]
  const limit = Math.max(0, Math.min(TACACS_COMMANDS_MAX, Math.floor(q.limit)))
  if (!ips.length || limit === 0 || !(q.from < q.to)) return { items: [], truncated: false }
  const inet = `{${ips.join(',')}}`
  const side = (table: string, kind: string, priv: string) =>
    `(SELECT '${kind}' AS kind, id, timestamp, username, host(nas_ip) AS nas_ip, device_name, client_address, session_id, action, command, ${priv} AS priv_lvl
       FROM ${table}
      WHERE nas_ip = ANY(?::inet[]) AND timestamp > ? AND timestamp <= ? AND command IS NOT NULL AND command <> ''
      ORDER BY timestamp DESC, id DESC LIMIT ?)`
  const sql = `SELECT * FROM (${side('aaa_log_tacacs_authz', 'authorization', 'priv_lvl')} UNION ALL ${side('aaa_log_tacacs_acct', 'accounting', 'NULL::smallint')}) r
    ORDER BY timestamp DESC, id DESC LIMIT ?`
  const from = q.from.toISOString()
  const to = q.to.toISOString()
  const rows = await database.read(async (r) => (await r.knex.raw<{ rows: Row[] }>(sql, [inet, from, to, limit + 1, inet, from, to, limit + 1, limit + 1])).rows)
  return {
    items: rows.slice(0, limit).map((x) => ({
      kind: x.kind,
      id: x.id,
      timestamp: new Date(x.timestamp).toISOString(),
      username: x.username,
      nas_ip: x.nas_ip,
      device_name: x.device_name,
      client_address: x.client_address,
      session_id: x.session_id,
      action: x.action,
      command: x.command,
      priv_lvl: x.priv_lvl === null ? null : Number(x.priv_lvl),
    })),
    truncated: rows.length > limit,
  }
}
