/**
 * NAC endpoints (issue 16): the endpoint list and search at 100,000
 * endpoints, each beside the raw SQL it runs (the bound), measured in the same
 * run; the CSV import of 10,000 lines; the export of the whole table.
 *
 * Setup. The default edition in this process (bench/lib/bench-app.ts: a
 * throwaway PostgreSQL, production defaults, a silent logger). Data: BENCH_ENDPOINTS
 * (default 100,000) endpoints inserted in batches of 1,000 through knex: MACs
 * under eight real OUIs (vendor from the IEEE registry as the API sets it; a
 * tenth locally administered, no vendor), a description of a few words
 * ("sensor in lab 17", "designer laptop 4211"), 50 groups (a tenth ungrouped),
 * last seen over 90 days, a device type on half. Then VACUUM ANALYZE.
 *
 * Measured (BENCH_ITERATIONS, default 30; the route and its bound interleaved
 * iteration by iteration; median, p95, min). A request is timed from the
 * write to the last byte (node:http, one keep-alive socket). Bound: the
 * statements the route ran on the endpoint tables (captured from knex's query
 * events), replayed through bare pg on three connections at once, as the list
 * runs its two counts side by side. The ratio is route / bound (1.0: the API
 * costs nothing over its SQL).
 *
 * Import: 10,000 new MACs (atomic, the default), then the same 10,000 with a
 * new description (all updated); lines per second. Bound: the same 10,000
 * rows written by bare pg as the import writes them (multi-row INSERTs of
 * 500, one transaction). Export: the whole table as CSV and xlsx.
 *
 * Figures only: nothing fails on a timing. Run: node --import tsx bench/nac-endpoints.ts
 * (BENCH_ENDPOINTS, BENCH_ITERATIONS; BENCH_EXPLAIN=1 prints each case's plans).
 */
import http from 'node:http'
import pg from 'pg'
import { ouiVendor } from '../plugins/nac/services/oui.js'
import { startBenchApp } from './lib/bench-app.js'
import { captureStatements, replayStatements, type Statement } from './lib/sql-bound.js'
import { envInt, fmtStats, loadAvg, machine, median, runAsMain, stats, type Stats } from './lib.js'

const OUIS = ['00000c', '001b63', 'b827eb', 'f4f5d8', '3c5ab4', '005056', '00163e', 'a4c361']
const WORDS = ['sensor', 'printer', 'camera', 'designer laptop', 'desk phone', 'badge reader', 'kiosk', 'thermostat']
const TYPES = ['IP phone', 'Printer', 'IP camera', 'Windows workstation', 'macOS workstation', 'IoT sensor']

function request(agent: http.Agent, base: string, token: string, method: string, p: string, body?: string, type?: string): Promise<{ status: number; ms: number; text: string }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now()
    const headers: Record<string, string> = { authorization: `Bearer ${token}` }
    if (type) headers['content-type'] = type
    const req = http.request(base + p, { method, agent, headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0, text: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}


const macOf = (oui: string, i: number, local: boolean) => {
  const first = local ? ((parseInt(oui.slice(0, 2), 16) | 0x02) & 0xfe).toString(16).padStart(2, '0') : oui.slice(0, 2)
  return `${first}${oui.slice(2)}${i.toString(16).padStart(6, '0')}`.match(/../g)!.join(':')
}

export interface NacBench {
  endpoints: number
  cases: { name: string; api: Stats; bound: Stats; ratio: number }[]
  import: { created_lines_per_s: number; updated_lines_per_s: number; bound_lines_per_s: number; ratio: number }
  export: { csv_ms: number; xlsx_ms: number; rows: number }
}

export async function runNacEndpoints(o: { printMachine?: boolean } = {}): Promise<NacBench> {
  if (o.printMachine !== false) console.log(machine().line)
  const N = envInt('BENCH_ENDPOINTS', 100_000)
  const ITER = envInt('BENCH_ITERATIONS', 30)
  const b = await startBenchApp('nac')
  const knex = b.app.db.knex
  const clients = await Promise.all([0, 1, 2].map(async () => {
    const c = new pg.Client({ connectionString: b.config.databaseUrl! })
    await c.connect()
    return c
  }))
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const base = b.app.url
  try {
    console.log(`\nnac endpoints: seeding ${N.toLocaleString('en')} endpoints (load average ${loadAvg()})`)
    const groups = (await knex('nac_endpoint_groups').insert(Array.from({ length: 50 }, (_, i) => ({ name: `group-${i}`, description: `bench group ${i}` }))).returning('id')).map((r) => r.id)
    const vendors = new Map(OUIS.map((x) => [x, ouiVendor(macOf(x, 1, false))]))
    const now = Date.now()
    for (let start = 0; start < N; start += 1000) {
      const rows = []
      for (let i = start; i < Math.min(N, start + 1000); i++) {
        const oui = OUIS[i % OUIS.length]
        const local = i % 10 === 9
        rows.push({
          mac: macOf(oui, i, local),
          vendor: local ? null : vendors.get(oui)!,
          description: `${WORDS[i % WORDS.length]} ${i % 7 === 0 ? `in lab ${i % 97}` : `${i}`}`,
          endpoint_group_id: i % 10 === 0 ? null : groups[i % groups.length],
          last_seen_at: new Date(now - ((i * 7919) % (90 * 86400)) * 1000),
          first_seen_at: new Date(now - 90 * 86400 * 1000),
          device_type: i % 2 ? TYPES[i % TYPES.length] : null,
          device_type_confidence: i % 2 ? 80 : null,
        })
      }
      await knex('nac_endpoints').insert(rows)
    }
    // As autovacuum would after a bulk load: the trigram index's pending list flushed, statistics fresh.
    await knex.raw('VACUUM ANALYZE nac_endpoints')
    await knex.raw('ANALYZE nac_endpoint_groups')

    const g = groups[3]
    const sample = macOf(OUIS[1], 4242, false)
    const CASES: [string, string][] = [
      ['first page, sorted by MAC', '/api/v1/nac/endpoints'],
      ['page 500 by last seen, newest first', '/api/v1/nac/endpoints?page=500&per_page=100&sort_by=last_seen_at&sort_order=desc'],
      ['one group (~1/50), by MAC', `/api/v1/nac/endpoints?endpoint_group_id=${g}&per_page=100`],
      ['vendor prefix "raspberry"', '/api/v1/nac/endpoints?vendor=raspberry&per_page=100'],
      ['search "lab 42" (description)', '/api/v1/nac/endpoints?search=lab%2042&per_page=100'],
      ['search MAC fragment "00-1B-63-00-10"', '/api/v1/nac/endpoints?search=00-1B-63-00-10'],
      ['exact MAC in Cisco notation', `/api/v1/nac/endpoints?mac=${sample.replace(/:/g, '').replace(/(....)(?=.)/g, '$1.')}`],
    ]
    const cases: NacBench['cases'] = []
    for (const [name, path] of CASES) {
      const warm = await request(agent, base, b.token, 'GET', path)
      if (warm.status !== 200) throw new Error(`${path}: ${warm.status} ${warm.text.slice(0, 200)}`)
      let st: Statement[] = []
      const api: number[] = []
      const bound: number[] = []
      for (let i = 0; i < ITER; i++) {
        let ms = 0
        st = await captureStatements(knex, ['nac_endpoints', 'nac_endpoint_groups'], async () => {
          ms = (await request(agent, base, b.token, 'GET', path)).ms
        })
        api.push(ms)
        bound.push(await replayStatements(clients, st))
      }
      if (process.env.BENCH_EXPLAIN) {
        for (const q of st) {
          const plan = await clients[0].query(`EXPLAIN (ANALYZE, COSTS OFF) ${q.sql}`, q.bindings as unknown[])
          console.log(`    ${q.sql.slice(0, 160)}\n${plan.rows.map((r: Record<string, string>) => `      ${r['QUERY PLAN']}`).join('\n')}`)
        }
      }
      const a = stats(api)
      const s = stats(bound)
      const ratio = a.median / s.median
      cases.push({ name, api: a, bound: s, ratio })
      console.log(`  ${name}: API ${fmtStats(a)}; raw SQL (${st.length} statements) ${fmtStats(s)}; ratio API/SQL ${ratio.toFixed(2)}`)
    }

    // Import: 10,000 new lines, then the same lines all updated.
    const L = 10_000
    const fresh = Array.from({ length: L }, (_, i) => macOf('0050c2', i, false))
    const csv = (desc: string) => 'mac,description,endpoint_group\n' + fresh.map((m, i) => `${m},${desc} ${i},group-${i % 50}`).join('\n') + '\n'
    const imp = async (body: string) => {
      const r = await request(agent, base, b.token, 'POST', '/api/v1/nac/endpoints/import', body, 'text/csv')
      if (r.status !== 200) throw new Error(`import: ${r.status} ${r.text.slice(0, 300)}`)
      const rep = JSON.parse(r.text) as { created: number; updated: number; refused: number }
      return { ms: r.ms, rep }
    }
    const created = await imp(csv('imported'))
    const updated = await imp(csv('re-imported'))
    if (created.rep.created !== L || updated.rep.updated !== L) throw new Error(`import report: ${JSON.stringify([created.rep, updated.rep])}`)
    // Bound: the same rows, as the import inserts them, by bare pg.
    const boundMacs = Array.from({ length: L }, (_, i) => macOf('0050c3', i, false))
    const t0 = performance.now()
    await clients[0].query('BEGIN')
    for (let i = 0; i < L; i += 500) {
      const chunk = boundMacs.slice(i, i + 500)
      const vals = chunk.map((_, j) => `($${j * 4 + 1}, $${j * 4 + 2}, $${j * 4 + 3}, $${j * 4 + 4})`).join(',')
      await clients[0].query(`INSERT INTO nac_endpoints (mac, vendor, description, endpoint_group_id) VALUES ${vals} ON CONFLICT (mac) DO NOTHING RETURNING id, mac`, chunk.flatMap((m, j) => [m, ouiVendor(m), `bound ${i + j}`, groups[(i + j) % 50]]))
    }
    await clients[0].query('COMMIT')
    const boundMs = performance.now() - t0
    const perS = (ms: number) => (L * 1000) / ms
    const importFig = { created_lines_per_s: perS(created.ms), updated_lines_per_s: perS(updated.ms), bound_lines_per_s: perS(boundMs), ratio: perS(created.ms) / perS(boundMs) }
    console.log(`  import of ${L.toLocaleString('en')} lines: new ${created.ms.toFixed(0)} ms (${importFig.created_lines_per_s.toFixed(0)} lines/s), all updated ${updated.ms.toFixed(0)} ms (${importFig.updated_lines_per_s.toFixed(0)} lines/s); bound (bare pg inserts) ${boundMs.toFixed(0)} ms (${importFig.bound_lines_per_s.toFixed(0)} rows/s); ratio new/bound ${importFig.ratio.toFixed(2)}`)

    const exp = async (format: string) => {
      const times: number[] = []
      let rows = 0
      for (let i = 0; i < 3; i++) {
        const t1 = performance.now()
        const r = await request(agent, base, b.token, 'GET', `/api/v1/nac/endpoints/export?format=${format}`)
        times.push(performance.now() - t1)
        rows = r.text.split('\r\n').length - 2
      }
      return { ms: median(times), rows }
    }
    const c = await exp('csv')
    const x = await exp('xlsx')
    console.log(`  export of the whole table (${c.rows.toLocaleString('en')} rows): csv ${c.ms.toFixed(0)} ms, xlsx ${x.ms.toFixed(0)} ms (median of 3)`)
    console.log(`  load average at the end: ${loadAvg()}`)
    return { endpoints: N, cases, import: importFig, export: { csv_ms: c.ms, xlsx_ms: x.ms, rows: c.rows } }
  } finally {
    agent.destroy()
    for (const c of clients) await c.end().catch(() => undefined)
    await b.stop()
  }
}

runAsMain(import.meta.url, () => runNacEndpoints())
