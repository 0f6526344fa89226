/**
 * The collector as objects, for collector/cli.ts and the tests: `enrollCollector` (once, with the
 * admin's one-time token: new keys, the enrollment request, the state file) and `createCollector`
 * (from the state file: a signing client and the job pool).
 */
import type { KeyObject } from 'node:crypto'
import { pino, type Logger } from 'pino'
import { rawPublicKey, type EnrollAnswer } from '../sdk/collector-protocol.js'
import { readCa } from './config.js'
import { CoreClient, checkCoreUrl, type StatusAnswer } from './core-client.js'
import { JobPool } from './pool.js'
import type { SessionOutcome, SessionTarget } from './ssh/session.js'
import { newKeys, pem, readState, stateKeys, statePath, writeState, type CollectorState } from './state.js'

export const silentLog = (): Logger => pino({ level: 'silent' })

export interface EnrollOptions {
  coreUrl: string
  token: string
  name: string
  stateDir: string
  caFile?: string | null
  /** Tests only: the contract token sent (an old collector's). */
  contract?: string
}

/** Enrolls with a one-time token and writes the state file. Re-enrolling (a new token) replaces both keys. */
export async function enrollCollector(o: EnrollOptions): Promise<{ answer: EnrollAnswer; state: CollectorState; file: string }> {
  const url = checkCoreUrl(o.coreUrl)
  const keys = newKeys()
  const client = new CoreClient({ coreUrl: url.origin, ca: readCa(o.caFile ?? null), keyid: 'enroll', signKey: keys.sign, ...(o.contract ? { contract: o.contract } : {}) })
  const answer = await client.enroll({ token: o.token, name: o.name, ed25519_public_key: rawPublicKey(keys.sign), x25519_public_key: rawPublicKey(keys.open) })
  const state: CollectorState = {
    collector_id: answer.collector_id,
    name: answer.name,
    core_url: url.origin,
    ca_file: o.caFile ?? null,
    ed25519_private_key: pem(keys.sign),
    x25519_private_key: pem(keys.open),
    enrolled_at: new Date().toISOString(),
  }
  writeState(o.stateDir, state)
  return { answer, state, file: statePath(o.stateDir) }
}

export interface CollectorOptions {
  stateDir: string
  concurrency: number
  /** Overrides the CA file named at enrollment. */
  caFile?: string | null
  log?: Logger
  /** Tests: a shorter long poll, a faster retry after a refusal, another contract, a stand-in SSH engine. */
  waitSeconds?: number
  refusedPollMs?: number
  contract?: string
  fetch?: (t: SessionTarget) => Promise<SessionOutcome>
}

export interface Collector {
  id: string
  name: string
  coreUrl: string
  client: CoreClient
  pool: JobPool
  /** Polls and fetches until stop(). */
  run(): Promise<void>
  /** The first SIGTERM: no new jobs, `drainMs` for those running. */
  stop(drainMs?: number): Promise<void>
  status(): Promise<StatusAnswer>
}

export function createCollector(o: CollectorOptions): Collector {
  const state = readState(o.stateDir)
  if (!state) throw new Error(`no collector is enrolled in ${o.stateDir}: run "portcullis collector enroll" first`)
  const keys: { sign: KeyObject; open: KeyObject } = stateKeys(state)
  const log = o.log ?? silentLog()
  const client = new CoreClient({ coreUrl: state.core_url, ca: readCa(o.caFile !== undefined ? o.caFile : state.ca_file), keyid: state.collector_id, signKey: keys.sign, ...(o.contract ? { contract: o.contract } : {}) })
  const pool = new JobPool({
    client,
    collectorId: state.collector_id,
    openKey: keys.open,
    concurrency: o.concurrency,
    log,
    ...(o.waitSeconds !== undefined ? { waitSeconds: o.waitSeconds } : {}),
    ...(o.refusedPollMs !== undefined ? { refusedPollMs: o.refusedPollMs } : {}),
    ...(o.fetch ? { fetch: o.fetch } : {}),
  })
  let running: Promise<void> | null = null
  return {
    id: state.collector_id,
    name: state.name,
    coreUrl: state.core_url,
    client,
    pool,
    run: () => (running ??= pool.run()),
    async stop(drainMs = 10_000) {
      await pool.stop(drainMs)
      await running
    },
    status: () => client.status(),
  }
}
