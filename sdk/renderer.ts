/**
 * The one renderer contract: a pure function from a consistent database
 * snapshot to daemon files. Same data in, byte-identical files out.
 */
import type { Knex } from 'knex'

export interface RenderedFile {
  /** Path relative to the daemon's release folder. */
  path: string
  content: string
  /** Octal file mode; files holding secrets are 0o600. */
  mode: number
}

export interface ConfigRenderer {
  /** `<plugin-id>.<daemon>`, e.g. `tacacs.tac_plus-ng`. */
  id: string
  /** The daemon the files are for (a deploy target). */
  daemon: string
  /** `snapshot` is a repeatable-read transaction: read everything through it. */
  render(snapshot: Knex.Transaction): Promise<RenderedFile[]>
}
