/**
 * Editions that stand alone: a TACACS+-only edition (inventory, tacacs,
 * aaa-policy, aaa-logs: no radius) and a RADIUS-only one (inventory, radius,
 * aaa-policy, aaa-logs: no tacacs) each boot, keep a policy through the API
 * (rules naming users, devices and the edition's profiles; the references held
 * by the owners' contracts: a referenced device cannot go, a deleted profile
 * leaves the rule), deploy their daemon's configuration (checked by the daemon
 * itself where its binary is on this machine: TAC_PLUS_NG, freeradius) and
 * answer the policy test. What belongs to the missing protocol answers as
 * missing: its routes 404, a profile id of it 422, a policy test of it 422.
 * On both engines.
 */
import { spawnSync } from 'node:child_process'
import { randomBytes, randomUUID } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import { startTestApp, type TestApp, testEngines } from '../kit/app.js'
import { tacPlusNgBinary } from '../kit/tac-plus-ng.js'

const RULES = '/api/v1/aaa/policy/rules'

interface Edition {
  name: string
  plugins: string[]
  protocol: 'tacacs' | 'radius'
  missing: 'tacacs' | 'radius'
  daemon: string
  /** The deployed file that carries the policy's rules. */
  policyFile: string
  /** The daemon's own check can run on this machine. */
  checkable: () => boolean
}

const onPath = (bin: string) => spawnSync('sh', ['-c', `command -v ${bin}`]).status === 0

const EDITIONS: Edition[] = [
  {
    name: 'TACACS+ only',
    plugins: ['inventory', 'tacacs', 'aaa-policy', 'aaa-logs'],
    protocol: 'tacacs',
    missing: 'radius',
    daemon: 'tac_plus-ng',
    policyFile: 'tac_plus-ng.cfg',
    checkable: () => tacPlusNgBinary() !== null,
  },
  {
    name: 'RADIUS only',
    plugins: ['inventory', 'radius', 'aaa-policy', 'aaa-logs'],
    protocol: 'radius',
    missing: 'tacacs',
    daemon: 'freeradius',
    policyFile: 'portcullis/policy',
    checkable: () => onPath('freeradius'),
  },
]

const uniq = (p: string) => `${p}-${randomUUID().slice(0, 8)}`
const PROFILES = { tacacs: '/api/v1/tacacs/profiles', radius: '/api/v1/radius/profiles' } as const
const PROFILE_BODY = {
  tacacs: () => ({ name: uniq('tp'), privilege_level: 15 }),
  radius: () => ({ name: uniq('rp'), attributes: [{ name: 'Service-Type', value: 'Administrative-User' }] }),
} as const

async function created(t: TestApp, p: string, body: Record<string, unknown>): Promise<any> {
  const r = await t.admin('POST', p, { body })
  expect(r.status, `POST ${p} → ${JSON.stringify(r.body)}`).to.equal(201)
  return r.body
}

let net = 0
const address = () => `198.18.${++net}.1`

for (const engine of testEngines()) {
  for (const e of EDITIONS) {
    describe(`edition ${e.name}: ${e.plugins.join(', ')} (${engine})`, function () {
      this.timeout(60_000)
      let t: TestApp
      let user: any, device: any, profile: any, rule: any

      before(async () => {
        t = await startTestApp({ engine, plugins: e.plugins })
        user = await created(t, '/api/v1/users', { username: uniq('op'), network_login: true, password: `Tq-${randomBytes(9).toString('base64url')}-7z` })
        device = await created(t, '/api/v1/devices', { name: uniq('sw'), address: address(), [e.protocol === 'tacacs' ? 'tacacs_key' : 'radius_secret']: 'shared-secret-1' })
        profile = await created(t, PROFILES[e.protocol], PROFILE_BODY[e.protocol]())
      })
      after(async () => t?.stop())

      it('boots with the plugins named and none of the missing protocol', async () => {
        const info = await t.admin('GET', '/api/v1/dashboard/system-info')
        expect(info.status, info.text).to.equal(200)
        expect(info.body.plugins.map((p: { id: string }) => p.id).sort()).to.deep.equal([...e.plugins].sort())
        expect((await t.admin('GET', PROFILES[e.missing])).status).to.equal(404)
      })

      it("creates a rule with the edition's profile through the API; a profile id of the missing protocol is 422 at its field", async () => {
        const field = `${e.protocol}_profile_id`
        rule = await created(t, RULES, { name: uniq('rule'), who: { user_id: user.id }, where: { device_id: device.id }, [field]: profile.id })
        expect(rule).to.include({ who_name: user.username, where_name: device.name, [`${e.protocol}_profile_name`]: profile.name, [`${e.missing}_profile_id`]: null })
        const other = `${e.missing}_profile_id`
        const refused = await t.admin('POST', RULES, { body: { name: uniq('rule'), who: { user_id: user.id }, where: { device_id: device.id }, [other]: randomUUID() } })
        expect(refused.status, refused.text).to.equal(422)
        expect(refused.body).to.include({ code: 'REFERENCE_NOT_FOUND', field: other })
        expect(refused.body.detail).to.contain(`does not load the ${e.missing} plugin`)
      })

      it('deploys, the daemon checking its configuration where its binary is present, with the rule in it', async () => {
        // Without the binary an unchecked release is refused unless an administrator allows it (test/deploy/deploy-guards.test.ts).
        if (!e.checkable()) expect((await t.admin('PUT', '/api/v1/settings/deploy.allow_unchecked', { body: { value: true } })).status).to.be.oneOf([200, 204])
        const r = await t.admin('POST', '/api/v1/deploys', { body: { comment: e.name } })
        expect(r.status, r.text).to.equal(201)
        expect(r.body.deploys.map((d: any) => d.daemon)).to.deep.equal([e.daemon])
        const [d] = r.body.deploys
        expect(d.status).to.equal('active')
        expect(d.checked, `check output: ${d.check_output}`).to.equal(e.checkable() ? true : null)
        const file = path.join(t.dataDir, 'releases', e.daemon, 'current', e.policyFile)
        expect(existsSync(file), file).to.equal(true)
        expect(readFileSync(file, 'utf8')).to.contain(rule.name)
      })

      it("answers the policy test for the edition's protocol, and 422 PROTOCOL_UNAVAILABLE for the other", async () => {
        const ok = await t.admin('POST', '/api/v1/aaa/policy/test', { body: { protocol: e.protocol, username: user.username, device_id: device.id } })
        expect(ok.status, ok.text).to.equal(200)
        expect(ok.body).to.include({ decision: 'permit' })
        expect(ok.body.matched_rule).to.include({ id: rule.id })
        expect(ok.body.profile).to.deep.equal({ type: e.protocol, id: profile.id, name: profile.name })
        const other = await t.admin('POST', '/api/v1/aaa/policy/test', { body: { protocol: e.missing, username: user.username, device_id: device.id } })
        expect(other.status, other.text).to.equal(422)
        expect(other.body).to.include({ code: 'PROTOCOL_UNAVAILABLE', field: 'protocol' })
      })

      it(`serves the rule's TACACS+ preview ${e.protocol === 'tacacs' ? 'with the rule in it' : 'nowhere (404: no TACACS+ here)'}`, async () => {
        const r = await t.admin('GET', `${RULES}/${rule.id}/tacacs/preview`)
        if (e.protocol === 'tacacs') {
          expect(r.status, r.text).to.equal(200)
          expect(r.body.snippet).to.contain(rule.name)
        } else expect(r.status).to.equal(404)
      })

      it('keeps the references through the owners: a referenced device answers 409 naming the rule; a deleted profile leaves the rule without one', async () => {
        const refused = await t.admin('DELETE', `/api/v1/devices/${device.id}`)
        expect(refused.status, refused.text).to.equal(409)
        expect(refused.body).to.include({ code: 'DEVICE_IN_USE', field: 'device_id' })
        expect(refused.body.detail).to.contain(`aaa_policy_rule "${rule.name}"`)
        const p2 = await created(t, PROFILES[e.protocol], PROFILE_BODY[e.protocol]())
        const r2 = await created(t, RULES, { name: uniq('rule'), who: { user_id: user.id }, where: { device_id: device.id }, [`${e.protocol}_profile_id`]: p2.id })
        expect((await t.admin('DELETE', `${PROFILES[e.protocol]}/${p2.id}`)).status).to.equal(204)
        const after = await t.admin('GET', `${RULES}/${r2.id}`)
        expect(after.body).to.include({ [`${e.protocol}_profile_id`]: null, [`${e.protocol}_profile_name`]: null })
        expect((await t.admin('DELETE', `${RULES}/${r2.id}`)).status).to.equal(204)
      })
    })
  }
}
