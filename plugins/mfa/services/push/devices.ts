/**
 * Phones enrolled for push approvals, and the one-time tokens of the QR code that enrolls them.
 * A token is 32 random bytes (base64url) kept only as its sha256, good for 10 minutes and once:
 * redeeming it and creating the device happen in one transaction, and the "unused" check is the
 * update's own condition, so two phones racing with one QR code get one device.
 */
import { createHash, randomBytes } from 'node:crypto'
import type { Knex } from 'knex'
import type { PushAlgorithm, PushDeviceRow } from '../../tables.js'
import type { PushAddress } from './types.js'

export const ENROLLMENT_TOKEN_SECONDS = 600

const hashOf = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex')

export interface NewDevice {
  name: string
  algorithm: PushAlgorithm
  publicKey: string
  address: PushAddress
}

export class PushDevices {
  constructor(private readonly knex: Knex) {}

  async createEnrollment(userId: string, db: Knex | Knex.Transaction = this.knex): Promise<{ token: string; expiresAt: Date }> {
    const token = randomBytes(32).toString('base64url')
    const expiresAt = new Date(Date.now() + ENROLLMENT_TOKEN_SECONDS * 1000)
    // Expired tokens go as new ones come: the table holds at most the live ones and a few stale.
    await db('mfa_push_enrollment').where('expires_at', '<', new Date()).delete()
    await db('mfa_push_enrollment').insert({ token_hash: hashOf(token), user_id: userId, expires_at: expiresAt })
    return { token, expiresAt }
  }

  /** The user a live, unused token enrolls (not spending it), or null. */
  async tokenUser(token: string, db: Knex | Knex.Transaction = this.knex): Promise<string | null> {
    if (typeof token !== 'string' || token.length > 200) return null
    const row = await db('mfa_push_enrollment').where({ token_hash: hashOf(token) }).whereNull('used_at').where('expires_at', '>', new Date()).first('user_id')
    return row?.user_id ?? null
  }

  /** Spends the token and adds the device; null when the token was spent meanwhile. */
  async redeem(token: string, userId: string, d: NewDevice, trx: Knex.Transaction): Promise<PushDeviceRow | null> {
    const spent = await trx('mfa_push_enrollment')
      .where({ token_hash: hashOf(token), user_id: userId })
      .whereNull('used_at')
      .where('expires_at', '>', new Date())
      .update({ used_at: new Date() })
    if (spent !== 1) return null
    const [row] = await trx('mfa_push_device')
      .insert({ user_id: userId, name: d.name, algorithm: d.algorithm, public_key: d.publicKey, address: d.address })
      .returning('*')
    return row as PushDeviceRow
  }

  async get(deviceId: string, db: Knex | Knex.Transaction = this.knex): Promise<PushDeviceRow | null> {
    if (!isUuid(deviceId)) return null
    return ((await db('mfa_push_device').where({ id: deviceId }).first()) as PushDeviceRow | undefined) ?? null
  }

  async list(userId: string, db: Knex | Knex.Transaction = this.knex): Promise<PushDeviceRow[]> {
    return (await db('mfa_push_device').where({ user_id: userId }).orderBy('created_at').orderBy('id')) as PushDeviceRow[]
  }

  async count(userId: string, db: Knex | Knex.Transaction = this.knex): Promise<number> {
    const [r] = await db('mfa_push_device').where({ user_id: userId }).count<{ n: number | string }[]>('id as n')
    return Number(r?.n ?? 0)
  }

  async rename(userId: string, deviceId: string, name: string, db: Knex | Knex.Transaction = this.knex): Promise<PushDeviceRow | null> {
    if (!isUuid(deviceId)) return null
    const [row] = await db('mfa_push_device').where({ id: deviceId, user_id: userId }).update({ name }).returning('*')
    return (row as PushDeviceRow | undefined) ?? null
  }

  async remove(userId: string, deviceId: string, db: Knex | Knex.Transaction = this.knex): Promise<PushDeviceRow | null> {
    if (!isUuid(deviceId)) return null
    const [row] = await db('mfa_push_device').where({ id: deviceId, user_id: userId }).delete().returning('*')
    return (row as PushDeviceRow | undefined) ?? null
  }

  async seen(deviceId: string): Promise<void> {
    await this.knex('mfa_push_device').where({ id: deviceId }).update({ last_seen_at: new Date() })
  }
}

export const isUuid = (s: unknown): s is string => typeof s === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s)
