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

/** The window of `tacacsImpactRequests` and `radiusImpactRequests`. */
export interface ImpactRequestsQuery {
  /** After `from`, up to and including `to`. */
  from: Date
  to: Date
  /** The most distinct requests returned; `truncated` says there were more. */
  limit: number
  /** The caller's time budget: the scan stops (the statement is cancelled) and answers what it has, `truncated`. */
  signal?: AbortSignal
  /**
   * Only the requests of these users (lower-case names) or of a NAS address within one of these
   * prefixes: the change impact proved the others unaffected by the edit. Absent: every request.
   * Then `window_events` counts every real request of the window the statements would group.
   */
  only?: { usernames: readonly string[]; prefixes: readonly string[] }
}

/** What the daemon answered the last time this distinct request was seen, as its log says. */
export interface LoggedAnswer {
  permitted: boolean
  rule_name: string | null
  profile: string | null
  /** tac_plus-ng's msgid / FreeRADIUS's reject reason code (`RADIUS_REJECT_REASONS`), when logged. */
  result_code: string | null
  /** tac_plus-ng's message / FreeRADIUS's Module-Failure-Message, when logged. */
  message: string | null
}

/** One distinct TACACS+ request of a window: a login, a session authorization (command null) or a command authorization. */
export interface DistinctTacacsRequest {
  kind: 'authentication' | 'authorization'
  username: string
  /** The address the packet came from (the device). */
  nas_ip: string | null
  /** Authentication: the method as tac_plus-ng logs it (ascii, pap, chap, mschap, enable …); authorization: null. */
  authen_type: string | null
  /** Authorization: the service (shell …), the command line (null: the session's start), the privilege level, the NAS's AV pairs as logged. */
  service: string | null
  command: string | null
  priv_lvl: number | null
  arguments: readonly string[]
  /** How many times it was seen in the window, and how many of those were permitted (authentication: succeeded). */
  events: number
  permitted: number
  last_seen: Date
  last: LoggedAnswer
}

/** One distinct RADIUS Access-Request of a window: device administration (nac_method null) or 802.1X/MAB. */
export interface DistinctRadiusRequest {
  /** User-Name as sent (EAP: the outer identity). */
  username: string
  nas_ip: string | null
  /** PAP | CHAP | MS-CHAPv2 | MS-CHAPv1 as FreeRADIUS's log names it, else what was logged (EAP methods). */
  auth_type: string | null
  /** 802.1X and MAB: peap, eap-tls, mab; null for device administration. */
  nac_method: 'peap' | 'eap-tls' | 'mab' | null
  /** 802.1X: the authenticated user (PEAP inner identity, EAP-TLS certificate CN), when logged. */
  nac_user: string | null
  /** 802.1X and MAB: the endpoint's MAC (Calling-Station-Id as logged); null for device administration (not part of the key there). */
  calling_station_id: string | null
  /** 802.1X and MAB: NAS-Port-Type as logged. */
  nas_port_type: string | null
  events: number
  permitted: number
  last_seen: Date
  last: LoggedAnswer
}

export interface DistinctRequests<T> {
  items: T[]
  truncated: boolean
  /** Time spent reading the logs (ms). */
  scan_ms: number
  /** DatabaseReader.lagMs of the read (the log replica), null on the primary. */
  lag_ms: number | null
  /** With `only`: the real requests of the whole window (RADIUS: device administration only), null without it or when cut. */
  window_events: number | null
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
  /**
   * The distinct requests of a window (change impact, replayed against a policy): grouped in the
   * database, read through `database.read` (the log replica when configured), the most frequent first
   * when `limit` cuts. The caller decides who may see them (they are the logs: `aaa-logs.read`).
   */
  tacacsImpactRequests(q: ImpactRequestsQuery): Promise<DistinctRequests<DistinctTacacsRequest>>
  /** The same for RADIUS (device administration and NAC alike; the caller tells them apart by `nac_method`). */
  radiusImpactRequests(q: ImpactRequestsQuery): Promise<DistinctRequests<DistinctRadiusRequest>>
}

export const aaaLogsServiceRef = createServiceRef<AaaLogsService>({ id: 'aaa-logs.service' })
