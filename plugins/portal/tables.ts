/**
 * The portal's tables as its code reads them (sdk/tables.ts), from
 * migrations/0001_portal.ts: knex types every query on them, and the kernel
 * checks these declarations against the database at every boot.
 */
import { column, defineTable, type RowOf, type TableType } from '../../sdk/index.js'

export const PORTAL_METHODS = ['hotspot', 'self_registration', 'sponsored', 'byod'] as const
export type PortalMethod = (typeof PORTAL_METHODS)[number]

/** How a guest came to be: a portal method, or an account an administrator made for an event. */
export const GUEST_KINDS = ['hotspot', 'self_registration', 'sponsored', 'account'] as const
export type GuestKind = (typeof GUEST_KINDS)[number]

export const GUEST_STATUSES = ['pending_code', 'pending_approval', 'active', 'denied', 'revoked', 'expired'] as const
export type GuestStatus = (typeof GUEST_STATUSES)[number]

/** A portal session's method: the guest's kind, or an employee's own device. */
export type SessionMethod = GuestKind | 'byod'
export const SESSION_STATES = ['started', 'pending_code', 'pending_approval', 'active', 'denied', 'ended', 'expired'] as const
export type SessionState = (typeof SESSION_STATES)[number]
export type SessionEndReason = 'admin' | 'expired' | 'revoked' | 'replaced' | 'user_access_ended'

export interface SelfRegistrationField {
  /** The key the value is stored under (letters, digits, `_`). */
  name: string
  label: { en: string; ru?: string }
  required: boolean
}

export interface PortalTexts {
  title?: string
  welcome?: string
  terms?: string
}

export interface PortalBranding {
  /** `#rrggbb`. */
  primary_colour?: string
  background_colour?: string
  texts?: { en?: PortalTexts; ru?: PortalTexts }
}

export const PortalTable = defineTable('portal_portals', {
  id: column.uuid().defaulted(),
  name: column.text(),
  slug: column.text(),
  description: column.text().nullable(),
  enabled: column.boolean().defaulted(),
  methods: column.jsonb<PortalMethod[]>().defaulted(),
  nas_ips: column.jsonb<string[]>().defaulted(),
  ssids: column.jsonb<string[]>().defaulted(),
  accept_unsigned_redirect: column.boolean().defaulted(),
  /** NAC endpoint groups, through nacService.references.endpoint_group (no foreign key). */
  guest_endpoint_group_id: column.uuid().nullable(),
  byod_endpoint_group_id: column.uuid().nullable(),
  guest_minutes: column.integer().defaulted(),
  byod_days: column.integer().nullable(),
  byod_device_limit: column.integer().defaulted(),
  byod_onboarding: column.text<'none' | 'certificate'>().defaulted(),
  self_registration_fields: column.jsonb<SelfRegistrationField[]>().defaulted(),
  sponsor_domains: column.jsonb<string[]>().defaulted(),
  /** A kernel user group whose members may sponsor (a capability by membership: portal.sponsor). */
  sponsor_group_id: column.uuid().nullable(),
  sponsor_link_minutes: column.integer().defaulted(),
  branding: column.jsonb<PortalBranding>().defaulted(),
  logo: column.bytea().nullable(),
  logo_type: column.text().nullable(),
  created_at: column.timestamp().defaulted(),
  updated_at: column.timestamp().defaulted(),
})
export type PortalRow = RowOf<typeof PortalTable>

export const GuestTable = defineTable('portal_guests', {
  id: column.uuid().defaulted(),
  portal_id: column.uuid(),
  kind: column.text<GuestKind>(),
  name: column.text().nullable(),
  email: column.text().nullable(),
  fields: column.jsonb<Record<string, string>>().defaulted(),
  username: column.text().nullable(),
  /** argon2id; never leaves the plugin. */
  password_hash: column.text().nullable(),
  event: column.text().nullable(),
  sponsor_email: column.text().nullable(),
  sponsor_user_id: column.uuid().nullable(),
  status: column.text<GuestStatus>(),
  valid_from: column.timestamp().nullable(),
  valid_until: column.timestamp().nullable(),
  created_by: column.uuid().nullable(),
  ended_at: column.timestamp().nullable(),
  created_at: column.timestamp().defaulted(),
  updated_at: column.timestamp().defaulted(),
})
export type GuestRow = RowOf<typeof GuestTable>

export const SessionTable = defineTable('portal_sessions', {
  id: column.uuid().defaulted(),
  portal_id: column.uuid(),
  guest_id: column.uuid().nullable(),
  user_id: column.uuid().nullable(),
  method: column.text<SessionMethod>().nullable(),
  mac: column.text(),
  endpoint_id: column.uuid().nullable(),
  endpoint_group_id: column.uuid().nullable(),
  nas_ip: column.text().nullable(),
  ssid: column.text().nullable(),
  redirect_signed: column.boolean().defaulted(),
  client_ip: column.text().nullable(),
  language: column.text().nullable(),
  /** sha256 hex of the guest session token. */
  token_hash: column.text(),
  state: column.text<SessionState>(),
  registered_at: column.timestamp().nullable(),
  expires_at: column.timestamp().nullable(),
  ended_at: column.timestamp().nullable(),
  end_reason: column.text<SessionEndReason>().nullable(),
  coa_request_id: column.uuid().nullable(),
  created_at: column.timestamp().defaulted(),
  updated_at: column.timestamp().defaulted(),
})
export type SessionRow = RowOf<typeof SessionTable>

export const CodeTable = defineTable('portal_codes', {
  id: column.uuid().defaulted(),
  session_id: column.uuid(),
  email: column.text(),
  code_hash: column.text(),
  failures: column.integer().defaulted(),
  expires_at: column.timestamp(),
  spent_at: column.timestamp().nullable(),
  created_at: column.timestamp().defaulted(),
})

export const SponsorRequestTable = defineTable('portal_sponsor_requests', {
  id: column.uuid().defaulted(),
  session_id: column.uuid(),
  guest_id: column.uuid(),
  sponsor_email: column.text(),
  sponsor_user_id: column.uuid().nullable(),
  token_hash: column.text(),
  status: column.text<'pending' | 'approved' | 'denied' | 'expired'>().defaulted(),
  expires_at: column.timestamp(),
  decided_via: column.text<'link' | 'api'>().nullable(),
  decided_by: column.uuid().nullable(),
  decided_at: column.timestamp().nullable(),
  created_at: column.timestamp().defaulted(),
})
export type SponsorRequestRow = RowOf<typeof SponsorRequestTable>

export const portalTables = [PortalTable, GuestTable, SessionTable, CodeTable, SponsorRequestTable]

declare module 'knex/types/tables.js' {
  interface Tables {
    portal_portals: TableType<typeof PortalTable>
    portal_guests: TableType<typeof GuestTable>
    portal_sessions: TableType<typeof SessionTable>
    portal_codes: TableType<typeof CodeTable>
    portal_sponsor_requests: TableType<typeof SponsorRequestTable>
  }
}
