/** The push factor's parts together, as the plugin's init builds them and its routes use them. */
import type { Knex } from 'knex'
import type { AuditService, IdentityService, Logger } from '../../../../sdk/index.js'
import { NonceWindow } from '../../../../sdk/index.js'
import type { MfaFactors } from '../../api.js'
import type { TotpStore } from '../totp-store.js'
import { PushChallenges } from './challenges.js'
import { isUuid, PushDevices } from './devices.js'
import { allowedFactors, UserFactors } from './factors.js'
import type { NotifyTarget } from './notify.js'

export interface PushFactor {
  devices: PushDevices
  factors: UserFactors
  challenges: PushChallenges
  /** The signed channel's key (server option mfa.push_service_key); null: push is off. */
  channelKey: string | null
  /** What the enrollment QR code names (mfa.push_public_url, else mfa.push_service_url). */
  publicUrl: string | null
  /** Nonces of the push service's signed requests seen lately (replays refused). */
  nonces: NonceWindow
  /** The core's release, in X-Service-Core-Version once a request's signature verified. */
  coreVersion: string
  factorsOf(userId: string, db?: Knex | Knex.Transaction): Promise<MfaFactors>
}

export function createPushFactor(o: {
  knex: Knex
  identity: IdentityService
  audit: AuditService
  log: Logger
  store: TotpStore
  target: NotifyTarget & { publicUrl: string | null }
  coreVersion: string
  timeoutSeconds: () => Promise<number>
}): PushFactor {
  const devices = new PushDevices(o.knex)
  const factors = new UserFactors(o.knex)
  const challenges = new PushChallenges({ knex: o.knex, identity: o.identity, devices, factors, audit: o.audit, log: o.log, target: () => o.target, timeoutSeconds: o.timeoutSeconds })
  return {
    devices,
    factors,
    challenges,
    channelKey: o.target.key,
    publicUrl: o.target.publicUrl ?? o.target.url,
    nonces: new NonceWindow(),
    coreVersion: o.coreVersion,
    async factorsOf(userId, db = o.knex) {
      if (!isUuid(userId)) return { totp: false, push: false, choice: null, allowed: [], pushLocked: false }
      const [totp, count, f] = await Promise.all([
        db('mfa_totp').where({ user_id: userId, confirmed: true }).first('user_id'),
        devices.count(userId, db),
        factors.get(userId, db),
      ])
      const base = { totp: !!totp, push: count > 0, choice: f.choice }
      return { ...base, allowed: allowedFactors(base), pushLocked: f.lockedAt !== null }
    },
  }
}
