/** Portal sessions as the admin API reads them. */
import type { Knex } from 'knex'
import type { SessionResponse } from '../schemas/sessions.js'
import type { SessionRow } from '../tables.js'

type Db = Knex | Knex.Transaction
export const SESSIONS = 'portal_sessions'

const COLUMNS = [
  's.id', 's.portal_id', 'p.name as portal_name', 's.guest_id', 'g.name as guest_name', 'g.username as guest_username', 's.user_id', 's.method', 's.mac', 's.endpoint_id',
  's.endpoint_group_id', 's.nas_ip', 's.ssid', 's.redirect_signed', 's.client_ip', 's.language', 's.state', 's.registered_at', 's.expires_at', 's.ended_at', 's.end_reason',
  's.coa_request_id', 's.created_at', 's.updated_at',
]

type Row = Omit<SessionRow, 'token_hash'> & { portal_name: string; guest_name: string | null; guest_username: string | null }

export const selectSessions = (db: Db) =>
  db({ s: SESSIONS })
    .join({ p: 'portal_portals' }, 'p.id', 's.portal_id')
    .leftJoin({ g: 'portal_guests' }, 'g.id', 's.guest_id')
    .select(...COLUMNS)

const iso = (d: Date | null) => d?.toISOString() ?? null

export const toSession = (r: Row): SessionResponse => ({
  ...r,
  registered_at: iso(r.registered_at),
  expires_at: iso(r.expires_at),
  ended_at: iso(r.ended_at),
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
})

export async function loadSession(db: Db, id: string): Promise<SessionResponse | null> {
  const row = await selectSessions(db).where('s.id', id).first()
  return row ? toSession(row as Row) : null
}
