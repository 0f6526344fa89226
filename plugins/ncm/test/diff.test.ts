/**
 * GET /ncm/devices/{id}/diff: two stored versions compared (sdk/text-diff.ts), masked unless
 * revealed, jsdiff's applyPatch as the check that the diff is right; a secret-only change; the 2 MiB
 * cut; hostile input at the field. Versions go in through the signed collector API.
 */
import { expect } from 'chai'
import { applyPatch } from 'diff'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { expectError } from '../../../test/kit/expect.js'
import { enrollCollector, trackDevice, type TestCollector } from '../../../test/kit/ncm-collector.js'
import { putVersion } from './read-side-kit.js'

const HASH1 = '$1$mERr$hx5rVt7rPNoS4wqbXKX7m0'
const HASH2 = '$1$mERr$OtherHashValue0000000'
const config = (hash: string, extra = '') => `hostname core2\n!\nusername admin privilege 15 secret 5 ${hash}\ninterface Gi0/1\n description uplink\n${extra}!\nip route 0.0.0.0 0.0.0.0 192.0.2.1\nend\n`

describe('ncm read side: diff', function () {
  this.timeout(120_000)
  let t: TestApp
  let col: TestCollector
  let device: string
  let big: string
  const v: string[] = []
  let bigVersions: string[] = []
  let otherVersion: string
  let readOnly: string
  let revealer: string
  const diff = (q = '', token?: string) => t.req('GET', `/api/v1/ncm/devices/${device}/diff${q}`, { token: token ?? readOnly })
  const masked = async (id: string) => (await t.req('GET', `/api/v1/ncm/devices/${device}/versions/${id}/config`, { token: readOnly })).text

  before(async () => {
    t = await startTestApp({ plugins: ['inventory', 'ncm'] })
    col = await enrollCollector(t)
    device = (await trackDevice(t, col, { address: '192.0.2.31/32' })).deviceId
    big = (await trackDevice(t, col, { address: '192.0.2.32/32' })).deviceId
    v.push(await putVersion(t, col, device, config(HASH1)))
    v.push(await putVersion(t, col, device, config(HASH1, ' shutdown\nip http server\n')))
    v.push(await putVersion(t, col, device, config(HASH2, ' shutdown\nip http server\n')))
    otherVersion = await putVersion(t, col, big, 'hostname other\n')
    // Two texts of 1,200 lines of 1,000 characters, every line different: a 2.4 MB diff, cut at 2 MiB.
    const long = (tag: string) => Array.from({ length: 1200 }, (_, i) => ` description ${tag}-${i} ${'x'.repeat(980)}`).join('\n') + '\n'
    bigVersions = [await putVersion(t, col, big, long('a')), await putVersion(t, col, big, long('b'))]
    readOnly = await t.token({ permissions: ['ncm.read'] })
    revealer = await t.token({ permissions: ['ncm.read', 'ncm.reveal'] })
  })
  after(async () => t?.stop())

  it('compares two versions as a unified diff that turns the one text into the other', async () => {
    const r = await diff(`?from=${v[0]}&to=${v[1]}`)
    expect(r.status, r.text).to.equal(200)
    expect(r.body).to.include({ from: v[0], to: v[1], added: 2, removed: 0, truncated: false, minimal: true, secrets_only: false, revealed: false })
    expect(r.body.unified).to.include('\n+ shutdown\n+ip http server\n').and.include(`--- version ${v[0]}`).and.include(`+++ version ${v[1]}`)
    expect(applyPatch(await masked(v[0]), r.body.unified)).to.equal(await masked(v[1]))
    // Reversed: the same lines removed.
    const back = await diff(`?from=${v[1]}&to=${v[0]}`)
    expect(back.body).to.include({ added: 0, removed: 2 })
    expect(applyPatch(await masked(v[1]), back.body.unified)).to.equal(await masked(v[0]))
    // context=0: the changed lines alone.
    const bare = await diff(`?from=${v[0]}&to=${v[1]}&context=0`)
    expect(bare.body.unified.split('\n').filter((l: string) => l.startsWith(' '))).to.deep.equal([])
  })

  it('by default compares the latest version with the one before it, and a first version with nothing', async () => {
    const latest = await diff()
    expect(latest.body).to.include({ from: v[1], to: v[2] })
    const first = await diff(`?to=${v[0]}`)
    expect(first.body).to.include({ from: null, to: v[0], removed: 0, added: 8 })
    expect(applyPatch('', first.body.unified)).to.equal(await masked(v[0]))
  })

  it('a secret-only change shows no line to ncm.read, and the secret to ncm.reveal (403 at reveal otherwise)', async () => {
    const r = await diff(`?from=${v[1]}&to=${v[2]}`)
    expect(r.body).to.include({ unified: '', added: 0, removed: 0, secrets_only: true })
    expect(r.text).to.not.include(HASH1).and.not.include(HASH2)
    expectError(await diff(`?from=${v[1]}&to=${v[2]}&reveal=true`), 403, 'FORBIDDEN', 'reveal')
    const shown = await diff(`?from=${v[1]}&to=${v[2]}&reveal=true`, revealer)
    expect(shown.body).to.include({ added: 1, removed: 1, secrets_only: true, revealed: true })
    expect(shown.body.unified).to.include(`-username admin privilege 15 secret 5 ${HASH1}\n+username admin privilege 15 secret 5 ${HASH2}\n`)
  })

  it('cuts the text at 2 MiB, showing the beginning of the changes, keeping the whole counts', async () => {
    const r = await t.req('GET', `/api/v1/ncm/devices/${big}/diff?from=${bigVersions[0]}&to=${bigVersions[1]}`, { token: readOnly })
    expect(r.status).to.equal(200)
    expect(r.body).to.include({ added: 1200, removed: 1200, truncated: true })
    expect(Buffer.byteLength(r.body.unified)).to.be.at.most(2 * 1024 * 1024).and.above(1024 * 1024)
    expect(r.body.unified.endsWith('\n')).to.equal(true)
  })

  it('refuses unknown versions (404) and malformed input (422), at the field', async () => {
    expectError(await diff(`?from=${otherVersion}`), 404, 'NCM_VERSION_NOT_FOUND', 'from')
    expectError(await diff(`?to=${otherVersion}`), 404, 'NCM_VERSION_NOT_FOUND', 'to')
    expectError(await diff(`?from=not-a-uuid`), 422, 'VALIDATION_FAILED', 'from')
    expectError(await diff(`?context=-1`), 422, 'VALIDATION_FAILED', 'context')
    expectError(await diff(`?context=101`), 422, 'VALIDATION_FAILED', 'context')
    expectError(await diff(`?context=1.5`), 422, 'VALIDATION_FAILED', 'context')
    expectError(await diff(`?reveal=1'`), 422, 'VALIDATION_FAILED', 'reveal')
    expectError(await diff(`?format=html`), 422, 'UNKNOWN_FIELD', 'format')
    expectError(await t.req('GET', `/api/v1/ncm/devices/00000000-0000-4000-8000-000000000000/diff`, { token: readOnly }), 404, 'NCM_DEVICE_NOT_FOUND', 'device_id')
    expect((await t.req('GET', `/api/v1/ncm/devices/${device}/diff`, { token: await t.token({ permissions: ['ncm.collectors.manage'] }) })).status).to.equal(403)
  })
})
