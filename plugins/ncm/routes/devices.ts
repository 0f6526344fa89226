/**
 * Tracked devices: overrides (host, port, profile, credential, TACACS+ address), fetch now, the
 * host key reset, the fetch log, and the audited deletion of a device's configuration history.
 */
import type { Knex } from 'knex'
import { defineRoute, ErrorBody, likeEscape, paginate, reply, type RouteDefinition } from '../../../sdk/index.js'
import type { Device } from '../../inventory/api.js'
import { NcmErrors } from '../errors.js'
import { NCM_MANAGE, NCM_READ } from '../permissions.js'
import { DeviceList, DeviceListQuery, DeviceParams, DeviceUpdate, FetchList, FetchListQuery, FetchNow, HistoryDeleted, NcmDevice } from '../schemas/devices.js'
import type { NcmContext } from '../services/context.js'
import { hostOf } from '../services/reconcile.js'
import type { FetchRow, NcmDeviceRow } from '../tables.js'
import { checkReferences } from './schedules.js'

type Db = Knex | Knex.Transaction
const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString())

export const deviceView = (r: NcmDeviceRow, d: Device | undefined) => ({
  device_id: r.device_id,
  name: d?.name ?? '(deleted)',
  address: d?.address ?? '',
  host: d ? hostOf(d.address, r.host) : r.host,
  host_override: r.host,
  port: r.port,
  schedule_id: r.schedule_id,
  collector_id: r.collector_id,
  profile_id: r.profile_id,
  credential_id: r.credential_id,
  aaa_address: r.aaa_address,
  enabled: r.enabled,
  host_key_sha256: r.host_key_sha256,
  next_due_at: iso(r.next_due_at),
  last_fetch_at: iso(r.last_fetch_at),
  last_status: r.last_status,
  last_error: r.last_error,
  consecutive_failures: r.consecutive_failures,
  latest_version_id: r.latest_version_id,
})

const fetchView = (r: FetchRow) => ({
  id: r.id,
  collector_id: r.collector_id,
  leased_at: iso(r.leased_at)!,
  started_at: iso(r.started_at),
  finished_at: iso(r.finished_at),
  status: r.status,
  detail: r.detail,
  outcome: r.outcome,
  version_id: r.version_id,
})

export function deviceRoutes(c: NcmContext): RouteDefinition[] {
  const knex = c.database.knex
  const row = async (db: Db, id: string, lock = false): Promise<NcmDeviceRow> => {
    const q = db('ncm_devices').where({ device_id: id })
    const r = await (lock ? q.forUpdate() : q).first()
    if (!r) throw NcmErrors.deviceNotFound({ field: 'device_id' })
    return r
  }
  const view = async (db: Db, r: NcmDeviceRow) => deviceView(r, (await c.inventory.getDevice(r.device_id, db)) ?? undefined)
  return [
    defineRoute({
      method: 'GET',
      path: '/ncm/devices',
      permission: NCM_READ,
      summary: 'List tracked devices and their fetch status',
      tags: ['ncm'],
      schema: { query: DeviceListQuery, response: { 200: DeviceList } },
      handler: async ({ query }) => {
        const devices = new Map((await c.inventory.listDevices(knex)).map((d) => [d.id, d]))
        // The search also matches the inventory's name and address, which live in the inventory plugin.
        const term = query.search?.trim().toLowerCase()
        const named = term ? [...devices.values()].filter((d) => d.name.toLowerCase().includes(term) || d.address.toLowerCase().includes(term)).map((d) => d.id) : []
        const page = await paginate({ ...query, search: undefined }, {
          base: () => knex('ncm_devices'),
          equals: { collector_id: 'collector_id', last_status: 'last_status' },
          filter: (qb) => {
            if (!term) return
            const pattern = `%${likeEscape(term)}%`
            qb.where((w) => {
              w.orWhereRaw('?? ILIKE ?', ['host', pattern]).orWhereRaw('?? ILIKE ?', ['last_status', pattern])
              if (named.length) w.orWhereIn('device_id', named)
            })
          },
          searchColumns: [],
          sortColumns: { next_due_at: 'next_due_at', last_fetch_at: 'last_fetch_at' },
          defaultSort: 'next_due_at',
          defaultPerPage: 50,
          tieBreaker: 'device_id',
          map: (r: NcmDeviceRow) => r,
        })
        return { ...page, items: page.items.map((r) => deviceView(r, devices.get(r.device_id))) }
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/ncm/devices/{device_id}',
      permission: NCM_READ,
      summary: 'A tracked device',
      tags: ['ncm'],
      schema: { params: DeviceParams, response: { 200: NcmDevice, 404: ErrorBody } },
      handler: async ({ params }) => view(knex, await row(knex, params.device_id)),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/ncm/devices/{device_id}',
      permission: NCM_MANAGE,
      summary: "Override how a device's configuration is fetched",
      description: '422 NCM_DEVICE_NOT_HOST when the device would have no host to connect to (its address is a network and no host is set).',
      tags: ['ncm'],
      schema: { params: DeviceParams, body: DeviceUpdate, response: { 200: NcmDevice, 404: ErrorBody, 422: ErrorBody } },
      handler: async (req) =>
        req.transaction(async (trx) => {
          const id = req.params.device_id
          if (!(await c.inventory.references.device.lockExisting([id], trx)).size) throw NcmErrors.deviceNotFound({ field: 'device_id' })
          const device = (await c.inventory.getDevice(id, trx))!
          const b = req.body
          await checkReferences(trx, { credential_id: b.credential_id, profile_id: b.profile_id })
          const existing = await trx('ncm_devices').where({ device_id: id }).forUpdate().first()
          const host = b.host !== undefined ? b.host : (existing?.host ?? null)
          if (hostOf(device.address, host) === null) throw NcmErrors.deviceNotHost({ field: 'host', vars: { address: device.address } })
          const cols: Partial<Record<'host' | 'port' | 'profile_id' | 'credential_id' | 'aaa_address' | 'enabled', unknown>> = {}
          for (const k of ['host', 'port', 'profile_id', 'credential_id', 'aaa_address', 'enabled'] as const) if (b[k] !== undefined) cols[k] = b[k]
          if (!existing) await trx('ncm_devices').insert({ device_id: id, ...cols } as never)
          else await trx('ncm_devices').where({ device_id: id }).update({ ...cols, updated_at: new Date() } as never)
          const after = await row(trx, id)
          await req.audit({ action: 'ncm_device.update', resourceType: 'device', resourceId: id, before: existing ? deviceView(existing, device) : null, after: deviceView(after, device) }, trx)
          return deviceView(after, device)
        }),
    }),
    defineRoute({
      method: 'POST',
      path: '/ncm/devices/{device_id}/fetch',
      permission: NCM_MANAGE,
      summary: 'Fetch the configuration now',
      description: 'The device becomes due at once; a collector waiting on this node gets the job at once, on other nodes within a second. 202; the fetch log says how it went.',
      tags: ['ncm'],
      schema: { params: DeviceParams, response: { 202: FetchNow, 404: ErrorBody } },
      handler: async (req) => {
        const r = await req.transaction(async (trx) => {
          const before = await row(trx, req.params.device_id, true)
          const now = new Date()
          await trx('ncm_devices').where({ device_id: before.device_id }).update({ next_due_at: now })
          await req.audit({ action: 'ncm_device.fetch', resourceType: 'device', resourceId: before.device_id }, trx)
          return { collector: before.collector_id, at: now }
        })
        if (r.collector) c.wake.notify(r.collector)
        return reply({ status: 202, body: { next_due_at: r.at.toISOString() } })
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/ncm/devices/{device_id}/host-key/reset',
      permission: NCM_MANAGE,
      summary: "Forget a device's pinned SSH host key",
      description: 'The next fetch pins the key the device then shows. Do this only once you know why the key changed.',
      tags: ['ncm'],
      schema: { params: DeviceParams, response: { 200: NcmDevice, 404: ErrorBody } },
      handler: async (req) =>
        req.transaction(async (trx) => {
          const before = await row(trx, req.params.device_id, true)
          await trx('ncm_devices').where({ device_id: before.device_id }).update({ host_key_sha256: null, updated_at: new Date() })
          await req.audit({ action: 'ncm_device.host_key_reset', resourceType: 'device', resourceId: before.device_id, before: { host_key_sha256: before.host_key_sha256 }, after: { host_key_sha256: null } }, trx)
          return view(trx, await row(trx, before.device_id))
        }),
    }),
    defineRoute({
      method: 'GET',
      path: '/ncm/devices/{device_id}/fetches',
      permission: NCM_READ,
      summary: "A device's fetch log",
      tags: ['ncm'],
      schema: { params: DeviceParams, query: FetchListQuery, response: { 200: FetchList, 404: ErrorBody } },
      handler: async ({ params, query }) => {
        await row(knex, params.device_id)
        return paginate(query, { base: () => knex('ncm_fetches').where({ device_id: params.device_id }), searchColumns: ['status'], sortColumns: { leased_at: 'leased_at' }, defaultSort: 'leased_at', defaultPerPage: 50, tieBreaker: 'id', map: fetchView })
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/ncm/devices/{device_id}/history',
      permission: NCM_MANAGE,
      summary: "Delete a device's configuration history",
      description: 'Every stored version, configuration text and fetch of the device. Audited. Needed before the inventory can delete a device with stored configurations.',
      tags: ['ncm'],
      schema: { params: DeviceParams, response: { 200: HistoryDeleted, 404: ErrorBody } },
      handler: async (req) =>
        req.transaction(async (trx) => {
          const before = await row(trx, req.params.device_id, true)
          const counts = await forgetHistory(c, trx, [before.device_id])
          await trx('ncm_devices').where({ device_id: before.device_id }).update({ latest_version_id: null, updated_at: new Date() })
          await req.audit({ action: 'ncm_device.history_delete', resourceType: 'device', resourceId: before.device_id, before: counts }, trx)
          return counts
        }),
    }),
  ] as RouteDefinition[]
}

/** Deletes the versions, blobs and fetch log of the devices (and what the other parts keep per device). */
export async function forgetHistory(c: NcmContext, trx: Knex.Transaction, ids: readonly string[]): Promise<{ versions: number; blobs: number }> {
  await c.forget.run(trx, ids)
  const versions = await trx('ncm_versions').whereIn('device_id', ids).delete()
  const blobs = await trx('ncm_blobs').whereIn('device_id', ids).delete()
  await trx('ncm_fetches').whereIn('device_id', ids).delete()
  return { versions, blobs }
}
