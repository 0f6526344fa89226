/**
 * The kernel refuses to boot, with a coded and readable error, on a plugin
 * set it cannot run correctly; and loads what configuration names, in
 * dependency order, wiring services through typed refs.
 */
import { expect } from 'chai'
import { bootRefusal, startTestApp, runsOn } from '../kit/app.js'

const F = './test/fixtures/plugins'
const G = './examples/greetings-plugin'


describe('plugin loading and boot-time checks', () => {
  const cases: [string, Parameters<typeof startTestApp>[0], string, RegExp][] = [
    ['a missing dependency', { plugins: [`${F}/missing-dep`] }, 'PLUGIN_DEPENDENCY_MISSING', /missing-dep depends on absent/],
    ['a dependency cycle', { plugins: [`${F}/cycle-a`, `${F}/cycle-b`] }, 'PLUGIN_DEPENDENCY_CYCLE', /cycle-a → cycle-b → cycle-a/],
    ['an SDK range mismatch', { plugins: [`${F}/sdk-mismatch`] }, 'PLUGIN_SDK_MISMATCH', /built for SDK \^9\.0\.0/],
    ['a duplicate route', { plugins: [G, `${F}/dup-route`] }, 'ROUTE_DUPLICATE', /GET \/api\/v1\/greetings\/\{(id|greeting_id)\} is registered by both (greetings and dup-route|dup-route and greetings)/],
    ['a duplicate permission', { plugins: [G, `${F}/dup-permission`] }, 'PERMISSION_DUPLICATE', /greetings\.read is declared by both (greetings and dup-permission|dup-permission and greetings)/],
    ['a route gated by an undeclared permission', { plugins: [`${F}/undeclared-permission`] }, 'PERMISSION_UNDECLARED', /nobody\.declares/],
    ['an invalid setting value in the config', { plugins: [G], settings: { 'greetings.suffix': 42 } }, 'SETTING_INVALID', /greetings\.suffix/],
    ['a setting of no loaded plugin', { plugins: [G], settings: { 'nac.est_enabled': true } }, 'SETTING_INVALID', /unknown setting nac\.est_enabled/],
    ['a setting outside the plugin\'s namespaces', { plugins: [`${F}/claim-none`] }, 'PLUGIN_INVALID', /claim-none declares setting nac\.probe_enabled outside its namespaces "claim-none\."/],
    ['a claimed namespace shared with the plugin of that name, redeclaring its key', { plugins: [G, `${F}/claim-other-plugin`] }, 'SETTING_DUPLICATE', /greetings\.suffix is declared twice/],
    ['a claim on the kernel\'s setting namespace', { plugins: [`${F}/claim-kernel-area`] }, 'PLUGIN_INVALID', /declares setting identity\.shadow_admin in the kernel's namespace "identity\."/],
    ['a plugin that is not found', { plugins: ['no-such-plugin'] }, 'PLUGIN_NOT_FOUND', /no-such-plugin/],
    ['a malformed manifest', { plugins: [`${F}/bad-manifest`] }, 'PLUGIN_INVALID', /id must match/],
    ['the same plugin twice', { plugins: [G, G] }, 'PLUGIN_DUPLICATE', /greetings is loaded twice/],
    ['a service of a plugin not in dependsOn', { plugins: [G, `${F}/undeclared-dep`] }, 'PLUGIN_DEPENDENCY_MISSING', /without listing greetings in dependsOn/],
    ['a consumer whose provider is not loaded', { plugins: [`${F}/consumer`] }, 'PLUGIN_DEPENDENCY_MISSING', /consumer depends on greetings/],
  ]
  // Refused while loading and wiring plugins and settings: the same whatever the engine (an embedded start costs
  // twice a PostgreSQL one), so once per `npm test`, in its PostgreSQL run (docs/testing.md).
  for (const [name, opts, code, message] of cases) {
    ;(runsOn('postgres') ? it : it.skip)(`refuses ${name} (${code})`, async () => {
      const e = await bootRefusal(opts)
      expect(e.code).to.equal(code)
      expect(e.message).to.match(message)
      expect(e.toString()).to.match(new RegExp(`^\\[${code}\\] `))
    })
  }

  // These restart on the same database by its URL: PostgreSQL (test/embedded/smoke.test.ts restarts an embedded folder).
  ;(runsOn('postgres') ? it : it.skip)('refuses an invalid setting value already stored in the database', async () => {
    const t = await startTestApp({ engine: 'postgres', plugins: [G] })
    const url = t.databaseUrl!
    await t.app.db.knex('settings').insert({ key: 'greetings.suffix', value: JSON.stringify(['not', 'a', 'string']) })
    await t.stop()
    const e = await bootRefusal({ plugins: [G], databaseUrl: url, masterKey: t.masterKey })
    expect(e.code).to.equal('SETTING_INVALID')
    expect(e.message).to.match(/stored value of greetings\.suffix/)
  })

  it('lets a plugin declare a setting in the product-area namespace it claims (settingNamespaces)', async () => {
    const t = await startTestApp({ plugins: [`${F}/claim-nac`] })
    try {
      const r = await t.admin('GET', '/api/v1/settings/nac.probe_enabled')
      expect(r.status, JSON.stringify(r.body)).to.equal(200)
      expect(r.body.value).to.equal(false)
    } finally {
      await t.stop()
    }
  })

  it('loads plugins in dependency order whatever order configuration names them, and wires typed service refs', async () => {
    const t = await startTestApp({ plugins: [`${F}/consumer`, G] })
    try {
      const info = await t.admin('GET', '/api/v1/dashboard/system-info')
      expect(info.body.plugins.map((p: { id: string }) => p.id)).to.deep.equal(['greetings', 'consumer'])
      await t.admin('POST', '/api/v1/greetings', { body: { name: 'zoe', message: 'Hi' } })
      const seen = await t.admin('GET', '/api/v1/consumer/greetings')
      expect(seen.body).to.deep.equal({ names: ['zoe'], sample: 'Hello, consumer?' })
    } finally {
      await t.stop()
    }
  })

  it('applies a valid configured setting at boot', async () => {
    const t = await startTestApp({ plugins: [G], settings: { 'greetings.suffix': '!!' } })
    try {
      const s = await t.admin('GET', '/api/v1/settings/greetings.suffix')
      expect(s.body.value).to.equal('!!')
    } finally {
      await t.stop()
    }
  })

  ;(runsOn('postgres') ? it : it.skip)('runs migrations once: a second start on the same database changes nothing', async () => {
    const t = await startTestApp({ engine: 'postgres', plugins: [G] })
    const url = t.databaseUrl!
    const snapshot = async (k = t.app.db.knex) => ({
      kernel: await k('knex_migrations').select('name', 'migration_time').orderBy('id'),
      greetings: await k('knex_migrations_greetings').select('name', 'migration_time').orderBy('id'),
    })
    const first = await snapshot()
    await t.stop()
    const again = await startTestApp({ plugins: [G], databaseUrl: url, masterKey: t.masterKey })
    try {
      expect(await snapshot(again.app.db.knex)).to.deep.equal(first)
    } finally {
      await again.stop()
    }
  })
})
