/**
 * knex's pg dialect over a multi-host DATABASE_URL (hosts.ts). A new pooled
 * connection goes to the first host that fits `target_session_attrs`. When a
 * statement finds the server read-only (SQLSTATE 25006: the host it was on
 * was demoted, or a switchover kept its sockets), every connection made
 * before that moment is retired as it comes back to the pool, so the next
 * requests connect again and land on the new primary: no restart.
 */
import { createRequire } from 'node:module'
import pg from 'pg'
import { connectToSuitableHost, type DatabaseHosts } from './hosts.js'

const require = createRequire(import.meta.url)
// knex's own PostgreSQL client: this class changes only how a connection is made and kept.
const ClientPg = require('knex/lib/dialects/postgres/index.js') as new (config: object) => PgDialect

interface PgDialect {
  connectionSettings: pg.ClientConfig
  _query(connection: pg.Client, obj: object): Promise<unknown>
  validateConnection(connection: pg.Client): boolean | Promise<boolean>
}

type Pooled = pg.Client & { __knex__disposed?: unknown; __generation?: number }

export interface MultiHostState {
  /** The host index connections currently go to, and how often the pool was made to reconnect. */
  readonly host: string | null
  readonly reconnects: number
}

/** A knex `client` class for these hosts (one per knex: the state lives on the class's instance). */
export function multiHostClient(hosts: DatabaseHosts, onSwitch?: (e: { from: string | null; to: string; why: string }) => void) {
  // Shared by the pool's client and the copies knex makes of it for each transaction (Object.create of the
  // prototype, own fields copied): state kept on `this` would change only the copy a transaction ran on.
  const state = { generation: 0, preferred: 0, current: null as number | null, reconnects: 0 }
  const hostName = () => (state.current === null ? null : hosts.names[state.current])
  /** Connections of this generation and older go; the next host to try is the one after the read-only one. */
  const retire = (generation: number) => {
    if (generation !== state.generation) return
    state.generation++
    state.reconnects++
    if (state.current !== null) state.preferred = (state.current + 1) % hosts.urls.length
    onSwitch?.({ from: hostName(), to: '(the next host that is read-write)', why: 'the server became read-only' })
  }
  return class MultiHostClient extends ClientPg implements MultiHostState {
    get host() {
      return hostName()
    }

    get reconnects() {
      return state.reconnects
    }

    async _acquireOnlyConnection(): Promise<pg.Client> {
      const base = this.connectionSettings
      const generation = state.generation
      const { client, index } = await connectToSuitableHost(
        hosts,
        (url) => {
          // connectionString first, then the options knex was given (timeouts, application name, statement_timeout).
          const { connectionString: _ignored, ...options } = base
          return new pg.Client({ ...options, connectionString: url })
        },
        state.preferred,
      )
      const c = client as Pooled
      c.on('error', (err) => (c.__knex__disposed = err))
      c.on('end', () => (c.__knex__disposed ??= 'Connection ended unexpectedly'))
      c.__generation = generation
      if (state.current !== index) {
        const from = hostName()
        state.current = state.preferred = index
        if (from !== null) onSwitch?.({ from, to: hosts.names[index], why: 'connected to another host' })
      }
      return c
    }

    override async _query(connection: pg.Client, obj: object): Promise<unknown> {
      try {
        return await super._query(connection, obj)
      } catch (e) {
        if ((e as { code?: string }).code === '25006') retire((connection as Pooled).__generation ?? 0)
        throw e
      }
    }

    override validateConnection(connection: pg.Client): boolean {
      const c = connection as Pooled
      return !c.__knex__disposed && c.__generation === state.generation
    }
  }
}
