/**
 * A steady log ingestion load on a database, in a process of its own (as
 * another node's ingester would be): it appends tac_plus-ng authorization
 * lines to a file at INGEST_RATE lines a second (every 100 ms), and the real
 * ingester (createIngester, COPY per batch, the triggers) tails the file into
 * DATABASE_URL. IPC: sends `{ ready: true }` once tailing, and on the message
 * `'stop'` stops and sends `{ written, stored, ms, nodeId }`.
 */
import { appendFileSync, mkdirSync } from 'node:fs'
import { randomUUID } from 'node:crypto'
import os from 'node:os'
import path from 'node:path'
import { pino } from 'pino'
import { connect } from '../../kernel/db/connect.js'
import type { Logger } from '../../sdk/index.js'
import { createIngester } from '../../plugins/aaa-logs/ingest/index.js'
import { cliExclusions, tableSettings } from '../../plugins/aaa-logs/test/standalone-deps.js'
import { authorizationLine } from '../aaa-logs-ingest.js'

const rate = Number(process.env.INGEST_RATE ?? 5000)
const dir = path.join(process.env.INGEST_DIR ?? os.tmpdir(), `ingest-load-${process.pid}`)
mkdirSync(dir, { recursive: true })
const file = path.join(dir, `authorization-${new Date().toISOString().slice(0, 10)}.log`)
appendFileSync(file, '')
const silent = pino({ level: 'silent' }) as unknown as Logger
const db = await connect({ databaseUrl: process.env.DATABASE_URL!, dataDir: dir })
const nodeId = randomUUID()
const ingester = createIngester({
  database: db,
  settings: tableSettings(db.knex, { 'aaa-logs.ingest_enabled': true, 'aaa-logs.poll_ms': 100 }),
  logFolders: () => [{ daemon: 'bench', directory: dir }],
  logger: silent,
  cluster: { nodeId, role: 'primary' },
  loadExclusions: cliExclusions(),
})
await ingester.start()
let written = 0
const t0 = performance.now()
const perTick = Math.max(1, Math.round(rate / 10))
const timer = setInterval(() => {
  const ts = new Date().toISOString().replace('Z', '000+00:00')
  let chunk = ''
  for (let i = 0; i < perTick; i++) chunk += authorizationLine(written + i, ts)
  appendFileSync(file, chunk)
  written += perTick
}, 100)
process.send?.({ ready: true })
process.on('message', (m) => {
  if (m !== 'stop') return
  clearInterval(timer)
  void (async () => {
    const ms = performance.now() - t0
    await ingester.stop()
    const r = (await db.knex.raw('SELECT count(*) AS n FROM aaa_log_tacacs_authz WHERE node_id = ?', [nodeId])) as { rows: { n: number }[] }
    process.send?.({ written, stored: Number(r.rows[0].n), ms, nodeId })
    await db.knex.destroy()
    process.exit(0)
  })()
})
