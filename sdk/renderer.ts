/**
 * The one renderer contract: a pure function from a consistent database
 * snapshot to daemon files. Same data in, byte-identical files out. The deploy
 * pipeline (kernel) writes them to a new release folder, runs the daemon's own
 * check when its binary is present, and only then makes the release current.
 */
import type { Knex } from 'knex'

export interface RenderedFile {
  /** Path relative to the daemon's release folder. */
  path: string
  content: string
  /** Octal file mode; files holding secrets are 0o600. */
  mode: number
}

/** The daemon's own configuration check, run on a release folder before it is activated. */
export interface DaemonCheck {
  /** The binary: an absolute path, or a name looked up on PATH. Absent binary: the check is skipped, and the deploy says so. */
  binary: string
  /** Arguments for checking the release in `releaseDir` (e.g. `['-C', '-d', releaseDir]`). */
  args: (releaseDir: string) => string[]
  /** Treat any output on stderr as a failure (tac_plus-ng reports some errors there with exit 0). */
  stderrIsFailure?: boolean
}

export interface ConfigRenderer {
  /** `<plugin-id>.<daemon>`, e.g. `tacacs.tac_plus-ng`. */
  id: string
  /** The daemon the files are for (a deploy target). */
  daemon: string
  /** `snapshot` is a repeatable-read transaction: read everything through it. */
  render(snapshot: Knex.Transaction): Promise<RenderedFile[]>
  /** How to check a rendered release with the daemon itself (read from the plugin's settings at deploy time); null: no check configured. */
  check?: () => Promise<DaemonCheck | null>
}
