/**
 * The push factor while no push service is wired in: nobody has a device, and a push asked for
 * anyway is `unavailable`. The daemons' surface then behaves as it did before push existed.
 */
import type { PushProvider } from './types.js'

export const PUSH_OFF: PushProvider = {
  hasDevice: async () => false,
  start: async () => ({ sent: false, refusal: 'unavailable' }),
  wait: async () => 'cancelled',
  cancel: async () => {},
}
