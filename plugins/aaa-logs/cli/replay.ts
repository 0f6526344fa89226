/**
 * Replay a log file into the AAA log tables (migrating from another system):
 *   DATABASE_URL=… DATA_DIR=… node --import tsx plugins/aaa-logs/cli/replay.ts --kind tacacs_authorization [--source NAME] [--batch N] FILE
 *   (or: npm run logs:replay -- --kind … FILE)
 * The same parse / exclude / insert code as the ingester; checkpointed under
 * the source name (default `replay:<kind>`) and the file's absolute path, so a
 * re-run continues where the last one stopped and never duplicates. A progress
 * bar (percent, lines/s) goes to stderr.
 */
import { stat } from 'node:fs/promises'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { LOG_KINDS, type LogKind } from '../api.js'
import { IngestCore } from '../ingest/core.js'
import { cliExclusions, dataDir, nodeId, openDatabase, stderrLogger } from './common.js'

export interface ReplayOptions {
  kind: LogKind
  file: string
  source?: string
  batchSize?: number
  databaseUrl?: string
  progress?: boolean
}

export async function replay(o: ReplayOptions): Promise<{ lines: number; stored: number; dropped: number; quarantined: number; seconds: number }> {
  const database = openDatabase(o.databaseUrl ?? process.env.DATABASE_URL)
  try {
    const file = path.resolve(o.file)
    const source = (o.source ?? `replay:${o.kind}`).slice(0, 64)
    const core = new IngestCore({ database, logger: stderrLogger('warn'), nodeId: nodeId(dataDir()), loadExclusions: cliExclusions() })
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
      process.stderr.write(`\r[${bar}] ${(pct * 100).toFixed(1).padStart(5)}%  ${lines} lines  ${Math.round(lines / secs)} lines/s${final ? '\n' : ''}`)
    }
    if (start > 0 && o.progress) process.stderr.write(`resuming ${file} at byte ${start} of ${st.size}\n`)
    const end = await core.drain(o.kind, source, file, file, st.ino, start, {
      batchSize: o.batchSize ?? 2000,
      final: true,
      onProgress: (offset, n) => {
        lines += n
        draw(offset)
      },
    })
    draw(end, true)
    const { stored, dropped, quarantined } = core.stats
    return { lines, stored, dropped, quarantined, seconds: (Date.now() - t0) / 1000 }
  } finally {
    await database.knex.destroy()
  }
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { kind: { type: 'string' }, source: { type: 'string' }, batch: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  })
  const kind = values.kind as LogKind | undefined
  if (values.help || !kind || !LOG_KINDS.includes(kind) || positionals.length !== 1) {
    process.stderr.write(`usage: replay.ts --kind ${LOG_KINDS.join('|')} [--source NAME] [--batch N] FILE\n(DATABASE_URL and DATA_DIR as for the server)\n`)
    process.exit(values.help ? 0 : 2)
  }
  const r = await replay({ kind, file: positionals[0], source: values.source, batchSize: values.batch ? Number(values.batch) : undefined, progress: true })
  process.stderr.write(`${r.lines} lines in ${r.seconds.toFixed(1)} s: ${r.stored} stored, ${r.dropped} excluded, ${r.quarantined} quarantined\n`)
}

if (import.meta.url === `file://${process.argv[1]}`) await main()
