/**
 * The read side: a tracked device's versions and one version's text. Versions go in through the
 * signed collector API (test/kit/ncm-collector.ts), as a fetch stores them. A reader with ncm.read
 * alone sees masked text, with no secret, raw hash or raw size anywhere; ncm.reveal shows the raw text.
 */
import { createHash } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { expectError } from '../../../test/kit/expect.js'
import { enrollCollector, trackDevice, type TestCollector } from '../../../test/kit/ncm-collector.js'
import { putVersion, walk } from './read-side-kit.js'

const TAC_KEY = 'Tac-Key-Zq81x'
const PASSWORD = 'Backup-Pw-7731'
const HASH1 = '$1$mERr$hx5rVt7rPNoS4wqbXKX7m0'
const HASH2 = '$1$mERr$OtherHashValue0000000'
const config = (hash: string, extra = '') =>
  `hostname core1\n!\nusername admin privilege 15 secret 5 ${hash}\ntacacs-server key ${TAC_KEY}\ninterface Gi0/1\n description uplink (key ${TAC_KEY})\n${extra}!\nend\n`
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')

describe('ncm read side: versions and their text', function () {
  this.timeout(120_000)
  let t: TestApp
  let col: TestCollector
  let device: string
  let other: string
  const v: string[] = []
  let otherVersion: string
  let readOnly: string
  let revealer: string
  const base = () => `/api/v1/ncm/devices/${device}`

  before(async () => {
    t = await startTestApp({ plugins: ['inventory', 'ncm'] })
    col = await enrollCollector(t)
    device = (await trackDevice(t, col, { address: '192.0.2.21/32', tacacsKey: TAC_KEY, password: PASSWORD })).deviceId
    other = (await trackDevice(t, col, { address: '192.0.2.22/32' })).deviceId
    v.push(await putVersion(t, col, device, config(HASH1)))
    v.push(await putVersion(t, col, device, config(HASH1, 'ip http server\n')))
    // Only the secret changes: a version whose masked text equals the one before.
    v.push(await putVersion(t, col, device, config(HASH2, 'ip http server\n')))
    otherVersion = await putVersion(t, col, other, 'hostname other\n')
    readOnly = await t.token({ permissions: ['ncm.read'] })
    revealer = await t.token({ permissions: ['ncm.read', 'ncm.reveal'] })
  })
  after(async () => t?.stop())

  it('lists the versions newest first, each with its previous, the current one marked, sizes and hashes of the masked text only', async () => {
    const r = await t.req('GET', `${base()}/versions`, { token: readOnly })
    expect(r.status, r.text).to.equal(200)
    expect(r.body.total).to.equal(3)
    expect(r.body.items.map((i: any) => i.id)).to.deep.equal([v[2], v[1], v[0]])
    expect(r.body.items.map((i: any) => i.previous_id)).to.deep.equal([v[1], v[0], null])
    expect(r.body.items.map((i: any) => i.latest)).to.deep.equal([true, false, false])
    expect(r.body.items.map((i: any) => i.secrets_only)).to.deep.equal([true, false, false])
    for (const item of r.body.items) {
      const text = await t.req('GET', `${base()}/versions/${item.id}/config`, { token: readOnly })
      expect(item.masked_sha256).to.equal(sha256(text.text))
      expect(item.masked_size).to.equal(Buffer.byteLength(text.text))
    }
    // Nothing of the raw text: not its hash, not its size, not a secret.
    const raw = await t.app.db.knex('ncm_versions as v').join('ncm_blobs as b', (j) => j.on('b.device_id', 'v.device_id').andOn('b.raw_sha256', 'v.raw_sha256')).where('v.device_id', device).select('v.raw_sha256', 'b.bytes')
    const seen = walk(r.body)
    expect(seen.keys).to.not.include.members(['raw_sha256', 'bytes', 'sealed', 'size'])
    for (const row of raw) {
      expect(r.text).to.not.include(row.raw_sha256)
      expect(r.body.items.map((i: any) => i.masked_size)).to.not.include(row.bytes)
    }
    for (const s of [TAC_KEY, PASSWORD, HASH1, HASH2]) expect(r.text).to.not.include(s)
  })

  it('answers a version as masked text, and its secrets only to ncm.reveal (403 at reveal otherwise)', async () => {
    const masked = await t.req('GET', `${base()}/versions/${v[0]}/config`, { token: readOnly })
    expect(masked.status).to.equal(200)
    expect(masked.headers.get('content-type')).to.match(/^text\/plain/)
    expect(masked.text).to.include('hostname core1\n').and.include('username admin privilege 15 secret 5 <secret hidden>')
    for (const s of [TAC_KEY, PASSWORD, HASH1]) expect(masked.text).to.not.include(s)
    expectError(await t.req('GET', `${base()}/versions/${v[0]}/config?reveal=true`, { token: readOnly }), 403, 'FORBIDDEN', 'reveal')
    const raw = await t.req('GET', `${base()}/versions/${v[0]}/config?reveal=true`, { token: revealer })
    expect(raw.status).to.equal(200)
    expect(raw.text).to.equal(config(HASH1))
    // reveal=false as the revealer: masked, as for everyone.
    expect((await t.req('GET', `${base()}/versions/${v[0]}/config?reveal=false`, { token: revealer })).text).to.equal(masked.text)
    // ncm.reveal alone reads nothing: the route needs ncm.read.
    const onlyReveal = await t.token({ permissions: ['ncm.reveal'] })
    expect((await t.req('GET', `${base()}/versions/${v[0]}/config?reveal=true`, { token: onlyReveal })).status).to.equal(403)
    expect((await t.req('GET', `${base()}/versions`, { token: onlyReveal })).status).to.equal(403)
    expect((await t.req('GET', `${base()}/versions`)).status).to.equal(401)
  })

  it('refuses an unknown device or another device\'s version (404) and malformed input (422), at the field', async () => {
    expectError(await t.admin('GET', `/api/v1/ncm/devices/00000000-0000-4000-8000-000000000000/versions`), 404, 'NCM_DEVICE_NOT_FOUND', 'device_id')
    expectError(await t.admin('GET', `${base()}/versions/${otherVersion}/config`), 404, 'NCM_VERSION_NOT_FOUND', 'version_id')
    expectError(await t.admin('GET', `/api/v1/ncm/devices/${other}/versions/${v[0]}/config?reveal=true`), 404, 'NCM_VERSION_NOT_FOUND', 'version_id')
    expectError(await t.admin('GET', `/api/v1/ncm/devices/not-a-uuid/versions`), 422, 'VALIDATION_FAILED', 'device_id')
    expectError(await t.admin('GET', `${base()}/versions/1';drop table x--/config`), 422, 'VALIDATION_FAILED', 'version_id')
    expectError(await t.admin('GET', `${base()}/versions/${v[0]}/config?reveal=maybe`), 422, 'VALIDATION_FAILED', 'reveal')
    expectError(await t.admin('GET', `${base()}/versions/${v[0]}/config?raw=1`), 422, 'UNKNOWN_FIELD', 'raw')
    expectError(await t.admin('GET', `${base()}/versions?per_page=0`), 422, 'VALIDATION_FAILED', 'per_page')
    expectError(await t.admin('GET', `${base()}/versions?sort_by=raw_sha256`), 422, 'VALIDATION_FAILED', 'sort_by')
  })

  it('pages the versions, oldest first on request', async () => {
    const r = await t.req('GET', `${base()}/versions?per_page=2&page=2&sort_order=asc`, { token: readOnly })
    expect(r.body).to.deep.include({ total: 3, page: 2, per_page: 2, pages: 2 })
    expect(r.body.items.map((i: any) => i.id)).to.deep.equal([v[2]])
  })
})
