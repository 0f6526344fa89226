/**
 * An administrator session token for an app the kit did not start itself (a
 * child process, a benchmark server): creates a real admin account in its
 * database and signs with its master key, as the gate expects.
 */
import { randomUUID } from 'node:crypto'
import pg from 'pg'
import { parseMasterKey } from '../../kernel/security/master-key.js'
import { TokenService } from '../../kernel/security/tokens.js'

export async function adminTokenFor(o: { databaseUrl: string; masterKey: string; ttlSeconds?: number }): Promise<string> {
  const id = randomUUID()
  const username = `kit-admin-${id.slice(0, 8)}`
  const c = new pg.Client({ connectionString: o.databaseUrl })
  await c.connect()
  try {
    await c.query(`INSERT INTO users (id, username, is_admin, source) VALUES ($1, $2, true, 'local')`, [id, username])
  } finally {
    await c.end()
  }
  return (await new TokenService(parseMasterKey(o.masterKey, 'masterKey')).issue({ sub: id, name: username, purpose: 'session', ttlSeconds: o.ttlSeconds ?? 3600 })).token
}
