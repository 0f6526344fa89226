/** The daemon's current release as the API shows it (GET …/config): its files from disk, and the deploy that activated it. */
import type { Knex } from 'knex'
import { releaseMasker, type DeployedConfig } from '../../sdk/index.js'
import { readCurrentRelease, releasesDir, sha256 } from './files.js'

/**
 * The files of the daemon's current release as read from disk, with the deploy that activated it; null without one.
 * Unless `reveal`, every secret the release was rendered with is masked, and the size and hash are of the masked text.
 */
export async function deployedConfig(knex: Knex, dataDir: string, daemon: string, reveal: boolean): Promise<DeployedConfig | null> {
  const current = readCurrentRelease(releasesDir(dataDir, daemon))
  if (!current) return null
  const cur = current.release
  const row = await knex('deploys').where({ daemon, release: cur }).orderBy('created_at', 'desc').first()
  const mask = releaseMasker(current.secrets ?? [])
  const files = current.files.map((f) => {
    const content = reveal ? f.content : mask(f.content)
    return { path: f.path, mode: f.mode, content, size: Buffer.byteLength(content), sha256: sha256(content) }
  })
  return {
    daemon,
    release: cur,
    deploy_id: row?.id ?? '',
    activated_at: row?.activated_at ? new Date(row.activated_at).toISOString() : (row ? new Date(row.created_at).toISOString() : new Date(0).toISOString()),
    files,
  }
}
