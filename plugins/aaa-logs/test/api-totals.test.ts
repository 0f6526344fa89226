/**
 * `total_by_filter` of the log lists: exact from the rollup (migration 0004)
 * under every filter it keeps, equal to a count(*) of the same filter, through
 * inserts, deletes, updates, rollbacks and TRUNCATE; and, for a free-text
 * search (or filters it does not keep) past 10,000 matches, a capped count
 * flagged `total_by_filter_capped`, with `pages` following it. Both engines.
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import type { Knex } from 'knex'
import { startTestApp, type TestApp, testEngines } from '../../../test/kit/app.js'
import { applyLogFilters, countOf, KINDS, logRows, type LogFilters } from '../services/logs.js'

const NODES = [randomUUID(), randomUUID()]
const USERS = ['alice', 'bob', 'Ünïcode user']
const NAS = ['192.0.2.1', '192.0.2.2', '2001:db8::1', null]
const authz = KINDS.find((k) => k.kind === 'tacacs_authorization')!
const rauth = KINDS.find((k) => k.kind === 'radius_authentication')!
const acct = KINDS.find((k) => k.kind === 'tacacs_accounting')!

/** A small deterministic generator, so a failure can be replayed. */
function prng(seed: number) {
  return () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648)
}

/** Rows over three days, timestamps with microseconds, some on hour and day boundaries. */
function rows(kind: 'authz' | 'rauth', n: number) {
  const r = prng(kind === 'authz' ? 7 : 11)
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)]
  const base = Date.parse('2026-11-18T00:00:00Z')
  return Array.from({ length: n }, (_, i) => {
    const ms = i % 17 === 0 ? base + Math.floor(r() * 72) * 3_600_000 : base + Math.floor(r() * 72 * 3_600_000)
    const us = i % 17 === 0 ? '000000' : String(Math.floor(r() * 1e6)).padStart(6, '0')
    const common = {
      timestamp: new Date(ms).toISOString().slice(0, 19) + '.' + us + 'Z',
      username: pick(USERS),
      nas_ip: pick(NAS),
      node_id: pick(NODES),
      source_file: '/var/log/x.log',
      source_offset: i,
    }
    if (kind === 'authz') return { ...common, action: pick(['permit', 'deny']), rule_name: pick(['r1', 'r2', null]), profile: pick(['p1', null]), service: pick(['shell', 'exec']) }
    return { ...common, status: pick(['accept', 'reject']), auth_type: pick(['PAP', 'CHAP', 'MS-CHAPv2', null]) }
  })
}

/** Date windows: none, open on either side, whole hours and days, microsecond edges, inside one hour, empty. */
const WINDOWS: [string?, string?][] = [
  [],
  ['2026-11-18T05:00:00Z'],
  [undefined, '2026-11-19T13:00:00Z'],
  ['2026-11-18T00:00:00Z', '2026-11-20T23:59:59.999999Z'],
  ['2026-11-18T07:13:22.123457Z', '2026-11-20T02:00:00.000001Z'],
  ['2026-11-19T10:00:00.000001Z', '2026-11-19T10:59:59.999Z'],
  ['2026-11-19T00:00:00+03:00', '2026-11-19T12:30:00.5-02:00'],
  ['2026-11-19t04:00:00z', '2026-11-19t05:00:00z'],
  ['2026-11-20T00:00:00Z', '2026-11-19T00:00:00Z'],
]

for (const engine of testEngines()) {
  describe(`aaa-logs total_by_filter (${engine})`, function () {
    this.timeout(120_000)
    let t: TestApp
    let knex: Knex

    before(async () => {
      t = await startTestApp({ engine, plugins: ['aaa-logs'], env: { DOCS_ENABLED: 'true' }, settings: { 'aaa-logs.ingest_enabled': false } })
      knex = t.app.db.knex
      await logRows(knex, authz).insert(rows('authz', 600))
      await logRows(knex, rauth).insert(rows('rauth', 400))
    })
    after(async () => t?.stop())

    const real = async (k: typeof authz, q: LogFilters) => {
      const qb = logRows(knex, k)
      applyLogFilters(k, qb, q)
      return countOf(qb)
    }
    const answer = async (k: typeof authz, q: LogFilters & { page?: number; per_page?: number }) => {
      const qs = new URLSearchParams(Object.entries(q).filter(([, v]) => v !== undefined).map(([a, b]) => [a, String(b)]))
      const r = await t.admin('GET', `/api/v1/aaa/logs/${k.path}?${qs}`)
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      return r.body as { items: unknown[]; total_by_filter: number; total_by_filter_capped: boolean; pages: number; per_page: number }
    }
    /** Every one-dimension filter with every enum value and every window: the API's total equals count(*), uncapped. */
    const checkAll = async (k: typeof authz, dims: LogFilters[], enums: LogFilters[]) => {
      let checked = 0
      for (const d of dims)
        for (const e of enums)
          for (const [date_from, date_to] of WINDOWS) {
            const q = { ...d, ...e, date_from, date_to }
            const body = await answer(k, { ...q, per_page: 7 })
            const want = await real(k, q)
            expect({ q, n: body.total_by_filter, capped: body.total_by_filter_capped }).to.deep.equal({ q, n: want, capped: false })
            expect(body.pages).to.equal(Math.ceil(want / 7))
            checked += want
          }
      expect(checked, 'the combinations match rows').to.be.greaterThan(0)
    }
    const authzDims: LogFilters[] = [{}, { username: 'alice' }, { username: 'Ünïcode user' }, { nas_ip: '2001:db8:0::1' }, { nas_ip: '192.0.2.2' }, { node_id: NODES[1] }, { rule_name: 'r2' }, { profile: 'p1' }, { service: 'exec' }, { username: 'nobody' }]
    const rauthEnums: LogFilters[] = [{}, { status: 'reject' }, { auth_type: 'CHAP' }, { status: 'accept', auth_type: 'PAP' }]

    it('is exact for each filter the rollup keeps, with enum filters and any date window (count(*) of the same filter)', async () => {
      await checkAll(authz, authzDims, [{}, { action: 'deny' }])
      await checkAll(rauth, [{}, { username: 'bob' }, { nas_ip: '192.0.2.1' }, { node_id: NODES[0] }], rauthEnums)
    })

    it('answers those totals from the rollup: no row of the window is counted, only the partial buckets at its edges', async () => {
      const seen: string[] = []
      const on = (q: { sql: string }) => void (q.sql.includes(`"${authz.table}"`) && /count\(/i.test(q.sql) && seen.push(q.sql))
      knex.on('query', on)
      try {
        for (const q of [{}, { username: 'alice', action: 'deny' }, { nas_ip: '192.0.2.2' }, { rule_name: 'r1' }]) await answer(authz, q)
        expect(seen, 'no count of the rows without a date window').to.deep.equal([])
        await answer(authz, { username: 'alice', date_from: '2026-11-18T07:13:22Z', date_to: '2026-11-20T02:30:00Z' })
        expect(seen).to.have.length(2)
        for (const sql of seen) {
          expect(sql, 'each edge count is bounded on both sides').to.match(/"timestamp" >= /)
          expect(sql, 'each edge count is bounded on both sides').to.match(/"timestamp" <=? /)
        }
      } finally {
        knex.removeListener('query', on)
      }
    })

    it('stays exact through DELETE, UPDATE, a rolled-back INSERT and TRUNCATE', async () => {
      await logRows(knex, authz).where({ username: 'bob', action: 'deny' }).del()
      await logRows(knex, authz).where({ username: 'alice', nas_ip: '192.0.2.1' }).update({ username: 'bob', timestamp: knex.raw(`timestamp + interval '90 minutes'`) })
      await knex
        .transaction(async (trx) => {
          await logRows(trx, authz).insert(rows('authz', 50))
          throw new Error('rolled back')
        })
        .catch(() => undefined)
      const some: LogFilters[] = [{}, { username: 'alice' }, { username: 'bob' }, { nas_ip: '192.0.2.1' }, { rule_name: 'r1' }]
      await checkAll(authz, some, [{}, { action: 'permit' }])
      const copy = await logRows(knex, authz).select('*')
      await knex.raw(`TRUNCATE ${authz.table}`)
      expect((await answer(authz, { username: 'bob' })).total_by_filter).to.equal(0)
      await logRows(knex, authz).insert(copy)
      await checkAll(authz, some, [{}])
    })

    it('counts two dimension filters together exactly below the cap, uncapped', async () => {
      for (const q of [{ username: 'alice', nas_ip: '192.0.2.2' }, { node_id: NODES[0], rule_name: 'r1', action: 'permit' }, { username: 'bob', service: 'shell', date_from: '2026-11-19T03:30:00Z' }]) {
        const body = await answer(authz, q)
        expect(body).to.include({ total_by_filter: await real(authz, q), total_by_filter_capped: false })
      }
    })

    it('caps a search past 10,000 matches and says so; pages follow; a short last page is exact', async () => {
      const n = 10_030
      await knex.raw(
        `INSERT INTO ${acct.table} (timestamp, username, nas_ip, node_id, action, source_file, source_offset, command)
         SELECT timestamp '2026-11-19 00:00:00+00' + g * interval '1 second', 'bulk-user', '198.51.100.7', ?, 'start', '/x', g, 'show bulk ' || g
         FROM generate_series(1, ${n}) g`,
        [NODES[0]],
      )
      const s = await answer(acct, { search: 'bulk-user' })
      expect(s).to.include({ total_by_filter: 10_000, total_by_filter_capped: true, pages: 200, per_page: 50 })
      expect(s.items).to.have.length(50)
      // Far pages prove more: the bound follows the page read; a short page is the last one, so exact.
      expect(await answer(acct, { search: 'bulk-user', page: 200 })).to.include({ total_by_filter: 10_000, total_by_filter_capped: true, pages: 200 })
      expect(await answer(acct, { search: 'bulk-user', page: 201 })).to.include({ total_by_filter: n, total_by_filter_capped: false, pages: 201 })
      expect(await answer(acct, { search: 'bulk-user', page: 300 })).to.include({ total_by_filter: 10_000, total_by_filter_capped: true })
      expect(await answer(acct, { search: 'bulk-user', per_page: 200, page: 51 })).to.include({ total_by_filter: n, total_by_filter_capped: false, pages: 51 })
      // Two dimension filters together: the same capped count.
      expect(await answer(acct, { username: 'bulk-user', nas_ip: '198.51.100.7' })).to.include({ total_by_filter: 10_000, total_by_filter_capped: true })
      // The rollup's filters stay exact whatever the size.
      expect(await answer(acct, { username: 'bulk-user' })).to.include({ total_by_filter: n, total_by_filter_capped: false, pages: 201 })
      expect(await answer(acct, { nas_ip: '198.51.100.7', action: 'start', date_from: '2026-11-19T00:00:00.5Z' })).to.include({ total_by_filter: n, total_by_filter_capped: false })
      // A search with few matches is exact.
      expect(await answer(acct, { search: 'show bulk 1003' })).to.include({ total_by_filter: 2, total_by_filter_capped: false, pages: 1 })
      expect(await answer(acct, { search: 'no such text' })).to.include({ total_by_filter: 0, total_by_filter_capped: false, pages: 0 })
    })

    it('sorts the page of a search with few matches out of all of them, in the order asked for', async () => {
      // 'show bulk 100' matches 100, 1000–1009 and 10000–10030: 42 entries, counted to the end.
      for (const [sort_by, sort_order] of [['timestamp', 'asc'], ['timestamp', 'desc'], ['username', 'asc']] as const) {
        const body = await answer(acct, { search: 'show bulk 100', sort_by, sort_order, per_page: 10, page: 2 } as LogFilters)
        expect(body).to.include({ total_by_filter: 42, total_by_filter_capped: false, pages: 5 })
        const want = await logRows(knex, acct).where('command', 'like', 'show bulk 100%').orderBy(sort_by, sort_order).orderBy('id', sort_order).offset(10).limit(10).pluck('id')
        expect((body.items as { id: string }[]).map((i) => i.id)).to.deep.equal(want)
      }
    })

    it(engine === 'postgres' ? 'stops counting after aaa-logs.count_budget_ms and says so, with what the page proves' : 'counts to the cap whatever aaa-logs.count_budget_ms (PGlite cannot cut a statement)', async () => {
      const set = async (value: number) => expect((await t.admin('PUT', '/api/v1/settings/aaa-logs.count_budget_ms', { body: { value } })).status).to.equal(200)
      await set(1)
      try {
        const first = await answer(acct, { search: 'bulk-user' })
        expect(first.items).to.have.length(50)
        if (engine === 'postgres') {
          // Out of time: either the walk of the time index found the page within the budget (then the
          // page is all that is proven) or the matches were read whole (then the count is exact).
          if (first.total_by_filter_capped) expect(first).to.include({ total_by_filter: 50, pages: 1 })
          else expect(first).to.include({ total_by_filter: 10_030, pages: 201 })
        } else expect(first).to.include({ total_by_filter: 10_000, total_by_filter_capped: true, pages: 200 })
        // A short last page is exact whatever stopped the count.
        expect(await answer(acct, { search: 'bulk-user', page: 201 })).to.include({ total_by_filter: 10_030, total_by_filter_capped: false })
        // The rollup's totals take no budget.
        expect(await answer(acct, { username: 'bulk-user' })).to.include({ total_by_filter: 10_030, total_by_filter_capped: false })
      } finally {
        await set(200)
      }
      expect(await answer(acct, { search: 'bulk-user' })).to.include({ total_by_filter: 10_000, total_by_filter_capped: true })
    })

    it('declares total_by_filter_capped in every list schema of the OpenAPI document', async function () {
      const doc = (await t.req('GET', '/openapi.json')).body as { paths: Record<string, { get: { responses: Record<string, { content: Record<string, { schema: { $ref?: string } }> }> } }>; components: { schemas: Record<string, { required?: string[]; properties: Record<string, { type?: string; description?: string }> }> } }
      for (const k of KINDS) {
        let schema = doc.paths[`/api/v1/aaa/logs/${k.path}`].get.responses['200'].content['application/json'].schema as { $ref?: string } & Record<string, unknown>
        if (schema.$ref) schema = doc.components.schemas[schema.$ref.split('/').pop()!] as never
        const s = schema as unknown as { required: string[]; properties: Record<string, { type?: string; description?: string }> }
        expect(s.required).to.include.members(['items', 'total', 'total_by_filter', 'total_by_filter_capped', 'page', 'per_page', 'pages'])
        expect(s.properties.total_by_filter_capped.type).to.equal('boolean')
        expect(s.properties.total_by_filter_capped.description).to.contain('10,000')
      }
    })
  })
}
