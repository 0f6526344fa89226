/**
 * Commands a plugin adds to the `portcullis` command line. The kernel lists
 * them (`portcullis help`) and dispatches them by name; it knows no plugin's
 * command itself. A command that names services in `deps` runs inside the
 * booted platform (the server's configuration, database, migrations,
 * settings, server options, secrets, node id), without serving HTTP and
 * without the plugins' background work; a command without `deps` (a probe
 * that talks to a daemon) runs without touching the database.
 */
import type { ResolvedDeps, ServiceRef } from './service-ref.js'

/** What a command may do to the terminal and the process. */
export interface CliIo {
  /** One line to standard output (the command's result). */
  out(line?: string): void
  /** Text to standard error as is (progress, warnings; add your own newline). */
  err(text: string): void
  /** The environment the command was started with. */
  readonly env: Readonly<Record<string, string | undefined>>
  /** Aborted on SIGINT or SIGTERM: a long-running command finishes what it is doing and returns. */
  readonly signal: AbortSignal
}

/** Wrong arguments: the kernel prints the message and the command's usage, and exits with status 2. */
export class CliUsageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'CliUsageError'
  }
}

export interface CliCommand<D extends Record<string, ServiceRef<unknown>> = Record<string, ServiceRef<unknown>>> {
  /** `<plugin-id>-<word>` (lower case, hyphens): `tacacs-probe`, `aaa-logs-replay`. */
  name: string
  /** One line for `portcullis help`. */
  summary: string
  /** The arguments after the name, e.g. `--host H [--port 49] FILE`. */
  usage: string
  /** Services the command needs: core services, the plugin's own, or those of plugins it depends on. */
  deps?: D
  /**
   * Runs the command with the arguments after its name; resolves to the exit
   * status (0 success, 1 failure). Throw CliUsageError for wrong arguments
   * (node:util parseArgs's own errors count as such too).
   */
  run(args: string[], io: CliIo, deps: ResolvedDeps<D>): Promise<number>
}

/** Identity function that types `run`'s deps from the `deps` map. */
export const defineCliCommand = <D extends Record<string, ServiceRef<unknown>> = {}>(c: CliCommand<D>): CliCommand<D> => c

/** `--port`, `--batch` …: a whole number in a range, or a usage error naming the option. */
export function cliInteger(value: string | undefined, option: string, min: number, max: number, def: number): number {
  if (value === undefined) return def
  const n = Number(value)
  if (!Number.isInteger(n) || n < min || n > max) throw new CliUsageError(`--${option} must be a whole number from ${min} to ${max}`)
  return n
}

/** A required option, or a usage error naming it. */
export function cliRequired(value: string | undefined, option: string): string {
  if (value === undefined || value === '') throw new CliUsageError(`--${option} is required`)
  return value
}
