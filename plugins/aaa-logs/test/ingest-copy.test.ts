/**
 * The ingester's write path: on PostgreSQL the rows go through COPY FROM STDIN
 * (no INSERT of log rows is issued), on the embedded engine through the
 * batched INSERT; either way every value arrives exactly as the parser read it
 * (tabs, newlines, backslashes, quotes, braces and commas inside arrays,
 * non-ASCII, JSON), excluded users are not stored, and the lists' totals
 * (row counts and rollup) follow the ingested rows.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import { startTestApp, type TestApp, testEngines } from '../../../test/kit/app.js'
import { LOG_TABLE, type LogKind } from '../api.js'
import { parseLine } from '../ingest/records.js'
import { countOf, KINDS, toEntry } from '../services/logs.js'

const TS = (i: number) => `2026-11-21T06:${String(i % 60).padStart(2, '0')}:11.${String(184829 + i).padStart(6, '0')}+00:00`
const HOSTILE = ['a"b\\\\c\\011d', 'tab\\011and\\012newline', 'brace{x},"y"\\\\', 'Ünïcode – ✓', 'back\\\\slash\\\\N', 'plain']

const tacacsAuthz = (i: number, user: string) =>
  [TS(i), 'authorization', i % 3 ? 'AUTHZ-PASS' : 'AUTHZ-FAIL', user, `core-${HOSTILE[i % HOSTILE.length]}`, '10.0.0.1', 'tty1', '192.0.2.9', 'rule,1', 'admin', i % 3 ? 'permit' : 'deny', 'shell', '15', `show ${HOSTILE[(i + 1) % HOSTILE.length]} ${i}`, `cmd=show\\037cmd-arg={"a",b}\\037x\\\\y\\037${HOSTILE[i % HOSTILE.length]}`, 'priv-lvl=15', '', String(i)].join('\t') + '\n'
const tacacsAcct = (i: number, user: string) =>
  [TS(i), 'accounting', 'ACCT-START', user, 'core1', '10.0.0.2', 'tty2', '192.0.2.8', 'start', 'shell', '1', `conf t ${HOSTILE[i % HOSTILE.length]}`, 'task_id=1\\037service=shell', '', String(i)].join('\t') + '\n'
const radiusAuth = (i: number, user: string) =>
  JSON.stringify({
    v: 1,
    kind: 'auth',
    ts: String(1763706851 + i),
    us: '123456',
    result: i % 4 ? 'accept' : 'reject',
    request: { 'User-Name': user, 'NAS-IP-Address': '10.1.1.1', 'Calling-Station-Id': 'aa-bb-cc-dd-ee-ff', 'NAS-Port': '7', 'Module-Failure-Message': i % 4 ? '' : 'bad\ttab "q" \\ x' },
    control: { 'Auth-Type': 'PAP', 'Tmp-String-0': 'corp-wifi', 'Tmp-String-1': 'Corp "label"' },
    reply: { 'Filter-Id': 'vlan{1},"2"\\', 'Reply-Message': 'Hello\nWorld ✓' },
  }) + '\n'

const USERS = ['alice', 'bob', 'svc-monitor', 'Ünïcode']
const N = 240

for (const engine of testEngines()) {
  describe(`aaa-logs ingestion write path (${engine})`, function () {
    this.timeout(120_000)
    let t: TestApp
    let dir: string
    const files: { kind: LogKind; folder: 'tacacs' | 'radius'; name: string; line: (i: number, user: string) => string }[] = [
      { kind: 'tacacs_authorization', folder: 'tacacs', name: 'authorization-2026-11-21.log', line: tacacsAuthz },
      { kind: 'tacacs_accounting', folder: 'tacacs', name: 'accounting-2026-11-21.log', line: tacacsAcct },
      { kind: 'radius_authentication', folder: 'radius', name: 'radius-auth-2026-11-21.jsonl', line: radiusAuth },
    ]
    const inserts: string[] = []
    const onQuery = (q: { sql: string }) => {
      if (/^\s*insert\s+into\s+"?aaa_log_(tacacs|radius)_/i.test(q.sql)) inserts.push(q.sql)
    }

    before(async () => {
      dir = mkdtempSync(path.join(os.tmpdir(), 'aaa-copy-'))
      t = await startTestApp({
        engine,
        // The daemons' plugins beside the ingester: their renderers say where each daemon writes.
        plugins: ['inventory', 'tacacs', 'radius', 'aaa-logs'],
        settings: { 'aaa-logs.poll_ms': 20, 'aaa-logs.batch_size': 50 },
        options: { 'tacacs.log_directory': path.join(dir, 'tacacs'), 'radius.log_directory': path.join(dir, 'radius') },
      })
      const ex = await t.admin('POST', '/api/v1/log-exclusions', { body: { name: 'monitor', match_type: 'username_pattern', match_value: 'svc-*' } })
      expect(ex.status, JSON.stringify(ex.body)).to.equal(201)
      await new Promise((r) => setTimeout(r, 5200)) // the ingester re-reads the rules every 5 s
      t.app.db.knex.on('query', onQuery)
      for (const f of files) {
        const folder = path.join(dir, f.folder)
        await import('node:fs/promises').then((fs) => fs.mkdir(folder, { recursive: true }))
        writeFileSync(path.join(folder, f.name), Array.from({ length: N }, (_, i) => f.line(i, USERS[i % USERS.length])).join(''))
      }
      const want = (N * 3) / 4
      const end = Date.now() + 60_000
      for (;;) {
        const counts = await Promise.all(files.map((f) => countOf(t.app.db.knex(LOG_TABLE[f.kind]))))
        if (counts.every((c) => c === want)) break
        if (Date.now() > end) throw new Error(`ingested ${counts.join(', ')}, expected ${want} each`)
        await new Promise((r) => setTimeout(r, 50))
      }
    })
    after(async () => {
      t?.app.db.knex.removeListener('query', onQuery)
      await t?.stop()
      rmSync(dir, { recursive: true, force: true })
    })

    it(engine === 'postgres' ? 'writes the log rows through COPY, not INSERT' : 'writes the log rows through the batched INSERT (no COPY FROM STDIN here)', () => {
      if (engine === 'postgres') expect(inserts, 'no INSERT of log rows').to.deep.equal([])
      else expect(inserts.length, 'one INSERT per batch and table').to.be.at.least(files.length)
    })

    it('stores every value exactly as parsed, drops the excluded user, and the totals follow', async () => {
      for (const f of files) {
        const k = KINDS.find((x) => x.kind === f.kind)!
        const expected = new Map<number, Record<string, unknown>>()
        let offset = 0
        for (let i = 0; i < N; i++) {
          const raw = f.line(i, USERS[i % USERS.length])
          const p = parseLine(f.kind, Buffer.from(raw.slice(0, -1)))
          if (!p.ok) throw new Error(p.reason)
          if (!p.username.startsWith('svc-')) expected.set(offset, p.row)
          offset += Buffer.byteLength(raw)
        }
        const r = await t.admin('GET', `/api/v1/aaa/logs/${k.path}?per_page=200&sort_order=asc`)
        const r2 = await t.admin('GET', `/api/v1/aaa/logs/${k.path}?per_page=200&sort_order=asc&page=2`)
        const items = [...r.body.items, ...r2.body.items] as Record<string, unknown>[]
        expect(r.body).to.include({ total: expected.size, total_by_filter: expected.size, total_by_filter_capped: false })
        expect(items).to.have.length(expected.size)
        for (const item of items) {
          const want = expected.get(item.source_offset as number)
          expect(want, `row at ${String(item.source_offset)}`).to.be.an('object')
          const shown = toEntry(k, { ...want!, id: item.id, node_id: item.node_id, source_file: item.source_file, source_offset: item.source_offset, ingested_at: item.ingested_at })
          expect(item).to.deep.equal(shown)
        }
        const alice = [...expected.values()].filter((x) => x.username === 'alice').length
        expect((await t.admin('GET', `/api/v1/aaa/logs/${k.path}?username=alice`)).body).to.include({ total_by_filter: alice, total_by_filter_capped: false })
        const uni = [...expected.values()].filter((x) => x.username === 'Ünïcode').length
        expect((await t.admin('GET', `/api/v1/aaa/logs/${k.path}?username=${encodeURIComponent('Ünïcode')}&date_from=2025-01-01T00:00:00.5Z`)).body).to.include({ total_by_filter: uni })
      }
    })
  })
}
