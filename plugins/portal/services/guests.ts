/** Guests as the admin API reads them, and the credentials of event accounts. */
import { randomInt } from 'node:crypto'
import argon2 from 'argon2'
import type { Knex } from 'knex'
import type { GuestResponse } from '../schemas/guests.js'
import type { GuestRow } from '../tables.js'

type Db = Knex | Knex.Transaction
export const GUESTS = 'portal_guests'

/** The kernel's argon2id parameters for local users' passwords (RFC 9106's second recommendation): a guest's password is kept as a user's is. */
const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 65536, timeCost: 3, parallelism: 4 } as const
export const hashGuestPassword = (pw: string) => argon2.hash(pw, ARGON2_OPTIONS)
export const guestPasswordMatches = (hash: string, pw: string) => argon2.verify(hash, pw).catch(() => false)

/** No 0/O, 1/l/I: read off a printed sheet and typed on a phone. */
const ALPHABET = 'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789'
/** 12 characters of 56: about 70 bits, from the CSPRNG. */
export const generatePassword = (length = 12) => Array.from({ length }, () => ALPHABET[randomInt(ALPHABET.length)]).join('')

const COLUMNS = [
  'g.id', 'g.portal_id', 'p.name as portal_name', 'g.kind', 'g.name', 'g.email', 'g.fields', 'g.username', 'g.event', 'g.sponsor_email', 'g.sponsor_user_id',
  'g.status', 'g.valid_from', 'g.valid_until', 'g.created_by', 'g.ended_at', 'g.created_at', 'g.updated_at',
]

type Row = Omit<GuestRow, 'password_hash'> & { portal_name: string; active_sessions: string | number }

/** Guests with their portal's name and their active sessions counted. */
export const selectGuests = (db: Db) =>
  db({ g: GUESTS })
    .join({ p: 'portal_portals' }, 'p.id', 'g.portal_id')
    .select(...COLUMNS, db.raw("(SELECT count(*) FROM portal_sessions s WHERE s.guest_id = g.id AND s.state = 'active') AS active_sessions"))

const iso = (d: Date | null) => d?.toISOString() ?? null

export const toGuest = (r: Row): GuestResponse => ({
  id: r.id,
  portal_id: r.portal_id,
  portal_name: r.portal_name,
  kind: r.kind,
  name: r.name,
  email: r.email,
  fields: r.fields,
  username: r.username,
  event: r.event,
  sponsor_email: r.sponsor_email,
  sponsor_user_id: r.sponsor_user_id,
  status: r.status,
  valid_from: iso(r.valid_from),
  valid_until: iso(r.valid_until),
  created_by: r.created_by,
  ended_at: iso(r.ended_at),
  active_sessions: Number(r.active_sessions),
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
})

export async function loadGuest(db: Db, id: string): Promise<GuestResponse | null> {
  const row = await selectGuests(db).where('g.id', id).first()
  return row ? toGuest(row as Row) : null
}
