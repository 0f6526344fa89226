/**
 * The core's side of notifications: `POST <mfa.push_service_url>/internal/v1/notify`, signed with
 * the channel key. A short timeout: a sign-in waits on it, and a push service that does not answer
 * quickly is down as far as the user is concerned (the push factor answers `unavailable`; TOTP
 * still works).
 */
import { signRequest } from '../../../../sdk/index.js'
import type { PushAddress } from './types.js'

export const NOTIFY_PATH = '/internal/v1/notify'
export const NOTIFY_TIMEOUT_MS = 3000

export interface PushNotification {
  device_id: string
  address: PushAddress
  payload: { type: 'challenge' | 'cancel'; challenge_id: string; burst_count: number }
}

export interface NotifyTarget {
  url: string | null
  key: string | null
}

/** True when the push service took the notifications (202). */
export async function notify(target: NotifyTarget, notifications: PushNotification[]): Promise<boolean> {
  if (!target.url || !target.key) return false
  if (!notifications.length) return true
  const body = JSON.stringify({ notifications })
  const headers = { 'content-type': 'application/json', ...signRequest(target.key, { method: 'POST', path: NOTIFY_PATH, body }) }
  try {
    const res = await fetch(target.url.replace(/\/+$/, '') + NOTIFY_PATH, { method: 'POST', headers, body, signal: AbortSignal.timeout(NOTIFY_TIMEOUT_MS) })
    await res.arrayBuffer().catch(() => undefined)
    return res.status === 202
  } catch {
    return false
  }
}
