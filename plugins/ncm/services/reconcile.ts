/**
 * Keeps ncm_devices in step with the schedules: every inventory device in a scheduled group (or a
 * descendant of one; the nearest schedule wins) gets a row, with that schedule's collector while the
 * device and the schedule are enabled. A device that leaves every scheduled group keeps its row and
 * history, without a collector. Run by the jobs long poll (at most every 30 s per node) and by every
 * schedule write in its transaction. The long poll's pass also trims the fetch log.
 */
import { createHash } from 'node:crypto'
import type { Knex } from 'knex'
import type { Device } from '../../inventory/api.js'
import { ncmFetchLogDays } from '../settings.js'
import type { NcmDeviceRow, ScheduleRow } from '../tables.js'
import type { NcmContext } from './context.js'

/**
 * How often the long poll reconciles on this node. A test seam (the tests set it to 0 so an
 * inventory change is seen at the next poll without waiting 30 s); nothing in the API reaches it.
 */
export const reconcilePace = { everyMs: 30_000 }
/** First fetches are spread over this much (or the interval, when shorter), by a hash of the device id. */
const FIRST_SPREAD_SECONDS = 600

/** The address a collector connects to: the override, else the inventory address when it is one host. */
export function hostOf(address: string, override: string | null): string | null {
  if (override) return override
  const m = /^(.*)\/(\d+)$/.exec(address)
  if (!m) return address
  const v6 = m[1].includes(':')
  return (v6 && m[2] === '128') || (!v6 && m[2] === '32') ? m[1] : null
}

export const spreadSeconds = (deviceId: string, intervalMinutes: number): number =>
  createHash('sha256').update(deviceId).digest().readUInt32BE(0) % Math.max(1, Math.min(intervalMinutes * 60, FIRST_SPREAD_SECONDS))

export class Reconciler {
  private last = 0

  constructor(private readonly c: NcmContext) {}

  /** At most every 30 s on this node. */
  async maybe(): Promise<void> {
    if (Date.now() - this.last < reconcilePace.everyMs) return
    this.last = Date.now()
    await this.c.database.knex.transaction((trx) => this.run(trx))
    // The fetch log keeps `ncm.fetch_log_days`; a job still leased stays.
    const days = await this.c.settings.get(ncmFetchLogDays)
    await this.c.database.knex('ncm_fetches')
      .where('leased_at', '<', new Date(Date.now() - days * 86_400_000))
      .whereNot('status', 'leased')
      .delete()
  }

  /** The next long poll reconciles at once. */
  soon(): void {
    this.last = 0
  }

  async run(trx: Knex.Transaction): Promise<void> {
    const schedules = await trx('ncm_schedules').select()
    const byGroup = new Map<string, ScheduleRow>(schedules.map((s) => [s.device_group_id, s]))
    const devices = schedules.length ? await this.c.inventory.listDevices(trx) : []
    const ancestry = new Map<string, ScheduleRow | null>()
    const scheduleOf = async (d: Device): Promise<ScheduleRow | null> => {
      if (!d.device_group_id) return null
      if (!ancestry.has(d.device_group_id)) {
        const chain = await this.c.inventory.groupAncestry(d.device_group_id, trx)
        ancestry.set(d.device_group_id, chain.map((g) => byGroup.get(g)).find((s) => s !== undefined) ?? null)
      }
      return ancestry.get(d.device_group_id) ?? null
    }
    const want = new Map<string, { schedule: ScheduleRow; collector: string | null }>()
    for (const d of devices) {
      const s = await scheduleOf(d)
      if (s) want.set(d.id, { schedule: s, collector: s.enabled && d.enabled ? s.collector_id : null })
    }
    const rows = new Map<string, Pick<NcmDeviceRow, 'device_id' | 'schedule_id' | 'collector_id'>>(
      (await trx('ncm_devices').select('device_id', 'schedule_id', 'collector_id')).map((r) => [r.device_id, r]),
    )
    const now = Date.now()
    for (const [id, w] of want) {
      const r = rows.get(id)
      if (!r) {
        await trx('ncm_devices')
          .insert({ device_id: id, schedule_id: w.schedule.id, collector_id: w.collector, next_due_at: new Date(now + spreadSeconds(id, w.schedule.interval_minutes) * 1000) })
          .onConflict('device_id')
          .merge(['schedule_id', 'collector_id'])
      } else if (r.schedule_id !== w.schedule.id || r.collector_id !== w.collector) {
        await trx('ncm_devices').where({ device_id: id }).update({ schedule_id: w.schedule.id, collector_id: w.collector, updated_at: new Date() })
      }
    }
    const gone = [...rows.values()].filter((r) => !want.has(r.device_id) && (r.schedule_id !== null || r.collector_id !== null)).map((r) => r.device_id)
    if (gone.length) await trx('ncm_devices').whereIn('device_id', gone).update({ schedule_id: null, collector_id: null, updated_at: new Date() })
  }
}
