/**
 * The seam between the two halves of the AAA logs plugin: the API side (lists,
 * exports, get-one, exclusion rules) and the ingestion side (tailing the
 * daemons' files into the tables of migrations/0001_aaa_logs.ts).
 */
import type { Knex } from 'knex'

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
