/** The deploy pipeline's record: its errors, settings, rows and the views the routes answer. */
import { defineError, defineServerOption, defineSetting, isPortcullisError, Type, type RowOf } from '../../sdk/index.js'
import type { DeploysTable } from '../db/tables.js'
import { shownFileRecords, type FileRecord, type ShownFileRecord } from './files.js'
import type { DaemonRefusal } from './failed.js'

export const DeployErrors = {
  checkFailed: defineError(422, 'DEPLOY_CHECK_FAILED', 'core:deploy.check_failed'),
  checkSkipped: defineError(422, 'DEPLOY_CHECK_SKIPPED', 'core:deploy.check_skipped'),
  unknownDaemon: defineError(404, 'DEPLOY_DAEMON_UNKNOWN', 'core:deploy.daemon_unknown'),
  nothingToDeploy: defineError(422, 'DEPLOY_NOTHING', 'core:deploy.nothing'),
  renderFailed: defineError(422, 'DEPLOY_RENDER_FAILED', 'core:deploy.render_failed'),
  notRollbackable: defineError(409, 'DEPLOY_NOT_ROLLBACKABLE', 'core:deploy.not_rollbackable'),
  releaseMissing: defineError(409, 'DEPLOY_RELEASE_MISSING', 'core:deploy.release_missing'),
  notFound: defineError(404, 'NOT_FOUND', 'core:errors.not_found'),
  inProgress: defineError(409, 'DEPLOY_IN_PROGRESS', 'core:deploy.in_progress'),
  /** `vars.list`: the NamedRevocation[] (revocations.ts) the route words in the caller's language. */
  rollbackRevokesAccess: defineError(409, 'DEPLOY_ROLLBACK_REVOKES_ACCESS', 'core:deploy.rollback_revokes_access'),
}

/**
 * The 422 of a refused deploy (failed.ts): about the first daemon whose check failed (else the first
 * that could not be checked), with every daemon's result in `vars.results`; the route words the
 * others in the caller's language into `vars.others` (empty for the command line).
 */
export function refusalError(results: DaemonRefusal[]) {
  const first = results.find((r) => r.reason === 'check_failed') ?? results.find((r) => r.reason === 'check_skipped')!
  const make = first.reason === 'check_failed' ? DeployErrors.checkFailed : DeployErrors.checkSkipped
  return make({ field: 'daemon', vars: { daemon: first.daemon, output: first.output.slice(0, 4000), others: '', results: results.filter((r) => r !== first) } })
}

/** The first line of a checker's output that says something (blank lines do not), shortened for a sentence. */
const firstLine = (output: string) => {
  const line = output.split('\n').map((l) => l.trim()).find((l) => l.length > 0) ?? ''
  return line.length > 300 ? line.slice(0, 299) + '…' : line
}

/**
 * A refused deploy's error with the other daemons' results worded into `vars.others` by `t` (the
 * route's language, the command line's English); any other error as it is.
 */
export function withRefusals(e: unknown, t: (key: string, vars: Record<string, unknown>) => string): unknown {
  if (!isPortcullisError(e) || (e.code !== DeployErrors.checkFailed.code && e.code !== DeployErrors.checkSkipped.code)) return e
  const results = (e.vars.results ?? []) as DaemonRefusal[]
  if (!results.length) return e
  const line = (r: DaemonRefusal) => t(`core:deploy.result.${r.reason === 'not_activated' && r.checked !== true ? 'not_activated_unchecked' : r.reason}`, { daemon: r.daemon, output: firstLine(r.output), blocked_by: r.blocked_by.join(', ') })
  const others = t('core:deploy.results', { list: results.map(line).join('; ') })
  return (e.code === DeployErrors.checkFailed.code ? DeployErrors.checkFailed : DeployErrors.checkSkipped)({ field: e.field, vars: { ...e.vars, others } })
}

/** A server option, not a setting: it names programs the server runs, so only the server's configuration may set it. */
export const reloadCommandsOption = defineServerOption(
  'deploy.reload_commands',
  Type.Record(Type.String({ pattern: '^[A-Za-z0-9._-]{1,64}$' }), Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), { minItems: 1, maxItems: 64 })),
  {},
  'Per daemon, the command (argv: program, then arguments, no shell) run after a release of that daemon becomes current, e.g. `{ "freeradius": ["/usr/bin/systemctl", "reload", "freeradius"] }`. A daemon without an entry is not signalled.',
  { env: 'DEPLOY_RELOAD_COMMANDS' },
)
export const keepReleasesSetting = defineSetting(
  'deploy.keep_releases',
  Type.Integer({ minimum: 1, maximum: 1000 }),
  20,
  'Release folders kept per daemon (the newest ones; the current release is always kept). An older release can no longer be rolled back to.',
  // Lowered, the next deploy deletes the releases a rollback or an investigation of what the daemons were told needs.
  { security: true },
)
export const lockWaitSetting = defineSetting(
  'deploy.lock_wait_seconds',
  Type.Integer({ minimum: 0, maximum: 600 }),
  30,
  'How long a deploy or rollback waits for one that another node of the cluster is running to finish before answering 409 DEPLOY_IN_PROGRESS; 0 answers at once. Deploys sent to the same node queue behind each other.',
)
export const allowUncheckedSetting = defineSetting(
  'deploy.allow_unchecked',
  Type.Boolean(),
  false,
  'Activate a release whose daemon check could not run (its binary is absent). Off: such a deploy answers 422 DEPLOY_CHECK_SKIPPED and activates nothing. A check that ran and failed is never activated.',
  { security: true },
)
export const logRetentionSetting = defineSetting(
  'deploy.log_retention_days',
  Type.Integer({ minimum: 1, maximum: 3650 }),
  90,
  'Days the daemons\' dated log files (the JSON lines and TACACS+ logs the ingester reads) are kept: older ones are removed at every deploy and once an hour.',
  // Shortening it deletes the record of who logged in to which device: an administrator's decision.
  { security: true },
)
export const deploySettings = [keepReleasesSetting, lockWaitSetting, allowUncheckedSetting, logRetentionSetting]

/** A deploys row (kernel/db/tables.ts). */
export type DeployRow = RowOf<typeof DeploysTable>
export type DeployStatus = DeployRow['status']

export interface DeployView extends Omit<DeployRow, 'created_at' | 'activated_at' | 'rollback_of' | 'files' | 'manifest' | 'blocked_by'> {
  blocked_by: string[]
  /** The hash and size of each file as the views show it (masked): never of the file on disk. */
  files: ShownFileRecord[]
  created_at: string
  activated_at: string | null
}

/** The row's file records as written (hashes of the files on disk): the integrity checks read them, never a view. */
export const rowFiles = (r: DeployRow): FileRecord[] => (typeof r.files === 'string' ? (JSON.parse(r.files) as FileRecord[]) : r.files)

export const toView = (r: DeployRow): DeployView => {
  // The manifest holds sealed credential names (store.ts): never shown.
  const { rollback_of: _r, manifest: _m, ...rest } = r
  return {
    ...rest,
    files: shownFileRecords(rowFiles(r)),
    blocked_by: r.blocked_by ? r.blocked_by.split(',') : [],
    created_at: new Date(r.created_at).toISOString(),
    activated_at: r.activated_at ? new Date(r.activated_at).toISOString() : null,
  }
}

export interface FileChange {
  path: string
  change: 'added' | 'removed' | 'changed' | 'unchanged'
  /** Unified diff of the text, secret values masked; empty when unchanged. */
  diff: string
  mode_before: string | null
  mode_after: string | null
}

export interface DryRunDaemon {
  daemon: string
  current_release: string | null
  checked: boolean | null
  check_ok: boolean
  check_output: string
  changes: FileChange[]
}
