/**
 * Backups of a running installation, for the command line (`portcullis
 * backup FILE`) and the API (`POST /api/v1/backups`). The archive format is
 * manifest.ts's; what goes in, dump.ts.
 */
import { randomUUID } from 'node:crypto'
import { createReadStream, createWriteStream, existsSync, renameSync, rmSync, statSync } from 'node:fs'
import path from 'node:path'
import type { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { DatabaseService } from '../../sdk/index.js'
import type { MigrationOwner } from '../db/migrate.js'
import { masterKeyUnavailable } from '../security/secrets.js'
import { archiveStream, type ArchiveStream, type BackupSource, type BackupSummary } from './dump.js'

export interface BackupServiceOptions {
  db: DatabaseService
  /** The unlocked master key; null on a node started without one (no backup then: the manifest could not be sealed). */
  key: Buffer | null
  version: string
  nodeId: string
  owners: MigrationOwner[]
  dataDir: string
}

export class BackupService {
  constructor(private readonly o: BackupServiceOptions) {}

  private source(): BackupSource {
    if (!this.o.key) throw masterKeyUnavailable()
    return { db: this.o.db, key: this.o.key, version: this.o.version, nodeId: this.o.nodeId, owners: this.o.owners }
  }

  /** A name that says what and when: `portcullis-0.1.0-20261128T084400Z.tar.gz`. */
  fileName(now = new Date()): string {
    return `portcullis-${this.o.version}-${now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}.tar.gz`
  }

  /** Writes the archive to `out` (stdout, say) and resolves when all of it is written. */
  async toStream(out: Writable): Promise<BackupSummary> {
    const { stream, done } = archiveStream(this.source())
    const [summary] = await Promise.all([done, pipeline(stream, out, { end: false })])
    return summary
  }

  /**
   * Writes the archive to `file`, never over an existing one, and never a
   * half archive under that name: it is written beside it, then renamed.
   */
  async toFile(file: string): Promise<BackupSummary & { bytes: number }> {
    if (existsSync(file)) throw new Error(`${file} exists already: give a new file name`)
    const tmp = path.join(path.dirname(path.resolve(file)), `.${path.basename(file)}.${randomUUID().slice(0, 8)}.tmp`)
    try {
      const { stream, done } = archiveStream(this.source())
      const [summary] = await Promise.all([done, pipeline(stream, createWriteStream(tmp, { mode: 0o600, flags: 'wx' }))])
      renameSync(tmp, file)
      return { ...summary, bytes: statSync(file).size }
    } finally {
      rmSync(tmp, { force: true })
    }
  }

  /**
   * The archive for an HTTP answer. On PostgreSQL it is made while the client
   * reads it (a pooled connection holds the snapshot meanwhile). The embedded
   * engine has one connection for every request, which a slow client must not
   * hold: the archive is written under DATA_DIR first, then sent and removed.
   */
  async open(): Promise<ArchiveStream> {
    if (this.o.db.engine === 'postgres') {
      // Answered once the snapshot is taken: the archive is as of the request, whatever is written while it is read.
      const a = archiveStream(this.source())
      await a.snapshot
      return a
    }
    const file = path.join(this.o.dataDir, `.backup-${randomUUID()}.tar.gz`)
    try {
      const summary = await this.toFile(file)
      const stream = createReadStream(file)
      stream.once('close', () => rmSync(file, { force: true }))
      return { stream, done: Promise.resolve(summary), snapshot: Promise.resolve() }
    } catch (e) {
      rmSync(file, { force: true })
      throw e
    }
  }
}
