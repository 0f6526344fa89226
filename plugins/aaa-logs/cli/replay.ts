/**
 * `portcullis aaa-logs-replay`: replay a log file into the AAA log tables (a
 * migration from another system):
 *   npm run logs:replay -- --kind tacacs_authorization [--source NAME] [--batch N] FILE
 * The same parse / exclude / insert code as the ingester, inside the booted
 * platform (its database on either engine, its node id, the exclusion rules
 * with their user groups resolved); checkpointed under the source name
 * (default `replay:<kind>`) and the file's absolute path, so a re-run continues
 * where the last one stopped and never duplicates. A progress bar (percent,
 * lines/s) goes to stderr.
 */
import { stat } from 'node:fs/promises'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { cliInteger, CliUsageError, coreServices, defineCliCommand, identityServices, type ClusterInfo, type CliIo, type DatabaseService, type IdentityService, type Logger } from '../../../sdk/index.js'
import { LOG_KINDS, type LogKind } from '../api.js'
import { IngestCore } from '../ingest/core.js'
import { ingestSettingRefs } from '../ingest/settings.js'
import { exclusionLoader } from '../services/exclusions.js'

export interface ReplayDeps {
  database: DatabaseService
  logger: Logger
  cluster: ClusterInfo
  identity: IdentityService
}

export interface ReplayOptions {
  kind: LogKind
  file: string
  source?: string
  batchSize?: number
  /** Where the progress bar goes (none without). */
  progress?: (text: string) => void
}

export interface ReplayResult {
  lines: number
  stored: number
  dropped: number
  quarantined: number
  seconds: number
}

export async function replay(d: ReplayDeps, o: ReplayOptions): Promise<ReplayResult> {
  const file = path.resolve(o.file)
  const source = (o.source ?? `replay:${o.kind}`).slice(0, 64)
  const core = new IngestCore({ database: d.database, logger: d.logger.child({ component: 'aaa-logs.replay' }), nodeId: d.cluster.nodeId, loadExclusions: exclusionLoader(d.identity) })
  const st = await stat(file)
  let cp = await core.checkpoint(source, file)
  if (cp && (cp.inode !== st.ino || cp.offset > st.size)) cp = null // another file under that name: start over
  const start = cp?.offset ?? 0
  const t0 = Date.now()
  let lines = 0
  let last = 0
  const draw = (offset: number, final = false) => {
    if (!o.progress) return
    const now = Date.now()
    if (!final && now - last < 200) return
    last = now
    const pct = st.size ? offset / st.size : 1
    const secs = Math.max((now - t0) / 1000, 0.001)
    const width = 30
    const bar = '#'.repeat(Math.round(pct * width)).padEnd(width, '.')
    o.progress(`\r[${bar}] ${(pct * 100).toFixed(1).padStart(5)}%  ${lines} lines  ${Math.round(lines / secs)} lines/s${final ? '\n' : ''}`)
  }
  if (start > 0) o.progress?.(`resuming ${file} at byte ${start} of ${st.size}\n`)
  const end = await core.drain(o.kind, source, file, file, st.ino, start, {
    batchSize: o.batchSize ?? ingestSettingRefs.batchSize.default,
    final: true,
    onProgress: (offset, n) => {
      lines += n
      draw(offset)
    },
  })
  draw(end, true)
  const { stored, dropped, quarantined } = core.stats
  return { lines, stored, dropped, quarantined, seconds: (Date.now() - t0) / 1000 }
}

export const replayCommand = defineCliCommand({
  name: 'aaa-logs-replay',
  summary: 'Replay a daemon log file into the AAA log tables (resumable, never duplicates)',
  usage: `--kind ${LOG_KINDS.join('|')} [--source NAME] [--batch N] FILE`,
  deps: { database: coreServices.database, logger: coreServices.logger, cluster: coreServices.cluster, identity: identityServices.identity },
  async run(args: string[], io: CliIo, d) {
    const { values, positionals } = parseArgs({ args, allowPositionals: true, options: { kind: { type: 'string' }, source: { type: 'string' }, batch: { type: 'string' } } })
    const kind = LOG_KINDS.find((k) => k === values.kind)
    if (!kind) throw new CliUsageError(`--kind is one of ${LOG_KINDS.join(', ')}`)
    if (positionals.length !== 1) throw new CliUsageError('name one file to replay')
    const r = await replay(d, { kind, file: positionals[0], source: values.source, batchSize: cliInteger(values.batch, 'batch', 1, 100000, ingestSettingRefs.batchSize.default), progress: (s) => io.err(s) })
    io.err(`${r.lines} lines in ${r.seconds.toFixed(1)} s: ${r.stored} stored, ${r.dropped} excluded, ${r.quarantined} quarantined\n`)
    return 0
  },
})
