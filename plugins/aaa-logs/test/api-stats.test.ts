/**
 * The dashboard's figures (GET /aaa/logs/stats/authentications and /stats/top-failures): rows
 * inserted as the ingester writes them (the rollup's triggers fire), then the counts per bucket,
 * protocol and result asserted exactly, the hour buckets from the rollup and the minute buckets
 * from the rows; the top failing users and devices of the last 24 hours. Both engines.
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp, testEngines } from '../../../test/kit/app.js'
import { KINDS, logRows } from '../services/logs.js'

const NODE = randomUUID()
const tacacs = KINDS.find((k) => k.kind === 'tacacs_authentication')!
const radius = KINDS.find((k) => k.kind === 'radius_authentication')!
const MIN = 60_000
const HOUR = 3_600_000

interface Series {
  protocol: string
  result: string
  counts: number[]
  total: number
}
interface Stats {
  range: string
  bucket_seconds: number
  buckets: string[]
  series: Series[]
}

for (const engine of testEngines()) {
  describe(`aaa-logs dashboard stats (${engine})`, function () {
    this.timeout(120_000)
    let t: TestApp
    const now = Date.now()
    const at = (ms: number) => new Date(now - ms).toISOString()
    let offset = 0
    const common = (ago: number, username: string, nas_ip: string | null, device_name: string | null = null) => ({
      timestamp: at(ago),
      username,
      nas_ip,
      device_name,
      node_id: NODE,
      source_file: '/var/log/x.log',
      source_offset: offset++,
    })
    /** [minutes ago, user, NAS, status], the kind's own statuses. */
    const T: [number, string, string | null, 'success' | 'failure'][] = [
      [5, 'alice', '192.0.2.1', 'success'],
      [5, 'alice', '192.0.2.1', 'success'],
      [5, 'mallory', '192.0.2.9', 'failure'],
      [7, 'mallory', '192.0.2.9', 'failure'],
      [180, 'mallory', '192.0.2.9', 'failure'],
      [30 * 60, 'old-failure', '192.0.2.50', 'failure'], // 30 hours ago: outside 24 h, inside 7 days
    ]
    const R: [number, string, string | null, 'accept' | 'reject', string | null][] = [
      [5, 'bob', '192.0.2.2', 'accept', 'PAP'],
      [5, 'eve', '192.0.2.2', 'reject', 'CHAP'],
      [6, 'laptop-1', '192.0.2.3', 'accept', 'PEAP'],
      [6, 'aa-bb-cc-dd-ee-ff', '192.0.2.3', 'reject', 'MAB'],
      [6, 'cert-user', '192.0.2.3', 'reject', 'EAP-TLS'],
      [120, 'eve', null, 'reject', null],
    ]

    before(async () => {
      t = await startTestApp({ engine, plugins: ['aaa-logs'], settings: { 'aaa-logs.ingest_enabled': false } })
      await logRows(t.app.db.knex, tacacs).insert(T.map(([m, u, ip, status]) => ({ ...common(m * MIN, u, ip, ip === '192.0.2.9' ? 'edge-sw9' : null), status })))
      await logRows(t.app.db.knex, radius).insert(R.map(([m, u, ip, status, auth_type]) => ({ ...common(m * MIN, u, ip), status, auth_type })))
    })
    after(async () => t?.stop())

    const stats = async (range?: string) => {
      const r = await t.admin('GET', `/api/v1/aaa/logs/stats/authentications${range ? `?range=${range}` : ''}`)
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      return r.body as Stats
    }
    /** The counts of a series, as { bucket start: n } with the zero buckets left out. */
    const nonZero = (s: Stats, protocol: string, result: string) => {
      const x = s.series.find((y) => y.protocol === protocol && y.result === result)!
      return { total: x.total, at: Object.fromEntries(x.counts.flatMap((n, i) => (n ? [[s.buckets[i], n]] : []))) }
    }
    const bucketOf = (ago: number, grain: number) => new Date(Math.floor((now - ago) / grain) * grain).toISOString()

    it('counts the last 24 hours by hour from the rollup: each protocol and result apart, NAC by its auth_type', async () => {
      const s = await stats()
      expect(s.range).to.equal('24h')
      expect(s.bucket_seconds).to.equal(3600)
      expect(s.buckets).to.have.length(24)
      expect(s.series.map((x) => `${x.protocol}/${x.result}`)).to.deep.equal(['tacacs/success', 'tacacs/failure', 'radius/success', 'radius/failure', 'nac/success', 'nac/failure'])
      for (const x of s.series) expect(x.counts).to.have.length(24)
      const h = (m: number) => bucketOf(m * MIN, HOUR)
      const sum = (pairs: [string, number][]) => pairs.reduce<Record<string, number>>((o, [k, n]) => ({ ...o, [k]: (o[k] ?? 0) + n }), {})
      expect(nonZero(s, 'tacacs', 'success')).to.deep.equal({ total: 2, at: { [h(5)]: 2 } })
      expect(nonZero(s, 'tacacs', 'failure')).to.deep.equal({ total: 3, at: sum([[h(5), 1], [h(7), 1], [h(180), 1]]) })
      expect(nonZero(s, 'radius', 'success')).to.deep.equal({ total: 1, at: { [h(5)]: 1 } })
      expect(nonZero(s, 'radius', 'failure')).to.deep.equal({ total: 2, at: sum([[h(5), 1], [h(120), 1]]) })
      expect(nonZero(s, 'nac', 'success')).to.deep.equal({ total: 1, at: { [h(6)]: 1 } })
      expect(nonZero(s, 'nac', 'failure')).to.deep.equal({ total: 2, at: { [h(6)]: 2 } })
    })

    it('counts 7 days by hour and the last hour by minute (from the rows)', async () => {
      const week = await stats('7d')
      expect(week.buckets).to.have.length(168)
      expect(nonZero(week, 'tacacs', 'failure').total).to.equal(4)
      const hour = await stats('1h')
      expect(hour.bucket_seconds).to.equal(60)
      expect(hour.buckets).to.have.length(60)
      const m = (x: number) => bucketOf(x * MIN, MIN)
      expect(nonZero(hour, 'tacacs', 'success')).to.deep.equal({ total: 2, at: { [m(5)]: 2 } })
      expect(nonZero(hour, 'tacacs', 'failure')).to.deep.equal({ total: 2, at: m(5) === m(7) ? { [m(5)]: 2 } : { [m(5)]: 1, [m(7)]: 1 } })
      expect(nonZero(hour, 'radius', 'failure')).to.deep.equal({ total: 1, at: { [m(5)]: 1 } })
      expect(nonZero(hour, 'nac', 'failure')).to.deep.equal({ total: 2, at: { [m(6)]: 2 } })
      expect((await stats('15m')).buckets).to.have.length(15)
    })

    it('lists the top failing users and devices of the last 24 hours', async () => {
      const r = await t.admin('GET', '/api/v1/aaa/logs/stats/top-failures')
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      const body = r.body as { users: unknown[]; devices: unknown[] }
      expect(body.users).to.deep.equal([
        { username: 'mallory', failures: 3 },
        { username: 'eve', failures: 2 },
        { username: 'aa-bb-cc-dd-ee-ff', failures: 1 },
        { username: 'cert-user', failures: 1 },
      ])
      expect(body.devices).to.deep.equal([
        { nas_ip: '192.0.2.9', device_name: 'edge-sw9', failures: 3 },
        { nas_ip: '192.0.2.3', device_name: null, failures: 2 },
        { nas_ip: '192.0.2.2', device_name: null, failures: 1 },
      ])
      const one = await t.admin('GET', '/api/v1/aaa/logs/stats/top-failures?hours=48&limit=1')
      expect((one.body as { users: unknown[] }).users).to.deep.equal([{ username: 'mallory', failures: 3 }])
    })

    it('refuses an unknown range and a limit out of bounds (422), and an anonymous caller (401; the authorization matrix checks the permission)', async () => {
      expect((await t.admin('GET', '/api/v1/aaa/logs/stats/authentications?range=2h')).status).to.equal(422)
      expect((await t.admin('GET', '/api/v1/aaa/logs/stats/top-failures?limit=21')).status).to.equal(422)
      expect((await t.req('GET', '/api/v1/aaa/logs/stats/top-failures')).status).to.equal(401)
    })
  })
}
