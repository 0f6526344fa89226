/**
 * Optional dependencies (`optionalDependsOn` with `optional(ref)` in deps): a
 * plugin that works with another when the edition has it boots without it,
 * receives undefined in place of its service, and comes up after it when both
 * are loaded. A plain ref to an optional dependency, or a plugin named both
 * ways, is refused at boot. On both engines.
 */
import { expect } from 'chai'
import { bootRefusal, startTestApp, testEngines } from '../kit/app.js'

const F = './test/fixtures/plugins'
const G = './examples/greetings-plugin'


for (const engine of testEngines()) {
  describe(`optional plugin dependencies (${engine})`, function () {
    this.timeout(60_000)

    it('boots without the optional plugin, and the service reaches init as undefined', async () => {
      const t = await startTestApp({ engine, plugins: [`${F}/optional-greeter`] })
      try {
        const r = await t.admin('GET', '/api/v1/early-greeter')
        expect(r.status, r.text).to.equal(200)
        expect(r.body).to.deep.equal({ greetings_loaded: false, names: [] })
      } finally {
        await t.stop()
      }
    })

    it('with the optional plugin loaded, initializes after it (whatever the configured order) and hands over its service', async () => {
      const t = await startTestApp({ engine, plugins: [`${F}/optional-greeter`, G] })
      try {
        const info = await t.admin('GET', '/api/v1/dashboard/system-info')
        expect(info.body.plugins.map((p: { id: string }) => p.id)).to.deep.equal(['greetings', 'early-greeter'])
        expect((await t.admin('POST', '/api/v1/greetings', { body: { name: 'zoe', message: 'Hi' } })).status).to.equal(201)
        expect((await t.admin('GET', '/api/v1/early-greeter')).body).to.deep.equal({ greetings_loaded: true, names: ['zoe'] })
      } finally {
        await t.stop()
      }
    })

    it('refuses a plain ref to an optional dependency, with or without that plugin loaded (PLUGIN_DEPENDENCY_MISSING)', async () => {
      for (const plugins of [[`${F}/optional-misuse`], [G, `${F}/optional-misuse`]]) {
        const e = await bootRefusal({ engine, plugins })
        expect(e.code).to.equal('PLUGIN_DEPENDENCY_MISSING')
        expect(e.message).to.match(/optional-misuse uses service greetings\.service of its optional dependency greetings as if it were always there/)
      }
    })

    it('refuses a plugin named in both dependsOn and optionalDependsOn (PLUGIN_INVALID)', async () => {
      const e = await bootRefusal({ engine, plugins: [G, `${F}/optional-both`] })
      expect(e.code).to.equal('PLUGIN_INVALID')
      expect(e.message).to.match(/greetings is in both dependsOn and optionalDependsOn/)
    })
  })
}
