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
import { CommonErrors, isPortcullisError, jsonText, type IdentityService, type Logger, type SettingsService } from '../../../../sdk/index.js'
import type { InventoryService } from '../../../inventory/api.js'
import type { CoaAction, CoaRequestOptions, Endpoint, EndpointAuthorizationListener, NacCoaService } from '../../api.js'
import { CoaErrors } from '../../errors.js'
import { coaOnChange, coaPort, coaRetries, coaTimeoutMs } from '../../settings.js'
import { loadEndpoint, loadEndpointByMac } from '../rows.js'
import { buildRequest, CODE, type BuiltRequest, type Dialect } from './packet.js'
import { COA_NAS, COA_REQUESTS, COA_WAITING, COA_WAITING_SESSIONS, loadCoaRequest, type CoaRecordWithAttributes } from './records.js'
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
  /** To check, when a waiting Disconnect-Request goes, that the user's access is still ended (re-enabled meanwhile: nothing sent). */
  identity?: Pick<IdentityService, 'findUser'>
}

export interface CoaServiceImpl extends NacCoaService {
  send(endpointId: string, action: CoaAction, o: CoaRequestOptions): Promise<CoaRecordWithAttributes>
  /** Resolves the NAS and records the request as pending, in `db` (the route's transaction). Throws the 409s. */
  prepare(db: Db, endpoint: Endpoint, action: CoaAction, o: CoaRequestOptions): Promise<PreparedCoa>
  /** A FreeRADIUS release became active here: the CoAs that waited for it go now. */
  deployed(): Promise<void>
  /**
   * A user's access ended (disabled, deleted, network login off): each open session accounting names
   * them in (the username without regard to case) gets a Disconnect-Request, after the next
   * FreeRADIUS deploy when it waits for one, per `nac.coa_on_change` (`off`: nothing). Never throws.
   */
  userAccessEnded(username: string): Promise<void>
  /** Sends a prepared request (after its record committed) and records the answer. */
  dispatch(p: PreparedCoa): Promise<CoaRecordWithAttributes>
  /** At boot: a request left `pending` by a node that stopped mid-exchange is closed as `error`. */
  closeAbandoned(): Promise<number>
  /** At shutdown: drops the background requests not started yet (logged), and waits for those in flight. */
  drain(): Promise<void>
}

/** Whom a request is for: an endpoint (its last NAS), or a session (its NAS); the endpoint may be unknown for a session. */
interface CoaTarget {
  endpointId: string | null
  mac: string
  nasIp: string | null
  nasPort: string | null
}

/** Longer than any exchange can last (30 s × 6 transmissions at the settings' bounds). */
const ABANDONED_AFTER_MS = 10 * 60_000

/** `::ffff:10.0.0.1` is 10.0.0.1 to the NAS. */
const plainIp = (ip: string) => (/^::ffff:/i.test(ip) && isIPv4(ip.slice(7)) ? ip.slice(7) : ip)

export function createCoaService(d: CoaDeps): CoaServiceImpl {
  const { knex } = d

  const prepare = (db: Db, endpoint: Endpoint, action: CoaAction, o: CoaRequestOptions) =>
    prepareFor(db, { endpointId: endpoint.id, mac: endpoint.mac, nasIp: endpoint.last_nas_ip, nasPort: endpoint.last_nas_port }, action, o)

  /** The endpoint's last NAS, or the NAS of a session (its own address and port, which may not be the endpoint's last). */
  async function prepareFor(db: Db, target: CoaTarget, action: CoaAction, o: CoaRequestOptions): Promise<PreparedCoa> {
    const endpoint = { id: target.endpointId, mac: target.mac, last_nas_port: target.nasPort }
    if (!target.nasIp) throw CoaErrors.noNas({ field: 'endpoint_id', vars: { mac: target.mac } })
    const nasIp = plainIp(target.nasIp)
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
    await prepareAndDispatch({ endpointId: endpoint.id, mac: endpoint.mac, nasIp: endpoint.last_nas_ip, nasPort: endpoint.last_nas_port }, 'reauthenticate', { reason })
  }

  async function prepareAndDispatch(target: CoaTarget & { nasIp: string }, action: CoaAction, o: CoaRequestOptions): Promise<void> {
    let p: PreparedCoa
    try {
      p = await prepareFor(knex, target, action, o)
    } catch (e) {
      if (!isPortcullisError(e)) throw e
      const ip = plainIp(target.nasIp)
      await knex(COA_REQUESTS).insert({
        endpoint_id: target.endpointId,
        mac: target.mac,
        action,
        reason: o.reason,
        nas_ip: ip,
        result: 'error',
        error_detail: `${e.code}: ${e.code === 'COA_NAS_NO_SECRET' ? `the inventory device for ${ip} has no RADIUS secret` : `no enabled inventory device answers for ${ip}`}`,
      })
      return
    }
    await dispatch(p)
  }

  /** A Disconnect-Request for one session of a user whose access ended, unless it ended (or the access came back) meanwhile. */
  async function disconnectSession(w: { nas_ip: string; acct_session_id: string; username: string }): Promise<void> {
    const s = await knex('nac_sessions').where({ nas_ip: w.nas_ip, acct_session_id: w.acct_session_id }).first('mac', 'nas_port', 'stopped_at')
    if (!s || s.stopped_at || !s.mac) return
    if (d.identity) {
      const u = await d.identity.findUser({ username: w.username })
      const expired = u?.expires_at ? new Date(u.expires_at).getTime() <= Date.now() : false
      if (u && u.enabled && u.network_login && !expired) return
    }
    const endpoint = await loadEndpointByMac(knex, s.mac)
    await prepareAndDispatch({ endpointId: endpoint?.id ?? null, mac: s.mac, nasIp: w.nas_ip, nasPort: s.nas_port }, 'disconnect', { reason: 'user_access_ended', acctSessionId: w.acct_session_id })
  }

  // The background queue. An entry that waited for a deploy carries when it was picked: its row is
  // removed once its request is recorded, unless a newer change came meanwhile (that one waits on).
  const queue: (() => Promise<unknown>)[] = []
  const queueEndpoint = (id: string, reason: CoaRequestOptions['reason'], picked?: Date) =>
    queue.push(() =>
      automatic(id, reason)
        .then(() => (picked ? knex(COA_WAITING).where({ endpoint_id: id }).where('created_at', '<=', picked).delete() : 0))
        .catch((err: unknown) => d.log.error({ err, endpoint_id: id }, 'nac: automatic CoA failed')),
    )
  const queueSession = (w: { nas_ip: string; acct_session_id: string; username: string }, picked?: Date) =>
    queue.push(() =>
      disconnectSession(w)
        .then(() => (picked ? knex(COA_WAITING_SESSIONS).where({ nas_ip: w.nas_ip, acct_session_id: w.acct_session_id }).where('created_at', '<=', picked).delete() : 0))
        .catch((err: unknown) => d.log.error({ err, nas_ip: w.nas_ip, acct_session_id: w.acct_session_id }, 'nac: Disconnect-Request for a user whose access ended failed')),
    )
  let active = 0
  let waiters: (() => void)[] = []
  const pump = () => {
    while (active < CONCURRENCY && queue.length) {
      const job = queue.shift()!
      active++
      job()
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
        for (const id of ids) queueEndpoint(id, reason)
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
      const sessions = await knex(COA_WAITING_SESSIONS).where('created_at', '<=', picked).orderBy('created_at').select('nas_ip', 'acct_session_id', 'username')
      if ((await d.settings.get(coaOnChange)) === 'off') {
        await knex(COA_WAITING).where('created_at', '<=', picked).delete()
        await knex(COA_WAITING_SESSIONS).where('created_at', '<=', picked).delete()
        return
      }
      for (const r of rows) queueEndpoint(r.endpoint_id, r.reason, picked)
      for (const w of sessions) queueSession(w, picked)
      if (rows.length || sessions.length) setImmediate(pump)
    },
    async userAccessEnded(username) {
      try {
        if ((await d.settings.get(coaOnChange)) === 'off') return
        // Open sessions (live, or stale: accounting may have been lost while the NAS still holds them).
        const open = await knex('nac_sessions')
          .whereRaw('lower(username) = lower(?)', [username])
          .whereNull('stopped_at')
          .whereNotNull('mac')
          .orderBy('started_at')
          .select('nas_ip', 'acct_session_id')
        if (!open.length) return
        const waits = open.map((o) => ({ nas_ip: o.nas_ip, acct_session_id: o.acct_session_id, username, reason: 'user_access_ended' as const }))
        if (d.awaitDeploy) {
          await knex(COA_WAITING_SESSIONS).insert(waits).onConflict(['nas_ip', 'acct_session_id']).merge({ username, created_at: knex.fn.now() })
          return
        }
        for (const w of waits) queueSession(w)
        setImmediate(pump)
      } catch (err) {
        d.log.error({ err, username }, 'nac: could not find or record the sessions of a user whose access ended')
      }
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
