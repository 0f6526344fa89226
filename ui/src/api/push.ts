/**
 * The push factor's calls for a user: their own (the session, or on the setup page the mailed
 * setup token) or, with `userId`, another user's as an administrator with mfa.manage sees them
 * (the server applies the manage-another-user rule). One set of screens serves both.
 */
import { api } from './client'

export type FactorChoice = 'totp' | 'push' | 'both'

export function pushCalls(userId?: string) {
  const u = userId ? { user_id: userId } : null
  return {
    key: (what: string) => ['push', what, userId ?? 'me'],
    factors: () => (u ? api.get('/api/v1/users/{user_id}/mfa/factors', { params: u }) : api.get('/api/v1/mfa/factors')),
    setFactors: (factors: FactorChoice) => (u ? api.put('/api/v1/users/{user_id}/mfa/factors', { params: u, body: { factors } }) : api.put('/api/v1/mfa/factors', { body: { factors } })),
    clearLock: () => (u ? api.delete('/api/v1/users/{user_id}/mfa/push-lock', { params: u }) : api.delete('/api/v1/mfa/push-lock')),
    devices: () => (u ? api.get('/api/v1/users/{user_id}/mfa/push-devices', { params: u }) : api.get('/api/v1/mfa/push-devices')),
    rename: (deviceId: string, name: string) =>
      u ? api.patch('/api/v1/users/{user_id}/mfa/push-devices/{device_id}', { params: { ...u, device_id: deviceId }, body: { name } }) : api.patch('/api/v1/mfa/push-devices/{device_id}', { params: { device_id: deviceId }, body: { name } }),
    remove: (deviceId: string) =>
      u ? api.delete('/api/v1/users/{user_id}/mfa/push-devices/{device_id}', { params: { ...u, device_id: deviceId } }) : api.delete('/api/v1/mfa/push-devices/{device_id}', { params: { device_id: deviceId } }),
  }
}

export type PushDevice = Awaited<ReturnType<ReturnType<typeof pushCalls>['devices']>>['items'][number]
