/**
 * The collector API against the real core (one app, inventory + ncm), with the in-process signing
 * collector of test/kit/ncm-collector.ts: enrollment (once, expiring, racing), the gate's refusals
 * in order (stale, tampered, replayed, revoked, contract mismatch at each route) with the release
 * header only after verification, leases (another collector's job), results (a gzip bomb, a 5 MB
 * configuration stored once), and what is stored: masked copy, sealed raw, versions, fetch log.
 */
import { expect } from 'chai'
import { randomBytes } from 'node:crypto'
import { gunzipSync, gzipSync } from 'node:zlib'
import { COLLECTOR_CONTRACT } from '../../../sdk/collector-protocol.js'
import { contentDigest } from '../../../sdk/http-signatures.js'
import { coreServices } from '../../../sdk/index.js'
import { runsOn, startTestApp, type TestApp } from '../../../test/kit/app.js'
import { expectError } from '../../../test/kit/expect.js'
import { enrollCollector, takeJob, TEST_HOST_KEY, TestCollector, trackDevice } from '../../../test/kit/ncm-collector.js'

const VERSION = 'x-service-core-version'

describe('ncm: the collector API', function () {
  this.timeout(120_000)
  let t: TestApp
  let col: TestCollector
  let dev: Awaited<ReturnType<typeof trackDevice>>
  const knex = () => t.app.db.knex
  const newToken = async (name = `c-${randomBytes(3).toString('hex')}`) => {
    const r = await t.admin('POST', '/api/v1/ncm/collectors', { body: { name } })
    expect(r.status, r.text).to.equal(201)
    return r.body as { collector: { id: string }; enrollment_token: string }
  }

  before(async () => {
    t = await startTestApp({ plugins: ['inventory', 'ncm'] })
    col = await enrollCollector(t, 'main-collector')
    dev = await trackDevice(t, col, { address: '192.0.2.10', tacacsKey: 'TacKey-Very-Secret-1', password: 'Dev1ce-Passw0rd' })
  })
  after(async () => t?.stop())

  describe('enrollment', () => {
    it('spends a token once: 201 with the release header, then 409 NCM_ENROLLMENT_USED; an unknown token is 401', async () => {
      const { collector, enrollment_token } = await newToken()
      expect(enrollment_token).to.match(/^pcc_[A-Za-z0-9_-]{43}$/)
      // Stored only as its hash.
      const stored = await knex()('ncm_enrollment_tokens').where({ collector_id: collector.id }).first()
      expect(stored!.token_hash).to.match(/^[0-9a-f]{64}$/).and.not.include(enrollment_token)
      const c = new TestCollector(t.url)
      const r = await c.enroll(enrollment_token)
      expect(r.status, r.text).to.equal(201)
      expect(r.body).to.deep.equal({ collector_id: collector.id, name: r.body.name, core_version: t.app.version })
      expect(r.headers.get(VERSION)).to.be.a('string').and.not.empty
      expectError(await new TestCollector(t.url).enroll(enrollment_token), 409, 'NCM_ENROLLMENT_USED')
      expectError(await new TestCollector(t.url).enroll(`pcc_${randomBytes(32).toString('base64url')}`), 401, 'NCM_ENROLLMENT_INVALID')
      const view = await t.admin('GET', `/api/v1/ncm/collectors/${collector.id}`)
      expect(view.body).to.include({ state: 'active', contract_state: 'match', release: 'test-release' })
    })

    it('refuses an expired token with 410 and enrolls nothing', async () => {
      const { collector, enrollment_token } = await newToken()
      await knex()('ncm_enrollment_tokens').where({ collector_id: collector.id }).update({ expires_at: new Date(Date.now() - 1000) })
      expectError(await new TestCollector(t.url).enroll(enrollment_token), 410, 'NCM_ENROLLMENT_EXPIRED')
      expect((await knex()('ncm_collectors').where({ id: collector.id }).first())!.state).to.equal('pending')
    })

    it('lets exactly one of two racing enrollments with one token succeed', async () => {
      const { collector, enrollment_token } = await newToken()
      const [a, b] = [new TestCollector(t.url), new TestCollector(t.url)]
      const rs = await Promise.all([a.enroll(enrollment_token), b.enroll(enrollment_token)])
      expect(rs.map((r) => r.status).sort()).to.deep.equal([201, 409])
      const winner = rs[0].status === 201 ? a : b
      const row = await knex()('ncm_collectors').where({ id: collector.id }).first()
      expect(row!.ed25519_public_key).to.equal(winner.ed.publicKey.export({ format: 'jwk' }).x)
    })

    it('answers a contract mismatch with 409, spends nothing and says so in the status; the matching retry enrolls', async () => {
      const { collector, enrollment_token } = await newToken()
      const c = new TestCollector(t.url)
      const r = await c.enroll(enrollment_token, { contract: 'ncm-collector-00000000' })
      expectError(r, 409, 'NCM_CONTRACT_MISMATCH')
      expect(r.headers.get(VERSION)).to.be.a('string')
      const row = await knex()('ncm_collectors').where({ id: collector.id }).first()
      expect(row).to.include({ state: 'pending', contract_state: 'mismatch', contract_seen: 'ncm-collector-00000000', ed25519_public_key: null })
      expect((await knex()('ncm_enrollment_tokens').where({ collector_id: collector.id }).first())!.used_at).to.equal(null)
      expect((await c.enroll(enrollment_token)).status).to.equal(201)
      expect((await knex()('ncm_collectors').where({ id: collector.id }).first())!.contract_state).to.equal('match')
    })
  })

  describe('the gate', () => {
    it('refuses a stale signature with 401 NCM_SIGNATURE_STALE and no release header', async () => {
      const r = await col.jobs({ created: Math.floor(Date.now() / 1000) - 120 })
      expectError(r, 401, 'NCM_SIGNATURE_STALE')
      expect(r.headers.get(VERSION)).to.equal(null)
    })

    it('refuses a body changed after signing, a changed query and an unknown key with 401 NCM_SIGNATURE_INVALID and no release header', async () => {
      const changed = await col.upload(TestCollector.ok({ job_id: '00000000-0000-4000-8000-000000000000' }, 'x\n'), {
        tamper: (s) => {
          s.body = gzipSync(Buffer.from('{"job_id":"other"}'))
          s.headers['content-digest'] = contentDigest(s.body)
        },
      })
      expectError(changed, 401, 'NCM_SIGNATURE_INVALID')
      expect(changed.headers.get(VERSION)).to.equal(null)
      const query = await col.jobs({ slots: 1, tamper: (s) => (s.query = '?wait=0&slots=64') })
      expectError(query, 401, 'NCM_SIGNATURE_INVALID')
      // The same request untampered passes: asked by a collector with no devices, so that it leases nothing (this
      // file's device may already be due, its first fetch being spread by a hash of its random id).
      const idle = await enrollCollector(t)
      expect((await idle.jobs({ slots: 1 })).status).to.equal(200)
      const stranger = new TestCollector(t.url)
      stranger.id = col.id
      const forged = await stranger.jobs()
      expectError(forged, 401, 'NCM_SIGNATURE_INVALID')
      expect(forged.headers.get(VERSION)).to.equal(null)
      const unsigned = await t.req('GET', '/api/v1/ncm/collector/jobs')
      expectError(unsigned, 401, 'NCM_SIGNATURE_INVALID')
    })

    it('refuses a replayed request with 401 NCM_REPLAYED, no release header, and stores nothing twice', async () => {
      const job = await takeJob(t, col, dev.deviceId)
      const body = gzipSync(Buffer.from(JSON.stringify(TestCollector.ok(job, 'hostname sw1\n'))))
      const opts = { created: Math.floor(Date.now() / 1000), nonce: randomBytes(16).toString('base64url') }
      const first = await col.upload(TestCollector.ok(job, ''), { raw: body, ...opts })
      expect(first.status, first.text).to.equal(200)
      expect(first.body.outcome).to.equal('new_version')
      const versions = await knex()('ncm_versions').where({ device_id: dev.deviceId }).count({ n: '*' })
      const replay = await col.upload(TestCollector.ok(job, ''), { raw: body, ...opts })
      expectError(replay, 401, 'NCM_REPLAYED')
      expect(replay.headers.get(VERSION)).to.equal(null)
      expect(await knex()('ncm_versions').where({ device_id: dev.deviceId }).count({ n: '*' })).to.deep.equal(versions)
      // A retried upload (a new nonce) of the same job is answered as the first was.
      const retry = await col.upload(TestCollector.ok(job, ''), { raw: body })
      expect(retry.body).to.deep.equal(first.body)
      expect(await knex()('ncm_versions').where({ device_id: dev.deviceId }).count({ n: '*' })).to.deep.equal(versions)
    })

    // Two nodes on one database: the nonce table is the cluster's, not a node's memory.
    ;(runsOn('postgres') ? it : it.skip)('refuses on a second node a request the first node took (401 NCM_REPLAYED)', async () => {
      const second = await startTestApp({ plugins: ['inventory', 'ncm'], databaseUrl: t.databaseUrl!, masterKey: t.masterKey })
      try {
        const opts = { created: Math.floor(Date.now() / 1000), nonce: randomBytes(16).toString('base64url') }
        expect((await col.jobs(opts)).status).to.equal(200)
        expectError(await col.at(second.url).jobs(opts), 401, 'NCM_REPLAYED')
      } finally {
        await second.stop()
      }
    })

    it('answers a removed collector 401 NCM_COLLECTOR_REVOKED with the release header, and its status says so', async () => {
      const gone = await enrollCollector(t)
      expect((await t.admin('DELETE', `/api/v1/ncm/collectors/${gone.id}`)).status).to.equal(204)
      const r = await gone.jobs()
      expectError(r, 401, 'NCM_COLLECTOR_REVOKED')
      expect(r.headers.get(VERSION)).to.be.a('string').and.not.empty
      const view = await t.admin('GET', `/api/v1/ncm/collectors/${gone.id}`)
      expect(view.body).to.include({ removed: true, state: 'revoked', last_refusal_code: 'NCM_COLLECTOR_REVOKED' })
    })

    it('answers a contract mismatch at jobs and results with 409: no lease, no version; the status goes to mismatch and back', async () => {
      await t.admin('POST', `/api/v1/ncm/devices/${dev.deviceId}/fetch`)
      const r = await col.jobs({ contract: 'ncm-collector-deadbeef' })
      expectError(r, 409, 'NCM_CONTRACT_MISMATCH')
      expect(r.headers.get(VERSION)).to.be.a('string')
      expect((r.body as unknown as { detail: string }).detail).to.include(COLLECTOR_CONTRACT)
      const device = await knex()('ncm_devices').where({ device_id: dev.deviceId }).first()
      expect(device!.lease_job_id).to.equal(null)
      expect((await t.admin('GET', `/api/v1/ncm/collectors/${col.id}`)).body).to.include({ contract_state: 'mismatch', contract_seen: 'ncm-collector-deadbeef' })
      const job = await takeJob(t, col, dev.deviceId)
      expect((await t.admin('GET', `/api/v1/ncm/collectors/${col.id}`)).body.contract_state).to.equal('match')
      const before = await knex()('ncm_versions').where({ device_id: dev.deviceId }).count({ n: '*' })
      expectError(await col.upload(TestCollector.ok(job, 'hostname changed\n'), { contract: 'other' }), 409, 'NCM_CONTRACT_MISMATCH')
      expect(await knex()('ncm_versions').where({ device_id: dev.deviceId }).count({ n: '*' })).to.deep.equal(before)
      expect((await knex()('ncm_fetches').where({ id: job.job_id }).first())!.status).to.equal('leased')
      // The same job, matching, goes in.
      expect((await col.upload(TestCollector.ok(job, 'hostname changed\n'))).body.outcome).to.equal('new_version')
    })
  })

  describe('jobs and results', () => {
    it("hands out a job whose credential only this collector opens, and refuses another collector's upload of it", async () => {
      const job = await takeJob(t, col, dev.deviceId)
      expect(job).to.include({ device_id: dev.deviceId, host: '192.0.2.10', port: 22 })
      expect(job.profile.name).to.equal('cisco_ios')
      expect(JSON.stringify(job)).to.not.include('Dev1ce-Passw0rd')
      expect(col.credential(job)).to.deep.equal({ username: 'backup', password: 'Dev1ce-Passw0rd' })
      // Re-pointed at another host, the envelope does not open.
      expect(() => col.credential({ ...job, host: '192.0.2.99' })).to.throw()
      const other = await enrollCollector(t)
      expect(() => other.credential(job)).to.throw()
      expectError(await other.upload(TestCollector.ok(job, 'evil\n')), 409, 'NCM_JOB_UNKNOWN')
      expect((await knex()('ncm_fetches').where({ id: job.job_id }).first())!.status).to.equal('leased')
      // Leased: a second poll does not hand it out again.
      expect((await col.jobs()).body.jobs.map((j) => j.device_id)).to.not.include(dev.deviceId)
      expect((await col.upload({ ...TestCollector.ok(job, ''), status: 'timeout', output: undefined, detail: 'no prompt' })).body).to.deep.equal({ outcome: 'recorded', version_id: null })
      const d = await t.admin('GET', `/api/v1/ncm/devices/${dev.deviceId}`)
      expect(d.body).to.include({ last_status: 'timeout', consecutive_failures: 1 })
    })

    it('stops a gzip bomb at the cap: 422 NCM_CONFIG_TOO_LARGE, the fetch recorded too_large, no blob', async () => {
      const job = await takeJob(t, col, dev.deviceId)
      const blobs = await knex()('ncm_blobs').where({ device_id: dev.deviceId }).count({ n: '*' })
      const bomb = gzipSync(Buffer.from(JSON.stringify(TestCollector.ok(job, 'A'.repeat(40 * 1024 * 1024)))), { level: 9 })
      expect(bomb.length).to.be.below(200_000)
      const r = await col.upload(TestCollector.ok(job, ''), { raw: bomb })
      expectError(r, 422, 'NCM_CONFIG_TOO_LARGE')
      expect((await knex()('ncm_fetches').where({ id: job.job_id }).first())!.status).to.equal('too_large')
      expect(await knex()('ncm_blobs').where({ device_id: dev.deviceId }).count({ n: '*' })).to.deep.equal(blobs)
    })

    // On the embedded run only: ~10 s of hashing, masking, sealing and the read side's lines, the same code on both
    // engines; the PostgreSQL run is the suite's critical path (docs/testing.md).
    ;(runsOn('embedded') ? it : it.skip)('stores a 5 MB configuration once: the same text again is unchanged, one blob; masked for readers, sealed raw', async () => {
      const other = await trackDevice(t, col, { address: '192.0.2.20', tacacsKey: 'Tacacs-Key-Of-Sw2', password: 'Sw2-Login-Pass' })
      const lines = ['Building configuration...', `Current configuration : 5242880 bytes`, 'hostname sw2', 'enable secret 5 $1$abcd$Q1w2e3r4t5y6', 'username admin privilege 15 secret 9 $9$hashhash', 'tacacs-server key Tacacs-Key-Of-Sw2', ' description uses Sw2-Login-Pass here']
      let size = lines.join('\n').length
      for (let i = 0; size < 5 * 1024 * 1024; i++) {
        // Long lines: 5 MB in ~25,000 lines keeps the read side's per-line work (search index) out of this test's time.
        const block = [`interface GigabitEthernet1/0/${i}`, ` description ${'uplink to the distribution switch of building 7, rack 12, patch panel B, port 24; '.repeat(2)}`, '!']
        lines.push(...block)
        size += block.join('\n').length + 1
      }
      const text = lines.join('\r\n') + '\r\n'
      const job1 = await takeJob(t, col, other.deviceId)
      const a = await col.upload(TestCollector.ok(job1, text))
      expect(a.status, a.text).to.equal(200)
      expect(a.body.outcome).to.equal('new_version')
      // The timestamps are stripped lines: a changed one is the same configuration.
      const job2 = await takeJob(t, col, other.deviceId)
      const b = await col.upload(TestCollector.ok(job2, text.replace('5242880 bytes', '5242999 bytes')))
      expect(b.body).to.deep.equal({ outcome: 'unchanged', version_id: a.body.version_id })
      const blobs = await knex()('ncm_blobs').where({ device_id: other.deviceId })
      expect(blobs).to.have.length(1)
      const version = await knex()('ncm_versions').where({ id: a.body.version_id }).first()
      expect(version).to.include({ seen_count: 2, previous_id: null })
      const masked = blobs[0].masked
      expect(masked).to.not.include('Building configuration').and.not.include('\r')
      for (const secret of ['$1$abcd$Q1w2e3r4t5y6', '$9$hashhash', 'Tacacs-Key-Of-Sw2', 'Sw2-Login-Pass']) expect(masked).to.not.include(secret)
      expect(masked).to.include('enable secret 5 <secret hidden>').and.include('hostname sw2')
      // The raw copy is sealed: opened, it is the stripped text with its secrets.
      const raw = gunzipSync(Buffer.from(t.app.resolveDeps('ncm', { secrets: coreServices.secrets }).secrets.decrypt('ncm.config', blobs[0].sealed), 'base64')).toString('utf8')
      expect(raw).to.include('enable secret 5 $1$abcd$Q1w2e3r4t5y6').and.not.include('Current configuration')
      expect(raw.split('\n')).to.have.length(lines.length - 2 + 1)
      // A revert to an earlier text is a new version on the earlier blob.
      const job3 = await takeJob(t, col, other.deviceId)
      const c = await col.upload(TestCollector.ok(job3, 'hostname sw2\n'))
      const job4 = await takeJob(t, col, other.deviceId)
      const d = await col.upload(TestCollector.ok(job4, 'hostname sw2-new\n'))
      const job5 = await takeJob(t, col, other.deviceId)
      const e = await col.upload(TestCollector.ok(job5, 'hostname sw2\n'))
      expect([c.body.outcome, d.body.outcome, e.body.outcome]).to.deep.equal(['new_version', 'new_version', 'new_version'])
      expect(await knex()('ncm_blobs').where({ device_id: other.deviceId })).to.have.length(3)
      const reverted = await knex()('ncm_versions').where({ id: e.body.version_id }).first()
      expect(reverted).to.include({ previous_id: d.body.version_id, raw_sha256: (await knex()('ncm_versions').where({ id: c.body.version_id }).first())!.raw_sha256 })
    })

    it('stops a long poll whose collector went away: a fetch now after the abort leases the device to nobody', async () => {
      const d = await trackDevice(t, col, { address: '192.0.2.30' })
      await knex()('ncm_devices').where({ device_id: d.deviceId }).update({ next_due_at: new Date(Date.now() + 3_600_000) })
      const abort = new AbortController()
      const poll = col.jobs({ wait: 6, slots: 1, signal: abort.signal }).catch((e: Error) => e)
      await new Promise((r) => setTimeout(r, 300))
      abort.abort()
      expect(await poll).to.have.property('name', 'AbortError')
      // The core sees the closed connection a moment later (its own event loop; on the embedded engine the same one).
      await new Promise((r) => setTimeout(r, 200))
      await t.admin('POST', `/api/v1/ncm/devices/${d.deviceId}/fetch`)
      await new Promise((r) => setTimeout(r, 1500))
      expect((await knex()('ncm_devices').where({ device_id: d.deviceId }).first())!.lease_job_id).to.equal(null)
      // The next poll gets it.
      expect((await col.jobs()).body.jobs.map((j) => j.device_id)).to.include(d.deviceId)
    })

    it('pins the first host key and records another as host_key_mismatch, storing nothing', async () => {
      const pinned = (await knex()('ncm_devices').where({ device_id: dev.deviceId }).first())!.host_key_sha256
      expect(pinned).to.equal(TEST_HOST_KEY)
      const job = await takeJob(t, col, dev.deviceId)
      const r = await col.upload(TestCollector.ok(job, 'hostname intruder\n', `SHA256:${randomBytes(32).toString('base64').replace(/=+$/, '')}`))
      expect(r.body.outcome).to.equal('recorded')
      expect((await t.admin('GET', `/api/v1/ncm/devices/${dev.deviceId}`)).body.last_status).to.equal('host_key_mismatch')
      expect(await knex()('ncm_blobs').where({ device_id: dev.deviceId }).whereRaw('masked LIKE ?', ['%intruder%'])).to.have.length(0)
    })
  })
})
