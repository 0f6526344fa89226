/**
 * The captive portal's objects as the API answers them (typed by the routes of the generated
 * OpenAPI document, so a renamed field fails the type check), and the lists the screens offer.
 */
import type { paths } from '../generated/api'

type Got<P extends keyof paths> = paths[P] extends { get: { responses: { 200: { content: { 'application/json': infer J } } } } } ? J : never

export type Portal = Got<'/api/v1/captive-portal/portals/{portal_id}'>
export type Guest = Got<'/api/v1/captive-portal/guests/{guest_id}'>
export type PortalSession = Got<'/api/v1/captive-portal/sessions/{session_id}'>
export type Approval = Got<'/api/v1/captive-portal/approvals'>['items'][number]

export const METHODS = ['hotspot', 'self_registration', 'sponsored', 'byod'] as const
export const GUEST_KINDS = ['hotspot', 'self_registration', 'sponsored', 'account'] as const
export const GUEST_STATUSES = ['pending_code', 'pending_approval', 'active', 'denied', 'revoked', 'expired'] as const
export const SESSION_STATES = ['started', 'pending_code', 'pending_approval', 'active', 'denied', 'ended', 'expired'] as const
export const SESSION_METHODS = ['hotspot', 'self_registration', 'sponsored', 'account', 'byod'] as const

export const STATUS_COLOR: Record<string, string> = { active: 'green', pending_code: 'blue', pending_approval: 'blue', started: 'gray', denied: 'red', revoked: 'red', expired: 'gray', ended: 'gray' }

/** One a line in a textarea, as the API's array (blank lines dropped). */
export const lines = (s: string) => s.split('\n').map((x) => x.trim()).filter(Boolean)
