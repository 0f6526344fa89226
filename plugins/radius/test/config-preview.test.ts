/**
 * GET /api/v1/radius/config/preview on a fresh install: 200 with an explained
 * empty state (nothing deployed yet, how to deploy, in the caller's language),
 * declared in the OpenAPI document; after a deploy, the release's files.
 */
import { spawnSync } from 'node:child_process'
import { expect } from 'chai'
import { startTestApp, type TestApp, testEngines } from '../../../test/kit/app.js'

const PREVIEW = '/api/v1/radius/config/preview'

for (const engine of testEngines()) {
  describe(`radius: the configuration preview before and after the first deploy (${engine})`, function () {
    this.timeout(60_000)
    let t: TestApp
    before(async () => {
      t = await startTestApp({ engine, plugins: ['inventory', 'radius'], env: { DOCS_ENABLED: 'true' } })
      // Without FreeRADIUS its release cannot be checked: an unchecked release needs deploy.allow_unchecked.
      if (spawnSync('sh', ['-c', 'command -v freeradius']).status !== 0) expect((await t.admin('PUT', '/api/v1/settings/deploy.allow_unchecked', { body: { value: true } })).status).to.be.oneOf([200, 204])
    })
    after(async () => t?.stop())

    it('answers 200 with nothing deployed, why, and what to do, in English and Russian', async () => {
      const reader = await t.token({ permissions: ['radius.read'] })
      const r = await t.req('GET', PREVIEW, { token: reader })
      expect(r.status, r.text).to.equal(200)
      expect(r.body).to.deep.equal({
        daemon: 'freeradius',
        deployed: false,
        detail: 'Nothing is deployed yet for freeradius: POST /api/v1/deploys renders the configuration, checks it with the daemon and activates it.',
        release: null,
        deploy_id: null,
        activated_at: null,
        files: [],
      })
      const ru = await t.req('GET', PREVIEW, { token: reader, headers: { 'accept-language': 'ru' } })
      expect(ru.body.detail).to.equal('Для freeradius ещё ничего не развёрнуто: POST /api/v1/deploys сформирует конфигурацию, проверит её демоном и активирует.')
    })

    it('declares the empty state in the OpenAPI document (nullable release, deployed, detail; no 404)', async () => {
      const doc = (await t.req('GET', '/openapi.json')).body
      const op = doc.paths[PREVIEW].get
      expect(Object.keys(op.responses)).to.not.include('404')
      const ref: string | undefined = op.responses['200'].content['application/json'].schema.$ref
      const schema = ref ? doc.components.schemas[ref.split('/').pop()!] : op.responses['200'].content['application/json'].schema
      expect(schema.required).to.include.members(['deployed', 'detail', 'release', 'files'])
      expect(schema.properties.deployed.type).to.equal('boolean')
      expect(JSON.stringify(schema.properties.release)).to.include('"null"')
      expect(op.description).to.include('deployed: false')
    })

    it('after a deploy, shows the active release and no detail', async () => {
      const dep = await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'freeradius' } })
      expect(dep.status, dep.text).to.equal(201)
      const r = await t.admin('GET', PREVIEW)
      expect(r.status, r.text).to.equal(200)
      expect(r.body).to.include({ daemon: 'freeradius', deployed: true, detail: null, release: dep.body.deploys[0].release, deploy_id: dep.body.deploys[0].id })
      expect(r.body.files.map((f: { path: string }) => f.path)).to.include('clients.conf')
    })
  })
}
