/**
 * What a node answers while it waits for the schema to arrive by replication
 * (its database is a standby; only the node on the primary migrates): the
 * orchestrator must see the process alive (`/healthz` 200) and not ready
 * (`/ready` 503), both saying `schema: "waiting"`; every other request is a
 * 503 SCHEMA_WAITING in the envelope, to be retried. Served before the
 * plugins are initialised, so it depends on nothing but the database ping.
 */
import type http from 'node:http'
import { randomUUID } from 'node:crypto'
import { SECURITY_HEADERS } from './transport.js'
import { negotiateLanguage, type Translator } from '../i18n.js'

export interface SchemaWaitView {
  version: string
  edition: { id: string; name: string }
  plugins: { id: string; version: string }[]
  startedAt: Date
  masterKeyLoaded: boolean
  /** `select 1`, bounded in time. */
  ping(): Promise<boolean>
  i18n: Translator
}

function send(res: http.ServerResponse, status: number, body: unknown, extra: Record<string, string> = {}) {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
    'X-API-Version': '1',
    'X-Request-ID': randomUUID(),
    ...extra,
  })
  res.end(text)
}

export function schemaWaitHandler(v: SchemaWaitView): http.RequestListener {
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0]
    if (req.method === 'GET' && path === '/healthz') return send(res, 200, { status: 'ok', schema: 'waiting' })
    if (req.method === 'GET' && path === '/ready') {
      void v.ping().then((up) =>
        send(res, 503, {
          status: 'degraded',
          version: v.version,
          edition: v.edition,
          plugins: v.plugins,
          uptime_seconds: Math.floor((Date.now() - v.startedAt.getTime()) / 1000),
          checks: { database: up ? 'ok' : 'unreachable', master_key: v.masterKeyLoaded ? 'loaded' : 'missing', schema: 'waiting' },
        }),
      )
      return
    }
    const detail = v.i18n.t(negotiateLanguage(req.headers['accept-language']), 'core:errors.schema_waiting', {})
    send(res, 503, { detail, code: 'SCHEMA_WAITING', field: null }, { 'Retry-After': '5' })
  }
}
