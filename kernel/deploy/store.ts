/**
 * Releases in the database: the source every node's agent materializes its
 * release folders from (kernel/cluster/agent.ts), so a release deployed on
 * one node reaches every node, and a rollback works from any node.
 *
 * Content-addressed: each file's text is stored once under the sha256 of the
 * text (a file that did not change between releases costs one row in
 * release_files, not another copy), sealed with the master key (purpose
 * `release-file`): the files hold device keys and password verifiers, which
 * the rest of the database keeps sealed too. The release's secret values (for
 * masking its views) are one more entry, under the secrets file's name.
 */
import type { Knex } from 'knex'
import type { ConfigRenderer, RenderedFile, SecretsService } from '../../sdk/index.js'
import { declaredSecrets, safeRelative, SECRETS_FILE, sha256 } from './files.js'

const PURPOSE = 'release-file'
/** Inserts per statement: PostgreSQL takes at most 65,535 parameters. */
const BATCH = 500

export interface StoredRelease {
  /** The rendered files with their declared modes (no `secrets` on them: see `secrets`). */
  files: RenderedFile[]
  /** The secret values the release was rendered with (files.ts SECRETS_FILE). */
  secrets: string[]
}

/** A declared mode as the table keeps it: octal digits, e.g. `0600`. */
const modeText = (m: number) => '0' + (m & 0o7777).toString(8).padStart(3, '0')

/** Store `files` as the release of deploy `deployId` (in the transaction that records it). */
export async function saveRelease(trx: Knex.Transaction, secrets: SecretsService, deployId: string, files: readonly RenderedFile[]): Promise<void> {
  const entries = files.map((f) => ({ path: safeRelative(f.path), content: f.content, mode: modeText(f.mode) }))
  entries.push({ path: SECRETS_FILE, content: JSON.stringify(declaredSecrets(files)), mode: '0600' })
  const byHash = new Map(entries.map((e) => [sha256(e.content), e.content] as const))
  const hashes = [...byHash.keys()]
  const known = new Set<string>()
  for (let i = 0; i < hashes.length; i += BATCH) for (const r of await trx('release_blobs').whereIn('sha256', hashes.slice(i, i + BATCH)).select('sha256')) known.add(r.sha256)
  const fresh = hashes.filter((h) => !known.has(h)).map((h) => ({ sha256: h, content: secrets.encrypt(PURPOSE, byHash.get(h)!), size: Buffer.byteLength(byHash.get(h)!) }))
  for (let i = 0; i < fresh.length; i += BATCH) await trx('release_blobs').insert(fresh.slice(i, i + BATCH)).onConflict('sha256').ignore()
  const rows = entries.map((e) => ({ deploy_id: deployId, path: e.path, sha256: sha256(e.content), mode: e.mode }))
  for (let i = 0; i < rows.length; i += BATCH) await trx('release_files').insert(rows.slice(i, i + BATCH))
}

/** Whether the database still holds the files of deploy `deployId` (deploy.keep_releases prunes them). */
export async function releaseStored(knex: Knex, deployId: string): Promise<boolean> {
  return !!(await knex('release_files').where({ deploy_id: deployId }).first('path'))
}

/**
 * The files of deploy `deployId` as stored, each checked against its hash (a row altered in the
 * database is refused, never written to a daemon's folder); null when none are stored.
 */
export async function loadRelease(knex: Knex, secrets: SecretsService, deployId: string): Promise<StoredRelease | null> {
  const rows = await knex('release_files as f')
    .join('release_blobs as b', 'b.sha256', 'f.sha256')
    .where('f.deploy_id', deployId)
    .orderBy('f.path')
    .select('f.path', 'f.mode', 'f.sha256', 'b.content')
  if (!rows.length) return null
  const texts = await secrets.decryptMany(PURPOSE, rows.map((r) => r.content))
  const files: RenderedFile[] = []
  let declared: string[] = []
  rows.forEach((r, i) => {
    if (sha256(texts[i]) !== r.sha256) throw new Error(`stored file ${r.path} of deploy ${deployId} does not match its hash`)
    if (r.path === SECRETS_FILE) declared = (JSON.parse(texts[i]) as unknown[]).filter((x): x is string => typeof x === 'string')
    else files.push({ path: r.path, content: texts[i], mode: parseInt(r.mode, 8) })
  })
  return { files, secrets: declared }
}

/**
 * deploy.keep_releases in the database: the files of a daemon's releases beyond the newest `keep`
 * activated ones are removed (never the active one's), then every text no release names.
 * Run under the cluster's deploy lock, so no deploy is adding references meanwhile.
 */
export async function pruneStore(knex: Knex, daemon: string, keep: number): Promise<number> {
  const kept = knex('deploys').where({ daemon }).whereNotNull('activated_at').orderBy('created_at', 'desc').limit(keep).select('id')
  const gone = await knex('release_files')
    .whereIn('deploy_id', knex('deploys').where({ daemon }).whereNot({ status: 'active' }).whereNotIn('id', kept).select('id'))
    .delete()
  if (gone) await knex('release_blobs').whereNotExists(knex('release_files').whereRaw('release_files.sha256 = release_blobs.sha256').select(knex.raw('1'))).delete()
  return gone
}

const CLEARTEXT_PURPOSE = 'release-cleartext'

/** The cleartext-credential names of a release (ConfigRenderer.cleartextIn), sealed for its manifest: they are hashes of passwords. */
export const sealCleartextNames = (secrets: SecretsService, names: readonly string[]): string => secrets.encrypt(CLEARTEXT_PURPOSE, JSON.stringify([...new Set(names)].sort()))

const openNames = (secrets: SecretsService, sealed: unknown): string[] => {
  if (typeof sealed !== 'string') return []
  try {
    return JSON.parse(secrets.decrypt(CLEARTEXT_PURPOSE, sealed)) as string[]
  } catch {
    return []
  }
}

/**
 * The release's manifest beside its files: who rendered it (and their plugins' versions), from which
 * database snapshot, and (sealed) the cleartext credentials it holds, for purgeStoredCleartext.
 */
export function releaseManifest(secrets: SecretsService, renderers: { owner: string; renderer: ConfigRenderer }[], pluginVersion: (plugin: string) => string | null, snapshot: string, files: RenderedFile[]) {
  return {
    renderers: renderers.map((r) => ({ id: r.renderer.id, plugin: r.owner, version: pluginVersion(r.owner) })),
    snapshot,
    cleartext: sealCleartextNames(secrets, renderers.flatMap((r) => r.renderer.cleartextIn?.(files) ?? [])),
  }
}

/** The sealed cleartext names of a deploy's manifest, opened. */
export const manifestCleartext = (secrets: SecretsService, manifest: unknown): string[] =>
  openNames(secrets, manifest && typeof manifest === 'object' ? (manifest as { cleartext?: unknown }).cleartext : undefined)

/**
 * The database side of purgeCleartext (housekeeping.ts): the stored files of every other release of
 * `daemon` holding a cleartext credential the active one (`kept`) does not are removed, so no node
 * can write them to disk again and no rollback can bring them back (DEPLOY_RELEASE_MISSING).
 */
export async function purgeStoredCleartext(knex: Knex, secrets: SecretsService, daemon: string, activeId: string, kept: ReadonlySet<string>): Promise<string[]> {
  const rows = await knex('deploys').where({ daemon }).whereNot({ id: activeId }).whereExists(knex('release_files').whereRaw('release_files.deploy_id = deploys.id').select(knex.raw('1'))).select('id', 'manifest')
  const gone = rows.filter((r) => manifestCleartext(secrets, r.manifest).some((n) => !kept.has(n))).map((r) => r.id)
  if (!gone.length) return []
  await knex('release_files').whereIn('deploy_id', gone).delete()
  await knex('release_blobs').whereNotExists(knex('release_files').whereRaw('release_files.sha256 = release_blobs.sha256').select(knex.raw('1'))).delete()
  return gone
}
