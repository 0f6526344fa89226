/**
 * The collector's settings, from its command line and environment (it has no settings API; what it
 * fetches, how often and with which profile is decided by the core):
 *
 *   --state DIR / PORTCULLIS_COLLECTOR_STATE   where collector.json lives (./var/collector)
 *   --ca-file F / PORTCULLIS_COLLECTOR_CA_FILE extra CA certificates (PEM) for the core's HTTPS
 *   --concurrency N / PORTCULLIS_COLLECTOR_CONCURRENCY  SSH sessions at once (8; the core's
 *                                              max_concurrency for this collector caps it)
 *   LOG_LEVEL                                  info
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'

type Env = Readonly<Record<string, string | undefined>>

export const DEFAULT_STATE_DIR = './var/collector'
export const DEFAULT_CONCURRENCY = 8
export const MAX_CONCURRENCY = 64

const nonEmpty = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim())

export function stateDir(flag: string | undefined, env: Env): string {
  return path.resolve(nonEmpty(flag) ?? nonEmpty(env.PORTCULLIS_COLLECTOR_STATE) ?? DEFAULT_STATE_DIR)
}

export function caFile(flag: string | undefined, env: Env): string | null {
  return nonEmpty(flag) ?? nonEmpty(env.PORTCULLIS_COLLECTOR_CA_FILE) ?? null
}

/** The CA file's text; a missing file is said plainly (a wrong path would otherwise look like a TLS failure). */
export function readCa(file: string | null): string | null {
  if (!file) return null
  try {
    return readFileSync(file, 'utf8')
  } catch (err) {
    throw new Error(`the CA file ${file} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`)
  }
}

/** null when the value is not a whole number from 1 to 64. */
export function concurrency(flag: string | undefined, env: Env): number | null {
  const raw = nonEmpty(flag) ?? nonEmpty(env.PORTCULLIS_COLLECTOR_CONCURRENCY)
  if (raw === undefined) return DEFAULT_CONCURRENCY
  const n = Number(raw)
  return Number.isInteger(n) && n >= 1 && n <= MAX_CONCURRENCY ? n : null
}

export const logLevel = (env: Env) => nonEmpty(env.LOG_LEVEL) ?? 'info'
