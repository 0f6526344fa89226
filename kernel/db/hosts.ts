/**
 * A libpq multi-host connection URL, as PostgreSQL's own clients take it:
 *
 *   postgres://user:pw@10.0.0.1:5432,10.0.0.2:5432,10.0.0.3/portcullis?target_session_attrs=read-write
 *
 * node-postgres connects to one host only, so the hosts are tried here, in
 * order, and a server is kept only when it is what `target_session_attrs`
 * asks for (libpq's rules: `read-write` is the default with several hosts,
 * so after a Patroni failover the node finds the new primary by itself).
 * A URL naming one host and no `target_session_attrs` is taken as is.
 */
import type { Knex } from 'knex'
import pg from 'pg'
import { BootError } from '../boot-error.js'

export type TargetSessionAttrs = 'any' | 'read-write' | 'read-only' | 'primary' | 'standby' | 'prefer-standby'
const ATTRS: readonly TargetSessionAttrs[] = ['any', 'read-write', 'read-only', 'primary', 'standby', 'prefer-standby']

export interface DatabaseHosts {
  /** One single-host URL per host, in the order given, without `target_session_attrs`. */
  urls: string[]
  /** `host:port` of each, for logs and errors. */
  names: string[]
  attrs: TargetSessionAttrs
  /** Hosts are probed (several hosts, or `target_session_attrs` given). */
  probed: boolean
}

const URL_SHAPE = /^(postgres(?:ql)?:\/\/)(?:([^@/?#]*)@)?([^/?#]*)(\/[^?#]*)?(\?[^#]*)?$/

/** Split `[v6]:port,host:port,host` into hosts; a host without a port is on 5432. */
function splitHosts(list: string): { host: string; port: string }[] {
  return list.split(',').map((h) => {
    const m = /^(\[[^\]]+\]|[^:]*)(?::(\d{1,5}))?$/.exec(h.trim())
    if (!m || !m[1]) throw new BootError('CONFIG_INVALID', `DATABASE_URL: cannot read the host "${h}"`)
    return { host: m[1], port: m[2] ?? '5432' }
  })
}

export function parseDatabaseHosts(url: string, variable = 'DATABASE_URL'): DatabaseHosts {
  const m = URL_SHAPE.exec(url.trim())
  if (!m) {
    // Not a URL (a keyword string or something odd): node-postgres reads it, one host.
    return { urls: [url], names: ['(as given)'], attrs: 'any', probed: false }
  }
  const [, scheme, userinfo, hostList, pathPart = '', query = ''] = m
  const params = new URLSearchParams(query.slice(1))
  const given = params.get('target_session_attrs')
  params.delete('target_session_attrs')
  if (given !== null && !ATTRS.includes(given as TargetSessionAttrs)) {
    throw new BootError('CONFIG_INVALID', `${variable}: target_session_attrs must be one of ${ATTRS.join(', ')}, got "${given}"`)
  }
  const hosts = hostList ? splitHosts(hostList) : [{ host: '', port: '' }]
  const rest = params.toString()
  const urls = hosts.map((h) => `${scheme}${userinfo !== undefined ? userinfo + '@' : ''}${h.host}${h.host && h.port ? ':' + h.port : ''}${pathPart}${rest ? '?' + rest : ''}`)
  const attrs = (given as TargetSessionAttrs | null) ?? (hosts.length > 1 ? 'read-write' : 'any')
  return { urls, names: hosts.map((h) => `${h.host}:${h.port}`), attrs, probed: hosts.length > 1 || given !== null }
}

/** What the server behind a connection is: libpq asks the same two questions. */
export async function sessionKind(c: pg.Client): Promise<{ readOnly: boolean; standby: boolean }> {
  const r = await c.query<{ ro: string; rec: boolean }>("select current_setting('transaction_read_only') as ro, pg_is_in_recovery() as rec")
  return { readOnly: r.rows[0].ro === 'on', standby: r.rows[0].rec }
}

export function acceptable(attrs: TargetSessionAttrs, k: { readOnly: boolean; standby: boolean }): boolean {
  switch (attrs) {
    case 'any':
    case 'prefer-standby':
      return true
    case 'read-write':
      return !k.readOnly
    case 'read-only':
      return k.readOnly
    case 'primary':
      return !k.standby
    case 'standby':
      return k.standby
  }
}

/** No host was what the URL asks for: an outage to the HTTP layer (SQLSTATE class 08), 503. */
export class NoSuitableHostError extends Error {
  readonly code = '08001'
  constructor(readonly tried: string[]) {
    super(`no database host is usable: ${tried.join('; ')}`)
  }
}

/**
 * Connect to the first host that fits, starting from `preferred` (the host
 * that fitted last time: most connections need one attempt). For
 * `prefer-standby`, a standby first, then any. `make` builds the client for a
 * single-host URL (the caller adds its options).
 */
export async function connectToSuitableHost(
  hosts: DatabaseHosts,
  make: (url: string) => pg.Client,
  preferred = 0,
): Promise<{ client: pg.Client; index: number }> {
  const order = hosts.urls.map((_, i) => (i + preferred) % hosts.urls.length)
  const tried: string[] = []
  let fallback: { client: pg.Client; index: number } | null = null
  for (const i of order) {
    const c = make(hosts.urls[i])
    try {
      await c.connect()
      if (!hosts.probed) return { client: c, index: i }
      const kind = await sessionKind(c)
      if (hosts.attrs === 'prefer-standby' && !kind.standby) {
        if (fallback) await c.end().catch(() => undefined)
        else fallback = { client: c, index: i }
        continue
      }
      if (acceptable(hosts.attrs, kind)) {
        if (fallback) await fallback.client.end().catch(() => undefined)
        return { client: c, index: i }
      }
      tried.push(`${hosts.names[i]} is ${kind.standby ? 'a standby' : 'read-only'}`)
      await c.end().catch(() => undefined)
    } catch (e) {
      tried.push(`${hosts.names[i]}: ${(e as Error).message}`)
      c.removeAllListeners()
      c.on('error', () => undefined)
      await c.end().catch(() => undefined)
    }
  }
  if (fallback) return fallback
  throw new NoSuitableHostError(tried)
}

/** The server behind the pool is a hot standby (in recovery): this node must not migrate nor write. */
export async function isStandby(knex: Knex): Promise<boolean> {
  const r = (await knex.raw('select pg_is_in_recovery() as rec')) as { rows: { rec: boolean }[] }
  return r.rows[0].rec === true
}
