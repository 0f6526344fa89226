/**
 * An administrator session token for an app the kit did not start itself (a
 * child process, a benchmark server): creates a real admin account in its
 * database and signs with its master key, as the gate expects.
 */
import { randomUUID } from 'node:crypto'
import pg from 'pg'
import { readMasterKey } from '../../kernel/security/master-key.js'
import { TokenService } from '../../kernel/security/tokens.js'
import { derivePassphraseKey, parseKdfParams } from '../../kernel/security/unlock.js'

export async function adminTokenFor(o: { databaseUrl: string; masterKey: string; ttlSeconds?: number }): Promise<string> {
  const id = randomUUID()
  const username = `kit-admin-${id.slice(0, 8)}`
  const material = readMasterKey(o.masterKey, 'masterKey')
  let key = material.kind === 'key' ? material.key : null
  const c = new pg.Client({ connectionString: o.databaseUrl })
  await c.connect()
  try {
    await c.query(`INSERT INTO users (id, username, is_admin, source) VALUES ($1, $2, true, 'local')`, [id, username])
    // A passphrase is stretched with the salt the app recorded, as the app itself does.
    if (material.kind === 'passphrase') {
      const { rows } = await c.query<{ value: string }>(`SELECT value FROM kernel_meta WHERE key = 'master_key_kdf'`)
      key = await derivePassphraseKey(material.passphrase, parseKdfParams(rows[0].value))
    }
  } finally {
    await c.end()
  }
  return (await new TokenService(key!).issue({ sub: id, name: username, purpose: 'session', ttlSeconds: o.ttlSeconds ?? 3600 })).token
}
