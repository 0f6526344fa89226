/**
 * The CoA service (NacCoaService in api.ts): finds the NAS that last saw an
 * endpoint, records the request, sends it and records the answer.
 *
 * The NAS is the inventory device FreeRADIUS answers the endpoint's last NAS
 * address as (`findRadiusClient`): its secret is the one that NAS shares with
 * FreeRADIUS, hence the one it checks a CoA with. The request goes to that
 * address (not the device's prefix), on the device's CoA port (nac_coa_nas)
 * or the setting `nac.coa_port`.
 *
 * Automatic requests (authorizationChanged) run in the background, at most
 * CONCURRENCY at a time, after the caller's commit: an API write never waits
 * for a NAS, nor fails because of one.
 */
import { randomInt } from 'node:crypto'
import { isIPv4 } from 'node:net'
import type { Knex } from 'knex'
import { CommonErrors, isPortcullisError, jsonText, type Logger, type SettingsService } from '../../../../sdk/index.js'
import type { InventoryService } from '../../../inventory/api.js'
import type { CoaAction, CoaRequestOptions, Endpoint, EndpointAuthorizationListener, NacCoaService } from '../../api.js'
import { CoaErrors } from '../../errors.js'
import { coaOnChange, coaPort, coaRetries, coaTimeoutMs } from '../../settings.js'
import { loadEndpoint } from '../rows.js'
import { buildRequest, CODE, type BuiltRequest, type Dialect } from './packet.js'
import { COA_NAS, COA_REQUESTS, COA_WAITING, loadCoaRequest, type CoaRecordWithAttributes } from './records.js'
import { exchange } from './transport.js'

type Db = Knex | Knex.Transaction

const CONCURRENCY = 16

/** A request recorded as pending, ready to go. */
export interface PreparedCoa {
  id: string
  request: BuiltRequest
  to: { ip: string; port: number }
  secret: string
}

export interface CoaDeps {
  knex: Knex
  settings: SettingsService
  inventory: InventoryService | undefined
  log: Logger
  /**
   * The NAC data reaches the NAS's RADIUS server through a rendered tree (the edition has the radius
   * plugin): an automatic CoA waits in `nac_coa_waiting` for the next FreeRADIUS deploy (`deployed()`),
   * or the switch would re-ask a daemon that still answers from before the change. False: sent at once.
   */
  awaitDeploy: boolean
}

export interface CoaServiceImpl extends NacCoaService {
  send(endpointId: string, action: CoaAction, o: CoaRequestOptions): Promise<CoaRecordWithAttributes>
  /** Resolves the NAS and records the request as pending, in `db` (the route's transaction). Throws the 409s. */
  prepare(db: Db, endpoint: Endpoint, action: CoaAction, o: CoaRequestOptions): Promise<PreparedCoa>
  /** A FreeRADIUS release became active here: the CoAs that waited for it go now. */
  deployed(): Promise<void>
  /** Sends a prepared request (after its record committed) and records the answer. */
  dispatch(p: PreparedCoa): Promise<CoaRecordWithAttributes>
  /** At boot: a request left `pending` by a node that stopped mid-exchange is closed as `error`. */
  closeAbandoned(): Promise<number>
  /** At shutdown: drops the background requests not started yet (logged), and waits for those in flight. */
  drain(): Promise<void>
}

/** Longer than any exchange can last (30 s × 6 transmissions at the settings' bounds). */
const ABANDONED_AFTER_MS = 10 * 60_000

/** `::ffff:10.0.0.1` is 10.0.0.1 to the NAS. */
const plainIp = (ip: string) => (/^::ffff:/i.test(ip) && isIPv4(ip.slice(7)) ? ip.slice(7) : ip)

export function createCoaService(d: CoaDeps): CoaServiceImpl {
  const { knex } = d

  async function prepare(db: Db, endpoint: Endpoint, action: CoaAction, o: CoaRequestOptions): Promise<PreparedCoa> {
    if (!endpoint.last_nas_ip) throw CoaErrors.noNas({ field: 'endpoint_id', vars: { mac: endpoint.mac } })
    const nasIp = plainIp(endpoint.last_nas_ip)
    const device = d.inventory ? await d.inventory.findRadiusClient(nasIp, db) : null
    if (!device) {
      const bare = d.inventory ? await d.inventory.findDeviceByAddress(nasIp, db) : null
      if (bare) throw CoaErrors.nasNoSecret({ field: 'endpoint_id', vars: { nas_ip: nasIp, device: bare.name } })
      throw CoaErrors.nasUnknown({ field: 'endpoint_id', vars: { nas_ip: nasIp } })
    }
    const secret = (await d.inventory!.deviceSecrets(device.id, db)).radius_secret
    if (!secret) throw CoaErrors.nasNoSecret({ field: 'endpoint_id', vars: { nas_ip: nasIp, device: device.name } })
    const override = await db(COA_NAS).where({ device_id: device.id }).first('port', 'dialect')
    const port = override?.port ?? (await d.settings.get(coaPort, db))
    const dialect: Dialect = override && override.dialect !== 'auto' ? override.dialect : /cisco/i.test(device.vendor ?? '') ? 'cisco' : 'rfc5176'
    const request = buildRequest(action, dialect, { mac: endpoint.mac, nasIp, acctSessionId: o.acctSessionId, nasPortId: o.nasPortId ?? endpoint.last_nas_port }, secret, randomInt(256))
    const [{ id }] = await db(COA_REQUESTS)
      .insert({
        endpoint_id: endpoint.id,
        mac: endpoint.mac,
        action,
        reason: o.reason,
        device_id: device.id,
        device_name: device.name,
        nas_ip: nasIp,
        nas_port: port,
        dialect,
        packet_code: request.code,
        attributes: jsonText(request.attributes),
        requested_by: o.requestedBy?.id ?? null,
        requested_by_username: o.requestedBy?.username ?? null,
        result: 'pending',
        sent_at: new Date(),
      })
      .returning('id')
    return { id, request, to: { ip: nasIp, port }, secret }
  }

  async function dispatch(p: PreparedCoa): Promise<CoaRecordWithAttributes> {
    const timeoutMs = await d.settings.get(coaTimeoutMs)
    const retries = await d.settings.get(coaRetries)
    const x = await exchange(p.request, p.to, p.secret, { timeoutMs, retries })
    const ack = x.outcome === 'answer' && (x.code === CODE.coaAck || x.code === CODE.disconnectAck)
    await knex(COA_REQUESTS)
      .where({ id: p.id })
      .update({
        result: x.outcome === 'answer' ? (ack ? 'ack' : 'nak') : x.outcome,
        error_cause: x.outcome === 'answer' ? x.errorCause : null,
        error_detail:
          x.outcome === 'error'
            ? x.detail.slice(0, 500)
            : x.outcome === 'bad_response'
              ? 'The NAS answered, but its answer failed the Response Authenticator check (a shared secret that differs from the inventory, or a forged answer): discarded.'
              : null,
        attempts: x.attempts,
        answered_at: x.outcome === 'answer' ? new Date() : null,
      })
    return (await loadCoaRequest(knex, p.id))!
  }

  async function send(endpointId: string, action: CoaAction, o: CoaRequestOptions) {
    const endpoint = await loadEndpoint(knex, endpointId)
    if (!endpoint) throw CommonErrors.notFound({ field: 'endpoint_id' })
    return dispatch(await prepare(knex, endpoint, action, o))
  }

  /** An automatic request that could not be sent is still recorded, so that an administrator sees why the NAS was not told. */
  async function automatic(endpointId: string, reason: CoaRequestOptions['reason']): Promise<void> {
    if ((await d.settings.get(coaOnChange)) === 'off') return
    const endpoint = await loadEndpoint(knex, endpointId)
    if (!endpoint?.last_nas_ip) return
    let p: PreparedCoa
    try {
      p = await prepare(knex, endpoint, 'reauthenticate', { reason })
    } catch (e) {
      if (!isPortcullisError(e)) throw e
      const ip = plainIp(endpoint.last_nas_ip)
      await knex(COA_REQUESTS).insert({
        endpoint_id: endpoint.id,
        mac: endpoint.mac,
        action: 'reauthenticate',
        reason,
        nas_ip: ip,
        result: 'error',
        error_detail: `${e.code}: ${e.code === 'COA_NAS_NO_SECRET' ? `the inventory device for ${ip} has no RADIUS secret` : `no enabled inventory device answers for ${ip}`}`,
      })
      return
    }
    await dispatch(p)
  }

  // The background queue. An entry that waited for a deploy carries when it was picked: its row is
  // removed once its request is recorded, unless a newer change came meanwhile (that one waits on).
  const queue: [string, CoaRequestOptions['reason'], Date?][] = []
  let active = 0
  let waiters: (() => void)[] = []
  const pump = () => {
    while (active < CONCURRENCY && queue.length) {
      const [id, reason, picked] = queue.shift()!
      active++
      automatic(id, reason)
        .then(() => (picked ? knex(COA_WAITING).where({ endpoint_id: id }).where('created_at', '<=', picked).delete() : 0))
        .catch((err: unknown) => d.log.error({ err, endpoint_id: id }, 'nac: automatic CoA failed'))
        .finally(() => {
          active--
          pump()
        })
    }
    if (!active && !queue.length) {
      const w = waiters
      waiters = []
      for (const f of w) f()
    }
  }

  return {
    send,
    prepare,
    dispatch,
    async closeAbandoned() {
      return knex(COA_REQUESTS)
        .where({ result: 'pending' })
        .where('created_at', '<', new Date(Date.now() - ABANDONED_AFTER_MS))
        .update({ result: 'error', error_detail: 'The node that sent the request stopped before the answer was recorded.' })
    },
    async drain() {
      if (queue.length) d.log.warn({ dropped: queue.length }, 'nac: shutting down; automatic CoAs not sent yet are dropped')
      queue.length = 0
      if (active) await new Promise<void>((resolve) => waiters.push(resolve))
    },
    authorizationChanged(endpointIds, reason) {
      const ids = [...new Set(endpointIds)]
      if (!d.awaitDeploy) {
        for (const id of ids) queue.push([id, reason])
        setImmediate(pump)
        return
      }
      if (!ids.length) return
      // The setting is read when the deploy comes: turning CoA off then also drops what waits.
      knex(COA_WAITING)
        .insert(ids.map((endpoint_id) => ({ endpoint_id, reason })))
        .onConflict('endpoint_id')
        .merge({ reason, created_at: knex.fn.now() })
        .catch((err: unknown) => d.log.error({ err, endpoints: ids.length }, 'nac: could not record the CoAs waiting for the next deploy'))
    },
    async deployed() {
      const picked = new Date()
      const rows = await knex(COA_WAITING).where('created_at', '<=', picked).orderBy('created_at').select('endpoint_id', 'reason')
      if ((await d.settings.get(coaOnChange)) === 'off') {
        await knex(COA_WAITING).where('created_at', '<=', picked).delete()
        return
      }
      for (const r of rows) queue.push([r.endpoint_id, r.reason, picked])
      if (rows.length) setImmediate(pump)
    },
    idle: () => (active || queue.length ? new Promise<void>((resolve) => waiters.push(resolve)) : Promise.resolve()),
  }
}

/**
 * The CoA side of the "endpoint authorization changed" event: a change of group is a `group_change`,
 * of device type alone a `device_type_change` (profiling or an admin), each endpoint once.
 */
export function coaOnAuthorizationChange(coa: Pick<NacCoaService, 'authorizationChanged'>): EndpointAuthorizationListener {
  return (changes) => {
    const group = changes.filter((c) => c.before.endpoint_group_id !== c.after.endpoint_group_id).map((c) => c.endpoint_id)
    const type = changes.filter((c) => c.before.endpoint_group_id === c.after.endpoint_group_id).map((c) => c.endpoint_id)
    if (group.length) coa.authorizationChanged(group, 'group_change')
    if (type.length) coa.authorizationChanged(type, 'device_type_change')
  }
}
