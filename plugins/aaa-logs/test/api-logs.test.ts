/** /api/v1/aaa/logs/…: the five kinds' lists (filters, search, sorts, pagination, dates), get-one, and exports (xlsx, csv, ceiling). */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { Validator } from '@seriousme/openapi-schema-validator'
import { parse } from 'csv-parse/sync'
import ExcelJS from 'exceljs'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import type { LogKind } from '../api.js'
import { allColumns, countOf, KINDS, logRows } from '../services/logs.js'
import { expectError } from './helpers.js'
import { skipBecause } from '../../../test/kit/skip.js'

const NODE_A = randomUUID()
const NODE_B = randomUUID()
const D1 = '2026-11-19'
const D2 = '2026-11-20'

const REQUIRED: Record<LogKind, Record<string, unknown>> = {
  tacacs_authentication: { status: 'success' },
  tacacs_authorization: { action: 'permit' },
  tacacs_accounting: { action: 'start' },
  radius_authentication: { status: 'accept' },
  radius_accounting: { acct_status_type: 'Start' },
}

let offset = 0
const row = (kind: LogKind, o: Record<string, unknown>) => ({
  id: randomUUID(),
  timestamp: `${D1}T10:00:00Z`,
  username: 'alice',
  nas_ip: '192.0.2.1',
  node_id: NODE_A,
  device_name: 'core-sw1',
  source_file: `/var/log/portcullis/${kind}.log`,
  source_offset: (offset += 100),
  ...REQUIRED[kind],
  ...o,
})

/** Authorization rows: two days, two nodes, two NAS, both actions. */
const AUTHZ_KIND = KINDS.find((k) => k.kind === 'tacacs_authorization')!
const AUTHZ = [
  row('tacacs_authorization', { timestamp: `${D1}T00:00:00Z`, username: 'alice', action: 'permit', rule_name: 'net-admins', profile: 'admin', service: 'shell', command: 'show running-config', arguments: ['cmd=show', 'cmd-arg=running-config'], priv_lvl: 15 }),
  row('tacacs_authorization', { timestamp: `${D1}T12:00:00Z`, username: 'bob', action: 'deny', rule_name: 'helpdesk', profile: 'readonly', service: 'shell', command: 'configure terminal', nas_ip: '192.0.2.2', node_id: NODE_B }),
  row('tacacs_authorization', { timestamp: `${D1}T23:59:59.999Z`, username: 'carol', action: 'permit', rule_name: 'net-admins', profile: 'admin', service: 'exec', command: '=HYPERLINK("http://evil")', device_name: '+cmd|calc' }),
  row('tacacs_authorization', { timestamp: `${D2}T00:00:00Z`, username: 'alice', action: 'deny', rule_name: 'default-deny', profile: null, service: 'shell', command: 'reload', node_id: NODE_B }),
  row('tacacs_authorization', { timestamp: `${D2}T08:30:00Z`, username: 'dave', action: 'permit', rule_name: 'helpdesk', profile: 'readonly', service: 'shell', command: 'show version, "quoted"\r\nnext', nas_ip: '2001:db8::1' }),
]

const get = async (t: TestApp, path: string) => {
  const res = await fetch(t.url + path, { headers: { authorization: `Bearer ${t.adminToken}` } })
  return { status: res.status, headers: res.headers, buf: Buffer.from(await res.arrayBuffer()) }
}

async function readXlsx(buf: Buffer): Promise<unknown[][]> {
  const wb = new ExcelJS.Workbook()
  await wb.xlsx.load(buf as unknown as ArrayBuffer)
  const ws = wb.worksheets[0]
  const out: unknown[][] = []
  ws.eachRow({ includeEmpty: true }, (r) => out.push((r.values as unknown[]).slice(1)))
  return out
}

describe('aaa-logs log lists, entries and exports', () => {
  let t: TestApp
  const AUTHZ_PATH = '/api/v1/aaa/logs/tacacs/authorization'
  const list = (q: string) => t.admin('GET', `${AUTHZ_PATH}?${q}`)
  const names = (r: { body: any }) => r.body.items.map((i: any) => i.username)

  before(async () => {
    t = await startTestApp({ plugins: ['aaa-logs'], env: { DOCS_ENABLED: 'true' } })
    const knex = t.app.db.knex
    await logRows(knex, AUTHZ_KIND).insert(AUTHZ)
    for (const k of KINDS) {
      if (k.kind === 'tacacs_authorization') continue
      const extra: Record<LogKind, Record<string, unknown>[]> = {
        tacacs_authentication: [
          { status: 'success', rule_name: 'net-admins', profile: 'admin', authen_type: 'ascii', message: 'login ok' },
          { status: 'failure', username: 'mallory', timestamp: `${D2}T01:00:00Z`, message: 'bad password', node_id: NODE_B },
        ],
        tacacs_authorization: [],
        tacacs_accounting: [
          { action: 'start', service: 'shell', command: 'show clock', arguments: ['cmd=show'] },
          { action: 'stop', username: 'bob', timestamp: `${D2}T01:00:00Z` },
          { action: 'watchdog', username: 'bob', timestamp: `${D2}T02:00:00Z` },
        ],
        radius_authentication: [
          { status: 'accept', auth_type: 'PAP', rule_name: 'wifi', rule_label: 'staff', calling_station_id: 'aa-bb-cc-dd-ee-ff', reply_attributes: JSON.stringify([{ name: 'Service-Type', value: 'Login-User' }]) },
          { status: 'reject', auth_type: 'MS-CHAPv2', username: 'eve', timestamp: `${D2}T03:00:00Z`, reason: 'no matching rule' },
        ],
        radius_accounting: [
          { acct_status_type: 'Start', acct_session_id: 'S1', framed_ip: '10.0.0.5', session_time: 0, input_octets: 0, output_octets: 0 },
          { acct_status_type: 'Stop', acct_session_id: 'S1', username: 'alice', timestamp: `${D2}T04:00:00Z`, session_time: 5_000_000_000, input_octets: 123, output_octets: 456 },
        ],
      }
      await logRows(knex, k).insert(extra[k.kind].map((o) => row(k.kind, o)))
    }
  })
  after(async () => t?.stop())

  describe('lists', () => {
    it('answers every kind with every column, newest first, default per_page 50', async () => {
      for (const k of KINDS) {
        const r = await t.admin('GET', `/api/v1/aaa/logs/${k.path}`)
        expect(r.status, `${k.kind} ${JSON.stringify(r.body)}`).to.equal(200)
        expect(r.body).to.include({ page: 1, per_page: 50 })
        expect(r.body.total).to.equal(r.body.items.length)
        for (const item of r.body.items) expect(Object.keys(item).sort()).to.deep.equal([...allColumns(k)].sort())
        const times = r.body.items.map((i: any) => i.timestamp)
        expect(times).to.deep.equal([...times].sort().reverse())
        expect(times[0]).to.match(/Z$/)
      }
    })

    it('reports totals, pages and stable pages', async () => {
      const r = await list('per_page=2')
      expect(r.body).to.include({ total: 5, total_by_filter: 5, per_page: 2, pages: 3 })
      const seen = [...names(r), ...names(await list('per_page=2&page=2')), ...names(await list('per_page=2&page=3'))]
      expect(seen).to.deep.equal(['dave', 'alice', 'carol', 'bob', 'alice'])
      const f = await list('username=alice&per_page=1')
      expect(f.body).to.include({ total: 5, total_by_filter: 2, pages: 2 })
      for (const q of ['per_page=201', 'per_page=0', 'page=0']) expect((await list(q)).status).to.equal(422)
      expect((await list('per_page=200')).status).to.equal(200)
    })

    it('filters by username (exact), nas_ip, node_id and the kind\'s own filters', async () => {
      expect(names(await list('username=alice'))).to.deep.equal(['alice', 'alice'])
      expect(names(await list('username=ALICE'))).to.deep.equal([])
      expect(names(await list('username=ali'))).to.deep.equal([])
      expect(names(await list('nas_ip=192.0.2.2'))).to.deep.equal(['bob'])
      expect(names(await list('nas_ip=2001:db8:0::1'))).to.deep.equal(['dave'])
      expect(names(await list(`node_id=${NODE_B}`))).to.deep.equal(['alice', 'bob'])
      expect(names(await list('action=deny'))).to.deep.equal(['alice', 'bob'])
      expect(names(await list('rule_name=helpdesk'))).to.deep.equal(['dave', 'bob'])
      expect(names(await list('profile=admin'))).to.deep.equal(['carol', 'alice'])
      expect(names(await list('service=exec'))).to.deep.equal(['carol'])
      expect(names(await list('action=permit&profile=admin&username=alice'))).to.deep.equal(['alice'])
    })

    it('bounds dates inclusively, in UTC', async () => {
      expect(names(await list(`date_from=${D1}T23:59:59.999Z`))).to.deep.equal(['dave', 'alice', 'carol'])
      expect(names(await list(`date_to=${D1}T23:59:59.999Z`))).to.deep.equal(['carol', 'bob', 'alice'])
      expect(names(await list(`date_from=${D1}T00:00:00Z&date_to=${D1}T00:00:00Z`))).to.deep.equal(['alice'])
      expect(names(await list(`date_from=${D2}T00:00:00%2B01:00&date_to=${D2}T00:00:00Z`))).to.deep.equal(['alice', 'carol'])
      expect(names(await list(`date_from=${D2}T09:00:00Z&date_to=${D1}T00:00:00Z`))).to.deep.equal([])
    })

    it('searches the kind\'s text fields, case-insensitively, wildcards literal', async () => {
      expect(names(await list('search=RUNNING-config'))).to.deep.equal(['alice'])
      expect(names(await list('search=core-sw'))).to.have.length(4)
      expect(names(await list('search=readonly'))).to.deep.equal(['dave', 'bob'])
      expect(names(await list('search=default-deny'))).to.deep.equal(['alice'])
      expect(names(await list('search=%25'))).to.deep.equal([])
      expect(names(await list('search=show_'))).to.deep.equal([])
      const r = await list('search=helpdesk&per_page=1')
      expect(r.body).to.include({ total: 5, total_by_filter: 2 })
      const radius = await t.admin('GET', '/api/v1/aaa/logs/radius/authentication?search=no%20matching')
      expect(radius.body.items.map((i: any) => i.username)).to.deep.equal(['eve'])
    })

    it('sorts by each allowed name, either way, with the id breaking ties', async () => {
      expect(names(await list('sort_by=username&sort_order=asc'))).to.deep.equal(['alice', 'alice', 'bob', 'carol', 'dave'])
      expect(names(await list('sort_by=timestamp&sort_order=asc'))).to.deep.equal(['alice', 'bob', 'carol', 'alice', 'dave'])
      expect((await list('sort_by=action&sort_order=asc')).body.items.map((i: any) => i.action)).to.deep.equal(['deny', 'deny', 'permit', 'permit', 'permit'])
      for (const k of KINDS) for (const s of k.sortBy) expect((await t.admin('GET', `/api/v1/aaa/logs/${k.path}?sort_by=${s}`)).status, `${k.kind} ${s}`).to.equal(200)
    })

    it('answers 422 with the field for bad sorts, enums, addresses, ids and dates', async () => {
      expectError(await list('sort_by=command'), 422, 'VALIDATION_FAILED', 'sort_by')
      expectError(await list('sort_order=up'), 422, 'VALIDATION_FAILED', 'sort_order')
      expectError(await list('action=allow'), 422, 'VALIDATION_FAILED', 'action')
      expectError(await list('nas_ip=not-an-ip'), 422, 'VALIDATION_FAILED', 'nas_ip')
      expectError(await list('node_id=abc'), 422, 'VALIDATION_FAILED', 'node_id')
      expectError(await list('date_from=yesterday'), 422, 'VALIDATION_FAILED', 'date_from')
      expectError(await list('status=success'), 422, 'UNKNOWN_FIELD', 'status')
      const p = '/api/v1/aaa/logs'
      expectError(await t.admin('GET', `${p}/tacacs/authentication?status=accept`), 422, 'VALIDATION_FAILED', 'status')
      expectError(await t.admin('GET', `${p}/tacacs/accounting?action=permit`), 422, 'VALIDATION_FAILED', 'action')
      expectError(await t.admin('GET', `${p}/radius/authentication?auth_type=EAP`), 422, 'VALIDATION_FAILED', 'auth_type')
      expectError(await t.admin('GET', `${p}/radius/accounting?acct_status_type=start`), 422, 'VALIDATION_FAILED', 'acct_status_type')
      expectError(await t.admin('GET', `${p}/radius/accounting?sort_by=framed_ip`), 422, 'VALIDATION_FAILED', 'sort_by')
    })

    it('applies the other kinds\' own filters', async () => {
      const p = '/api/v1/aaa/logs'
      const u = async (path: string) => (await t.admin('GET', `${p}/${path}`)).body.items.map((i: any) => i.username)
      expect(await u('tacacs/authentication?status=failure')).to.deep.equal(['mallory'])
      expect(await u('tacacs/authentication?rule_name=net-admins&profile=admin')).to.deep.equal(['alice'])
      expect(await u('tacacs/accounting?action=watchdog')).to.deep.equal(['bob'])
      expect(await u('radius/authentication?status=reject&auth_type=MS-CHAPv2')).to.deep.equal(['eve'])
      expect(await u('radius/authentication?auth_type=CHAP')).to.deep.equal([])
      expect(await u('radius/accounting?acct_status_type=Stop')).to.deep.equal(['alice'])
    })

    it('shows and filters MS-CHAPv1, which a RADIUS profile may allow, beside the contract\'s three methods', async () => {
      const k = KINDS.find((x) => x.kind === 'radius_authentication')!
      const [{ id }] = await logRows(t.app.db.knex, k)
        .insert(row('radius_authentication', { status: 'reject', auth_type: 'MS-CHAPv1', username: 'oscar', reason: 'MS-CHAPv1 is not allowed' }))
        .returning('id')
      try {
        const r = await t.admin('GET', '/api/v1/aaa/logs/radius/authentication?auth_type=MS-CHAPv1')
        expect(r.status, JSON.stringify(r.body)).to.equal(200)
        expect(r.body.items.map((i: any) => [i.username, i.auth_type])).to.deep.equal([['oscar', 'MS-CHAPv1']])
        const bad = await t.admin('GET', '/api/v1/aaa/logs/radius/authentication?auth_type=MS-CHAPv3')
        expectError(bad, 422, 'VALIDATION_FAILED', 'auth_type')
      } finally {
        await logRows(t.app.db.knex, k).where({ id }).delete()
      }
    })

    it('needs aaa-logs.read', async () => {
      const reader = await t.token({ permissions: ['aaa-logs.read'] })
      const other = await t.token({ permissions: ['aaa-logs.exclusions.read'] })
      expect((await t.req('GET', AUTHZ_PATH, { token: reader })).status).to.equal(200)
      expect((await t.req('GET', AUTHZ_PATH, { token: other })).status).to.equal(403)
      expect((await t.req('GET', `${AUTHZ_PATH}/export`, { token: other })).status).to.equal(403)
      expect((await t.req('GET', AUTHZ_PATH)).status).to.equal(401)
    })
  })

  describe('get-one', () => {
    it('returns every column with the raw line reference', async () => {
      const a = AUTHZ[0]
      const r = await t.admin('GET', `${AUTHZ_PATH}/${a.id}`)
      expect(r.status).to.equal(200)
      expect(r.body).to.include({ id: a.id, username: 'alice', nas_ip: '192.0.2.1', node_id: NODE_A, action: 'permit', priv_lvl: 15, source_file: a.source_file, source_offset: a.source_offset, timestamp: '2026-11-19T00:00:00.000Z' })
      expect(r.body.arguments).to.deep.equal(['cmd=show', 'cmd-arg=running-config'])
      expect(r.body.reply_arguments).to.deep.equal([])
    })

    it('shows bigints and JSON of the RADIUS kinds', async () => {
      const acct = (await t.admin('GET', '/api/v1/aaa/logs/radius/accounting?acct_status_type=Stop')).body.items[0]
      expect(acct).to.include({ session_time: 5_000_000_000, input_octets: 123, output_octets: 456 })
      const one = await t.admin('GET', `/api/v1/aaa/logs/radius/accounting/${acct.id}`)
      expect(one.body).to.deep.equal(acct)
      const auth = (await t.admin('GET', '/api/v1/aaa/logs/radius/authentication?status=accept')).body.items[0]
      expect(auth.reply_attributes).to.deep.equal([{ name: 'Service-Type', value: 'Login-User' }])
    })

    it('answers 404 for an unknown id and 422 for a malformed one, per kind', async () => {
      expectError(await t.admin('GET', `${AUTHZ_PATH}/${randomUUID()}`), 404, 'NOT_FOUND', 'log_id')
      expectError(await t.admin('GET', `/api/v1/aaa/logs/tacacs/authentication/${AUTHZ[0].id}`), 404, 'NOT_FOUND', 'log_id')
      expectError(await t.admin('GET', `${AUTHZ_PATH}/12345`), 422, 'VALIDATION_FAILED', 'log_id')
    })
  })

  describe('exports', () => {
    const HEADER = ['ID', 'Timestamp', 'Username', 'NAS IP', 'Node ID', 'Device Name', 'Client Address', 'Session ID', 'Action', 'Rule Name', 'Profile', 'Service', 'Priv Lvl', 'Command', 'Arguments', 'Reply Arguments', 'Result Code', 'Source File', 'Source Offset', 'Ingested At']

    it('exports xlsx by default, with the filters and sort of the list', async () => {
      const r = await get(t, `${AUTHZ_PATH}/export?action=permit&sort_by=username&sort_order=asc`)
      expect(r.status).to.equal(200)
      expect(r.headers.get('content-type')).to.contain('spreadsheetml')
      expect(r.headers.get('content-disposition')).to.match(/^attachment; filename="tacacs-authorization-\d{8}-\d{6}\.xlsx"$/)
      expect(r.headers.get('x-service-export-rows')).to.equal('3')
      expect(r.headers.get('x-service-export-truncated')).to.equal(null)
      const rows = await readXlsx(r.buf)
      expect(rows[0]).to.deep.equal(HEADER)
      expect(rows.slice(1).map((x) => x[2])).to.deep.equal(['alice', 'carol', 'dave'])
      expect(rows[1][1]).to.equal('2026-11-19T00:00:00.000Z')
      expect(rows[1][12]).to.equal(15)
      expect(rows[1][14]).to.equal('cmd=show cmd-arg=running-config')
      // xlsx cells are values, never formulas.
      expect(rows[2][13]).to.equal('=HYPERLINK("http://evil")')
    })

    it('exports csv per RFC 4180, formula cells neutralized', async () => {
      const r = await get(t, `${AUTHZ_PATH}/export?format=csv&sort_by=timestamp&sort_order=asc`)
      expect(r.status).to.equal(200)
      expect(r.headers.get('content-type')).to.match(/^text\/csv/)
      expect(r.headers.get('content-disposition')).to.match(/^attachment; filename="tacacs-authorization-\d{8}-\d{6}\.csv"$/)
      expect(r.headers.get('x-service-export-rows')).to.equal('5')
      const text = r.buf.toString('utf8')
      expect(text.startsWith('\uFEFF')).to.equal(true)
      expect(text.split('\r\n')[0]).to.equal('\uFEFF' + HEADER.join(','))
      const rows = parse(r.buf, { bom: true, relax_column_count: false }) as string[][]
      expect(rows[0]).to.deep.equal(HEADER)
      expect(rows).to.have.length(6)
      expect(rows.slice(1).map((x) => x[2])).to.deep.equal(['alice', 'bob', 'carol', 'alice', 'dave'])
      const carol = rows[3]
      expect(carol[13]).to.equal(`'=HYPERLINK("http://evil")`)
      expect(carol[5]).to.equal(`'+cmd|calc`)
      expect(rows[5][13]).to.equal('show version, "quoted"\r\nnext')
      expect(rows[5][3]).to.equal('2001:db8::1')
      expect(rows[1][12]).to.equal('15')
      expect(rows[2][12]).to.equal('')
    })

    it('exports one page when page or per_page is given', async () => {
      const r = await get(t, `${AUTHZ_PATH}/export?format=csv&page=2&per_page=2`)
      expect(r.headers.get('x-service-export-rows')).to.equal('2')
      const rows = parse(r.buf, { bom: true }) as string[][]
      expect(rows.slice(1).map((x) => x[2])).to.deep.equal(['carol', 'bob'])
      expect((await get(t, `${AUTHZ_PATH}/export?per_page=201`)).status).to.equal(422)
      expect((await get(t, `${AUTHZ_PATH}/export?format=pdf`)).status).to.equal(422)
      expect((await get(t, `${AUTHZ_PATH}/export?sort_by=command`)).status).to.equal(422)
    })

    it('exports every kind in both formats', async () => {
      for (const k of KINDS) {
        for (const format of ['xlsx', 'csv']) {
          const r = await get(t, `/api/v1/aaa/logs/${k.path}/export?format=${format}`)
          expect(r.status, k.kind).to.equal(200)
          expect(r.headers.get('content-disposition')).to.contain(`filename="${k.fileBase}-`)
          const rows = format === 'csv' ? (parse(r.buf, { bom: true }) as unknown[][]) : await readXlsx(r.buf)
          expect(rows[0]).to.have.length(allColumns(k).length)
          expect(rows.length - 1).to.equal(Number(r.headers.get('x-service-export-rows')))
        }
      }
    })

    it('stops at 10,000 rows and says so', async function () {
      this.timeout(120_000)
      await t.app.db.knex.raw(
        `INSERT INTO aaa_log_tacacs_authz (timestamp, username, node_id, source_file, source_offset, action, command)
         SELECT timestamp '2026-10-01 00:00:00+00' + make_interval(secs => i), 'bulk', ?, 'bulk.log', i, 'permit', 'show ' || i
         FROM generate_series(1, 10005) AS i`,
        [NODE_A],
      )
      const csv = await get(t, `${AUTHZ_PATH}/export?format=csv&username=bulk`)
      expect(csv.headers.get('x-service-export-rows')).to.equal('10000')
      expect(csv.headers.get('x-service-export-truncated')).to.equal('true')
      const rows = parse(csv.buf, { bom: true }) as string[][]
      expect(rows).to.have.length(10_001)
      expect(rows[1][13]).to.equal('show 10005')
      const xlsx = await get(t, `${AUTHZ_PATH}/export?username=bulk&sort_order=asc`)
      expect(xlsx.headers.get('x-service-export-truncated')).to.equal('true')
      const sheet = await readXlsx(xlsx.buf)
      expect(sheet).to.have.length(10_001)
      expect(sheet[1][13]).to.equal('show 1')
      const exact = await get(t, `${AUTHZ_PATH}/export?format=csv&username=bulk&date_to=2026-10-01T02:46:40Z`)
      expect(exact.headers.get('x-service-export-rows')).to.equal('10000')
      expect(exact.headers.get('x-service-export-truncated')).to.equal(null)
      const listed = await list('username=bulk&per_page=1')
      expect(listed.body).to.include({ total_by_filter: 10_005, total: 10_010 })
    })
  })
  describe('exact total (migration 0003 row counts)', () => {
    it('stays exact through INSERT, DELETE, a rolled-back INSERT and TRUNCATE', async () => {
      const knex = t.app.db.knex
      const k = KINDS.find((x) => x.kind === 'tacacs_accounting')!
      const total = async () => (await t.admin('GET', `/api/v1/aaa/logs/${k.path}?per_page=1`)).body.total as number
      const real = () => countOf(logRows(knex, k))
      const start = await real()
      expect(await total()).to.equal(start)
      const one = (await logRows(knex, k).first())!
      const { id: _id, ...copy } = one
      await logRows(knex, k).insert([copy, copy, copy])
      expect(await total()).to.equal(start + 3)
      await knex.transaction(async (trx) => {
        await logRows(trx, k).insert(copy)
        throw new Error('rollback')
      }).catch(() => undefined)
      expect(await total()).to.equal(start + 3)
      await logRows(knex, k).where({ id: one.id }).del()
      expect(await total()).to.equal(start + 2)
      expect(await total()).to.equal(await real())
      const rows = await logRows(knex, k).select('*')
      await knex.raw(`TRUNCATE ${k.table}`)
      expect(await total()).to.equal(0)
      await logRows(knex, k).insert(rows)
      expect(await total()).to.equal(rows.length)
    })
  })

  describe('search index', () => {
    it('has a trigram index per kind where pg_trgm exists (PostgreSQL with contrib, the embedded engine), and search can use it', async function () {
      const knex = t.app.db.knex
      const ext = await knex.raw(`SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm'`)
      if (!ext.rows.length) skipBecause(this, 'this PostgreSQL has no pg_trgm extension (Debian\'s has it in contrib; the embedded engine loads it itself)')
      const idx = (await knex('pg_indexes').where('indexname', 'like', '%_search_trgm').pluck('indexname')) as string[]
      for (const k of KINDS) expect(idx).to.include(`${k.table}_search_trgm`)
      const { searchExpression } = await import('../services/logs.js')
      const k = KINDS.find((x) => x.kind === 'tacacs_authorization')!
      const plan = await knex.transaction(async (trx) => {
        await trx.raw('SET LOCAL enable_seqscan = off')
        const r = await trx.raw(`EXPLAIN SELECT id FROM ${k.table} WHERE (${searchExpression(k.searchColumns)}) ILIKE ?`, ['%running-config%'])
        return (r as { rows: Record<string, string>[] }).rows
      })
      const text = plan.map((r) => r['QUERY PLAN']).join('\n')
      // Partitions inherit the index under their own names (…_expr_idx).
      expect(text, text).to.match(/Index Scan on \S*(search_trgm|expr_idx)/)
    })
  })

  describe('OpenAPI', () => {
    it('publishes every log and exclusion route in a valid document, gated by its permissions', async () => {
      const doc = (await t.req('GET', '/openapi.json')).body
      const result = await new Validator().validate(doc)
      expect(result.valid, JSON.stringify(result.errors, null, 2)).to.equal(true)
      const ops: [string, string, string][] = [
        ['get', '/api/v1/log-exclusions', 'aaa-logs.exclusions.read'],
        ['post', '/api/v1/log-exclusions', 'aaa-logs.exclusions.write'],
        ['get', '/api/v1/log-exclusions/{exclusion_id}', 'aaa-logs.exclusions.read'],
        ['put', '/api/v1/log-exclusions/{exclusion_id}', 'aaa-logs.exclusions.write'],
        ['delete', '/api/v1/log-exclusions/{exclusion_id}', 'aaa-logs.exclusions.write'],
      ]
      for (const k of KINDS) {
        const base = `/api/v1/aaa/logs/${k.path}`
        ops.push(['get', base, 'aaa-logs.read'], ['get', `${base}/export`, 'aaa-logs.read'], ['get', `${base}/{log_id}`, 'aaa-logs.read'])
        expect(doc.components.schemas).to.include.keys(`${k.schemaStem}LogResponse`, `${k.schemaStem}LogListResponse`)
        const exp = doc.paths[`${base}/export`].get
        // The two formats an export answers, each with its own media type (and the headers it sends).
        expect(exp.responses['200'].content).to.have.keys('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'text/csv')
        expect(exp.responses['200'].headers).to.include.keys('Content-Disposition', 'X-Service-Export-Rows', 'X-Service-Export-Truncated')
        expect(exp.parameters.map((x: any) => x.name)).to.include.members(['format', 'page', 'per_page', 'username', 'nas_ip', 'node_id', 'date_from', 'date_to', 'search', 'sort_by', 'sort_order'])
        expect(exp.description).to.contain('X-Service-Export-Truncated')
      }
      for (const [method, path, permission] of ops) {
        const op = doc.paths[path]?.[method]
        expect(op, `${method} ${path}`).to.be.an('object')
        expect(op['x-plugin']).to.equal('aaa-logs')
        expect(op['x-permission'], path).to.equal(permission)
      }
      expect(doc.components.schemas).to.include.keys('LogExclusionCreate', 'LogExclusionUpdate', 'LogExclusionResponse', 'LogExclusionListResponse')
    })
  })
})

describe('aaa-logs on the embedded engine', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp({ plugins: ['aaa-logs'], engine: 'embedded' })
    await logRows(t.app.db.knex, AUTHZ_KIND).insert(AUTHZ.map((r) => ({ ...r, id: randomUUID() })))
  })
  after(async () => t?.stop())

  it('lists, searches, filters, reads one and exports', async () => {
    const path = '/api/v1/aaa/logs/tacacs/authorization'
    const r = await t.admin('GET', `${path}?search=helpdesk&nas_ip=192.0.2.2&date_from=${D1}T00:00:00Z&date_to=${D1}T23:59:59.999Z`)
    expect(r.status, JSON.stringify(r.body)).to.equal(200)
    expect(r.body).to.include({ total: 5, total_by_filter: 1 })
    expect(r.body.items[0].username).to.equal('bob')
    const all = await t.admin('GET', `${path}?sort_by=timestamp&sort_order=asc`)
    expect(all.body.items[0].arguments).to.deep.equal(['cmd=show', 'cmd-arg=running-config'])
    expect((await t.admin('GET', `${path}/${all.body.items[0].id}`)).body).to.deep.equal(all.body.items[0])
    const csv = await get(t, `${path}/export?format=csv`)
    expect(csv.status).to.equal(200)
    expect(parse(csv.buf, { bom: true })).to.have.length(6)
    const xlsx = await get(t, `${path}/export`)
    expect(await readXlsx(xlsx.buf)).to.have.length(6)
    const ex = await t.admin('POST', '/api/v1/log-exclusions', { body: { name: 'embedded', match_type: 'username_pattern', match_value: 'svc-*' } })
    expect(ex.status).to.equal(201)
    expect((await t.admin('GET', '/api/v1/log-exclusions')).body.items[0]).to.include({ name: 'embedded', dropped_total: 0 })
  })
})
