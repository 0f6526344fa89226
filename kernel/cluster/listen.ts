/**
 * PostgreSQL LISTEN for the node agent: a deploy or rollback commits with
 * `pg_notify('portcullis_release', daemon)`, and every node listening hears
 * it at once. One dedicated connection (outside the pool: a pooled one would
 * go back to the pool and stop listening), reconnected after a loss with a
 * growing pause; the agent's polling covers the gap.
 */
import pg from 'pg'
import type { Logger } from '../../sdk/index.js'
import { connectToSuitableHost, parseDatabaseHosts } from '../db/hosts.js'

export const RELEASE_CHANNEL = 'portcullis_release'

export function listenForReleases(databaseUrl: string, onRelease: () => void, log: Logger): { stop(): Promise<void> } {
  let client: pg.Client | null = null
  let stopped = false
  let retryMs = 500
  let timer: NodeJS.Timeout | undefined
  /** Said once per loss, not at each attempt to reconnect: the agent polls meanwhile. */
  let lostSaid = false
  // A multi-host URL: the listener goes where writes go (the primary commits the notifications; a standby
  // relays none), and after a failover it finds the new primary as the pool does.
  const hosts = parseDatabaseHosts(databaseUrl)
  let preferred = 0
  const retry = (why: string) => {
    if (stopped) return
    if (!lostSaid) log.info({ err: why }, 'release notifications lost: the node agent polls until it can listen again')
    lostSaid = true
    timer = setTimeout(() => void connect(), retryMs)
    timer.unref()
    retryMs = Math.min(retryMs * 2, 10_000)
  }
  const connect = async () => {
    if (stopped) return
    let c: pg.Client
    try {
      const found = await connectToSuitableHost(hosts, (url) => new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000, application_name: 'portcullis-agent' }), preferred)
      c = found.client
      preferred = found.index
    } catch (e) {
      retry((e as Error).message)
      return
    }
    if (stopped) {
      await c.end().catch(() => undefined)
      return
    }
    client = c
    const lost = (why: string) => {
      if (client !== c) return
      client = null
      c.removeAllListeners()
      c.on('error', () => undefined)
      void c.end().catch(() => undefined)
      retry(why)
    }
    c.on('error', (e) => lost(e.message))
    c.on('end', () => lost('connection ended'))
    c.on('notification', () => onRelease())
    try {
      await c.query(`LISTEN ${RELEASE_CHANNEL}`)
      retryMs = 500
      if (lostSaid) log.info('release notifications heard again')
      lostSaid = false
      // Whatever was committed while not listening: the agent looks once now.
      onRelease()
    } catch (e) {
      lost((e as Error).message)
    }
  }
  void connect()
  return {
    async stop() {
      stopped = true
      clearTimeout(timer)
      const c = client
      client = null
      if (c) {
        c.removeAllListeners()
        c.on('error', () => undefined)
        await c.end().catch(() => undefined)
      }
    },
  }
}
