/**
 * registerRecordListener: the RADIUS records of each committed batch reach the listeners, in file
 * order, with the ids of their rows; a listener that throws gets the batch again, and one that
 * keeps failing is reported (logged, counted) while the rows stay stored and ingestion goes on.
 */
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import type { RadiusLogRecord } from '../api.js'
import { createIngester } from '../ingest/index.js'
import { RecordListeners } from '../ingest/listeners.js'
import { countOf } from '../services/logs.js'
import { tableSettings } from './standalone-deps.js'
import { silentLogger, startTestApp, type TestApp } from '../../../test/kit/app.js'

const TS = 1795000000
const auth = (i: number) =>
  JSON.stringify({ v: 1, kind: 'auth', ts: String(TS + i), us: '0', src: '10.0.0.1', client: 'sw', result: 'accept', request: { 'User-Name': `u${i}`, 'Calling-Station-Id': '00-00-0c-00-00-01' }, control: {}, replies: [] }) + '\n'
const acct = (i: number) =>
  JSON.stringify({ v: 1, kind: 'acct', ts: String(TS + i), us: '0', src: '10.0.0.1', client: 'sw', request: { 'User-Name': `u${i}`, 'Acct-Status-Type': 'Interim-Update', 'Acct-Session-Id': `s${i}` }, profiling: { 'NAS-Port-Type': 'Ethernet' } }) + '\n'

/** A logger that keeps what was logged at warn and error. */
function recordingLogger() {
  const seen: { level: string; obj: Record<string, unknown>; msg: string }[] = []
  const base = silentLogger()
  const make = (): typeof base =>
    new Proxy(base, {
      get(target, prop) {
        if (prop === 'warn' || prop === 'error') return (obj: Record<string, unknown>, msg: string) => seen.push({ level: prop, obj, msg })
        if (prop === 'child') return () => make()
        return Reflect.get(target, prop)
      },
    })
  return { logger: make(), seen }
}

describe('aaa-logs: record listeners', function () {
  this.timeout(60000)
  let t: TestApp
  let dir: string
  before(async () => (t = await startTestApp({ plugins: ['aaa-logs'], settings: { 'aaa-logs.ingest_enabled': false } })))
  after(async () => t?.stop())
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'aaa-listen-'))))
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  const ingester = (listeners: RecordListeners) => {
    const nodeId = randomUUID()
    const ing = createIngester({
      database: t.app.db,
      settings: tableSettings(t.app.db.knex, { 'aaa-logs.ingest_enabled': true, 'aaa-logs.batch_size': 4 }),
      logFolders: () => [{ daemon: 'freeradius', directory: dir }],
      logger: silentLogger(),
      cluster: { nodeId, role: 'primary' },
      loadExclusions: async () => ({ match: () => null }),
      listeners,
    })
    return { nodeId, ing }
  }

  it('delivers each committed batch, in order, with the row ids and the parsed lines', async () => {
    const listeners = new RecordListeners(silentLogger())
    const batches: RadiusLogRecord[][] = []
    listeners.register('test', async (records) => {
      // Committed before delivery: every row is there.
      const ids = records.map((r) => r.id)
      const table = records[0].kind === 'auth' ? 'aaa_log_radius_auth' : 'aaa_log_radius_acct'
      expect(await countOf(t.app.db.knex(table).whereIn('id', ids))).to.equal(ids.length)
      batches.push([...records])
    })
    const { nodeId, ing } = ingester(listeners)
    writeFileSync(path.join(dir, 'radius-auth-2026-11-27.jsonl'), Array.from({ length: 10 }, (_, i) => auth(i)).join('') + '{"broken\n')
    writeFileSync(path.join(dir, 'radius-acct-2026-11-27.jsonl'), Array.from({ length: 6 }, (_, i) => acct(i)).join(''))
    await ing.pollOnce()
    const authBatches = batches.filter((b) => b[0].kind === 'auth')
    const acctBatches = batches.filter((b) => b[0].kind === 'acct')
    // Batches of 4 lines; the broken line is quarantined, never delivered.
    expect(authBatches.map((b) => b.length)).to.deep.equal([4, 4, 2])
    expect(acctBatches.map((b) => b.length)).to.deep.equal([4, 2])
    const users = authBatches.flat().map((r) => r.event.username)
    expect(users).to.deep.equal(Array.from({ length: 10 }, (_, i) => `u${i}`))
    const rows = await t.app.db.knex('aaa_log_radius_auth').where({ node_id: nodeId }).select('id', 'username')
    expect(new Map(rows.map((r) => [r.id, r.username]))).to.deep.equal(new Map(authBatches.flat().map((r) => [r.id, r.event.username])))
    const first = acctBatches[0][0]
    expect(first.kind).to.equal('acct')
    if (first.kind === 'acct') expect(first.event).to.include({ acctStatusType: 'Interim-Update', acctSessionId: 's0', nasPortType: 'Ethernet' })
    expect(listeners.stats).to.include({ delivered: 5, listenerFailures: 0 })
  })

  it('retries a failing listener with the same batch; one that keeps failing is logged and counted, and no row is lost', async () => {
    const { logger, seen } = recordingLogger()
    const listeners = new RecordListeners(logger, [1, 1])
    let calls = 0
    const got: string[] = []
    // Fails once on every batch, then takes it.
    let failNext = true
    listeners.register('flaky', async (records) => {
      calls++
      if (failNext) {
        failNext = false
        throw new Error('flaky')
      }
      failNext = true
      got.push(...records.map((r) => r.event.username))
    })
    listeners.register('broken', async () => {
      throw new Error('always')
    })
    const { nodeId, ing } = ingester(listeners)
    writeFileSync(path.join(dir, 'radius-auth-2026-11-27.jsonl'), Array.from({ length: 6 }, (_, i) => auth(i)).join(''))
    await ing.pollOnce()
    expect(got).to.deep.equal(Array.from({ length: 6 }, (_, i) => `u${i}`))
    expect(calls).to.equal(4)
    expect(await countOf(t.app.db.knex('aaa_log_radius_auth').where({ node_id: nodeId }))).to.equal(6)
    expect(listeners.stats.listenerFailures).to.equal(2)
    const errors = seen.filter((s) => s.level === 'error')
    expect(errors).to.have.length(2)
    expect(errors[0].obj).to.include({ listener: 'broken', records: 4 })
    expect(errors[0].obj.first_id).to.be.a('string')
    expect(seen.filter((s) => s.level === 'warn' && s.obj.listener === 'broken')).to.have.length(4)
  })
})
