/**
 * The seam between the two halves of the AAA logs plugin: the API side (lists,
 * exports, get-one, exclusion rules) and the ingestion side (tailing the
 * daemons' files into the tables of migrations/0001_aaa_logs.ts).
 */
import type { Knex } from 'knex'
import { createServiceRef } from '../../sdk/index.js'
import type { FreeradiusAcctEvent, FreeradiusAuthEvent } from '../../sdk/logs/freeradius-parse.js'

export type { FreeradiusAcctEvent, FreeradiusAuthEvent }

export const LOG_KINDS = ['tacacs_authentication', 'tacacs_authorization', 'tacacs_accounting', 'radius_authentication', 'radius_accounting'] as const
export type LogKind = (typeof LOG_KINDS)[number]

export const LOG_TABLE = {
  tacacs_authentication: 'aaa_log_tacacs_authn',
  tacacs_authorization: 'aaa_log_tacacs_authz',
  tacacs_accounting: 'aaa_log_tacacs_acct',
  radius_authentication: 'aaa_log_radius_auth',
  radius_accounting: 'aaa_log_radius_acct',
} as const satisfies Record<LogKind, string>
/** The name of one of the five log tables (tables.ts declares them). */
export type LogTable = (typeof LOG_TABLE)[LogKind]

export const protocolOf = (kind: LogKind): 'tacacs' | 'radius' => (kind.startsWith('tacacs') ? 'tacacs' : 'radius')

/** The exclusion rules as loaded at one moment, applied by the ingester to every event. */
export interface ExclusionMatcher {
  /** The id of the first exclusion rule that drops this event, or null when the event is stored. */
  match(protocol: 'tacacs' | 'radius', username: string): string | null
}

/** Loads the current rules (and, for `user_group` rules, the members of those groups). */
export type LoadExclusions = (db: Knex | Knex.Transaction) => Promise<ExclusionMatcher>

/** The ingester, started and stopped with the plugin. */
export interface Ingester {
  start(): Promise<void>
  stop(): Promise<void>
}

/**
 * A RADIUS log record as the ingester stored it: the row's id in its table (`aaa_log_radius_auth`
 * or `aaa_log_radius_acct`) and the parsed line (sdk/logs/freeradius-parse.ts), which carries more
 * than the row (the NAC profiling attributes, the reply list as sent).
 */
export type RadiusLogRecord = { kind: 'auth'; id: string; event: FreeradiusAuthEvent } | { kind: 'acct'; id: string; event: FreeradiusAcctEvent }

/**
 * Receives the RADIUS records of one committed batch, in file order. It runs after the batch's
 * transaction committed (the rows are there whatever it does) and before the next batch of the same
 * file is delivered, so records reach it in order. A listener that throws is called again with the
 * same batch (RECORD_LISTENER_RETRIES_MS); when every attempt failed, the failure is logged at error
 * level with the batch's first and last row ids and counted (`stats.listenerFailures`), and the
 * ingester goes on: a listener never stops ingestion nor loses a log row. Make it idempotent.
 */
export type RadiusRecordListener = (records: readonly RadiusLogRecord[]) => Promise<void>

/** The waits before each retry of a failed delivery (ms): three attempts in all. */
export const RECORD_LISTENER_RETRIES_MS = [200, 1000] as const

/** The window and devices of `tacacsCommands`. */
export interface TacacsCommandsQuery {
  /** The devices' addresses as the daemon saw the packets come from (`nas_ip`); others are ignored. */
  nasIps: readonly string[]
  /** The window: after `from`, up to and including `to`. */
  from: Date
  to: Date
  /** The most records returned (at most 5,000); `truncated` says there were more. */
  limit: number
}

/** A TACACS+ authorization or accounting record that carried a command. */
export interface TacacsCommandRecord {
  kind: 'authorization' | 'accounting'
  id: string
  /** ISO 8601, UTC. */
  timestamp: string
  username: string
  nas_ip: string | null
  device_name: string | null
  client_address: string | null
  session_id: string | null
  /** permit | deny (authorization); start | stop | watchdog (accounting). */
  action: string
  /** The command line as the device sent it (a trailing `<cr>` included when the device sends one). */
  command: string
  /** Authorization only. */
  priv_lvl: number | null
}

/** What other plugins use of the AAA logs: the records as they are ingested, the commands devices saw. */
export interface AaaLogsService {
  /**
   * Adds a listener of the RADIUS records the ingester commits (the plugin's own ingester; the
   * standalone `aaa-logs-ingest` command has none). `name` names it in the logs. Returns its removal.
   */
  registerRecordListener(name: string, listener: RadiusRecordListener): () => void
  /**
   * The TACACS+ authorization and accounting records with a command, from those addresses, in the
   * window, newest first; `truncated` when more than `limit` matched. The caller decides who may see
   * them (the logs' own routes require `aaa-logs.read`).
   */
  tacacsCommands(q: TacacsCommandsQuery): Promise<{ items: TacacsCommandRecord[]; truncated: boolean }>
}

export const aaaLogsServiceRef = createServiceRef<AaaLogsService>({ id: 'aaa-logs.service' })
