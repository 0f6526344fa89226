/**
 * Configuration tracking (issue 31): search over the latest configurations (GET /api/v1/ncm/search).
 *
 * Data: D devices (default 10,000 on PostgreSQL, 2,000 on the embedded engine) in the inventory, in
 * 10 device groups, each with a 600-line latest configuration in ncm_latest_lines (6,000,000 lines at
 * 10,000 devices), generated in SQL with the trigram index dropped, then re-created as migration 0002
 * makes it and ANALYZEd. Lines are interface blocks; 1 device in 100 has `ip http server` and
 * `snmp-server location lab-bench`, the others `no ip http server` and `snmp-server location rack`.
 * Queries, each 20 times through the API as an administrator: a rare term, a common term (every
 * device, hundreds of lines each: capped at 1,000 devices), an absent term, `match=line`, and the
 * rare and common terms within one group (a tenth of the devices).
 * Bound, in the same run: the first SQL statement of the search (the matching devices and their
 * counts) run alone through the same connection; the route adds the names, the page's lines, HTTP.
 * Target: p95 < 300 ms on PostgreSQL; the embedded engine is reported.
 *
 * Figures only: nothing fails on a timing. Run: node --import tsx bench/ncm-search.ts
 * (BENCH_SEARCH_DEVICES, default 10000; BENCH_SEARCH_EMBEDDED_DEVICES, default 2000;
 * BENCH_SEARCH_ENGINES=postgres,embedded; BENCH_SEARCH_RUNS, default 20).
 */
import { likeEscape } from '../sdk/index.js'
import { startTestApp, type TestApp } from '../test/kit/app.js'
import { envInt, f2, loadAvg, machine, runAsMain, stats, type Stats } from './lib.js'

type Engine = 'postgres' | 'embedded'
const LINES = 600

export interface SearchFigure {
  engine: Engine
  devices: number
  query: string
  total: number
  capped: boolean
  api: Stats
  sql: Stats
}

async function load(t: TestApp, devices: number): Promise<{ groupId: string; loadMs: number; indexMs: number }> {
  const knex = t.app.db.knex
  const t0 = performance.now()
  const groups = await knex.raw<{ rows: { id: string }[] }>(`INSERT INTO inventory_device_groups (name) SELECT 'bench-group-' || g FROM generate_series(0, 9) g RETURNING id`)
  const ids = groups.rows.map((r) => r.id)
  await knex.raw(
    `INSERT INTO inventory_devices (name, address, address_cidr, device_group_id)
     SELECT 'sw-' || lpad(d::text, 5, '0'), a || '/32', (a || '/32')::cidr, (?::uuid[])[1 + d % 10]
       FROM generate_series(1, ?) d, LATERAL (SELECT '10.' || (d / 65536) || '.' || (d / 256 % 256) || '.' || (d % 256) AS a) x`,
    [`{${ids.join(',')}}`, devices],
  )
  await knex.raw(`INSERT INTO ncm_devices (device_id) SELECT id FROM inventory_devices`)
  await knex.raw('DROP INDEX IF EXISTS ncm_latest_lines_trgm')
  const all = (await knex('inventory_devices').orderBy('name').select('id')).map((r) => r.id)
  const CHUNK = 250
  for (let i = 0; i < all.length; i += CHUNK) {
    // One statement a chunk: the embedded engine keeps a statement's work in WebAssembly memory.
    await knex.transaction(async (trx) => {
      await trx.raw('SET LOCAL statement_timeout = 0')
      await trx.raw(
      `INSERT INTO ncm_latest_lines (device_id, n, line, line_lc)
       SELECT dev.id, g.n, l.line, lower(l.line)
         FROM unnest(?::uuid[]) WITH ORDINALITY AS dev(id, d), generate_series(1, ${LINES}) AS g(n),
         LATERAL (SELECT CASE
           WHEN g.n = ${LINES - 1} THEN CASE WHEN (dev.d + ${i}) % 100 = 0 THEN 'ip http server' ELSE 'no ip http server' END
           WHEN g.n = ${LINES - 2} THEN CASE WHEN (dev.d + ${i}) % 100 = 0 THEN 'snmp-server location lab-bench' ELSE 'snmp-server location rack' END
           WHEN g.n % 8 = 0 THEN 'interface GigabitEthernet' || (g.n / 8 / 48) || '/0/' || (g.n / 8 % 48)
           WHEN g.n % 8 = 1 THEN ' description port ' || g.n || ' to rack ' || ((dev.d + ${i}) % 97)
           WHEN g.n % 8 = 2 THEN ' switchport access vlan ' || (100 + (g.n + dev.d) % 300)
           WHEN g.n % 8 = 3 THEN ' switchport mode access'
           WHEN g.n % 8 = 4 THEN ' ip access-group acl-' || (g.n % 13) || ' in'
           WHEN g.n % 8 = 5 THEN ' spanning-tree portfast'
           WHEN g.n % 8 = 6 THEN ' no shutdown'
           ELSE '!' END AS line) l`,
      [`{${all.slice(i, i + CHUNK).join(',')}}`],
      )
    })
  }
  const loadMs = performance.now() - t0
  const t1 = performance.now()
  // The app's connections carry its statement timeout: the bench's loading is no request.
  await knex.transaction(async (trx) => {
    await trx.raw('SET LOCAL statement_timeout = 0')
    await trx.raw(`SET LOCAL maintenance_work_mem = '256MB'`)
    await trx.raw('CREATE INDEX ncm_latest_lines_trgm ON ncm_latest_lines USING gin (line_lc gin_trgm_ops)')
    await trx.raw('ANALYZE ncm_latest_lines')
  })
  // The group of devices 10, 20, 30 …: the rare ones among them.
  return { groupId: ids[0], loadMs, indexMs: performance.now() - t1 }
}

async function measureEngine(engine: Engine, devices: number, runs: number): Promise<SearchFigure[]> {
  const t = await startTestApp({ engine, plugins: ['inventory', 'aaa-logs', 'ncm'] })
  try {
    const l = await load(t, devices)
    console.log(`\n${engine}: ${devices.toLocaleString('en-US')} devices × ${LINES} lines loaded in ${(l.loadMs / 1000).toFixed(1)} s, trigram index built in ${(l.indexMs / 1000).toFixed(1)} s`)
    const queries: { name: string; q: string; match: 'contains' | 'line'; group: boolean }[] = [
      { name: 'rare term (1 device in 100)', q: 'lab-bench', match: 'contains', group: false },
      { name: 'common term (every device)', q: 'switchport mode', match: 'contains', group: false },
      { name: 'absent term', q: 'no-such-command', match: 'contains', group: false },
      { name: 'whole line (match=line): ip http server, in every device as part of no ip http server', q: 'ip http server', match: 'line', group: false },
      { name: 'rare term in one group', q: 'lab-bench', match: 'contains', group: true },
      { name: 'common term in one group', q: 'switchport mode', match: 'contains', group: true },
    ]
    const groupDevices = (await t.app.db.knex('inventory_devices').where({ device_group_id: l.groupId }).select('id')).map((r) => r.id)
    const out: SearchFigure[] = []
    for (const q of queries) {
      const path = `/api/v1/ncm/search?q=${encodeURIComponent(q.q)}&match=${q.match}${q.group ? `&device_group_id=${l.groupId}` : ''}`
      const first = await t.admin('GET', path)
      if (first.status !== 200) throw new Error(`${path}: ${first.status} ${first.text}`)
      const api: number[] = []
      for (let r = 0; r < runs; r++) {
        const t0 = performance.now()
        await t.admin('GET', path)
        api.push(performance.now() - t0)
      }
      // The bound: the statement that finds the devices and counts their lines, alone.
      const term = q.q.toLowerCase()
      const where = `line_lc LIKE ? ESCAPE '\\'${q.match === 'line' ? ` AND btrim(line_lc, E' \\t') = ?` : ''}${q.group ? ' AND device_id = ANY(?::uuid[])' : ''}`
      const bindings = [`%${likeEscape(term)}%`, ...(q.match === 'line' ? [term] : []), ...(q.group ? [`{${groupDevices.join(',')}}`] : []), 1001]
      const sql: number[] = []
      for (let r = 0; r < runs; r++) {
        const t0 = performance.now()
        await t.app.db.knex.raw(`SELECT device_id, count(*) FROM ncm_latest_lines WHERE ${where} GROUP BY device_id ORDER BY device_id LIMIT ?`, bindings)
        sql.push(performance.now() - t0)
      }
      const f: SearchFigure = { engine, devices, query: q.name, total: first.body.total, capped: first.body.total_capped, api: stats(api), sql: stats(sql) }
      out.push(f)
      console.log(`  ${q.name}: ${f.total} devices${f.capped ? ' (capped)' : ''}; API p95 ${f2(f.api.p95)} ms, median ${f2(f.api.median)} ms; SQL alone p95 ${f2(f.sql.p95)} ms, median ${f2(f.sql.median)} ms (API/SQL ${(f.api.median / f.sql.median).toFixed(2)})`)
    }
    return out
  } finally {
    await t.stop()
  }
}

export async function runNcmSearch(o: { printMachine?: boolean } = {}): Promise<SearchFigure[]> {
  const m = machine()
  if (o.printMachine !== false) console.log(m.line)
  console.log(`load average before: ${loadAvg()}`)
  const engines = (process.env.BENCH_SEARCH_ENGINES ?? 'postgres,embedded').split(',').filter(Boolean) as Engine[]
  const runs = envInt('BENCH_SEARCH_RUNS', 20)
  const out: SearchFigure[] = []
  for (const e of engines) out.push(...(await measureEngine(e, e === 'embedded' ? envInt('BENCH_SEARCH_EMBEDDED_DEVICES', 2000) : envInt('BENCH_SEARCH_DEVICES', 10_000), runs)))
  console.log(`\nload average after: ${loadAvg()}`)
  return out
}

runAsMain(import.meta.url, () => runNcmSearch())
