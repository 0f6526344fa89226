/** The plugin's operations in the OpenAPI document: every command set endpoint, under the schema names of the contract. */
import { expect } from 'chai'
import { runsOn, startTestApp, type TestApp } from '../../../test/kit/app.js'

// The OpenAPI document and its pages are built from the routes' schemas, the same whatever the engine (an embedded boot costs twice a PostgreSQL one): once per `npm test`, in its PostgreSQL run (docs/testing.md).
;(runsOn('postgres') ? describe : describe.skip)('tacacs command sets in OpenAPI', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp({ plugins: ['inventory', 'tacacs'], env: { DOCS_ENABLED: 'true' } })
  })
  after(async () => t?.stop())

  it('documents every endpoint with the schema names of the contract, in a valid document', async () => {
    const doc = (await t.req('GET', '/openapi.json')).body
    const { Validator } = await import('@seriousme/openapi-schema-validator')
    const res = await new Validator().validate(doc)
    expect(res.valid, JSON.stringify(res.errors)).to.equal(true)
    for (const name of ['CommandSetCreate', 'CommandSetUpdate', 'CommandSetResponse', 'CommandSetListResponse', 'CommandSetPage', 'ReferenceReport', 'RefCount', 'RefCountsRequest']) {
      expect(doc.components.schemas, name).to.have.property(name)
    }
    const paths = doc.paths as Record<string, Record<string, any>>
    expect(Object.keys(paths['/api/v1/tacacs/command-sets']).sort()).to.include.members(['get', 'post'])
    expect(Object.keys(paths['/api/v1/tacacs/command-sets/{command_set_id}'])).to.include.members(['get', 'put', 'delete'])
    expect(paths['/api/v1/tacacs/command-sets/{command_set_id}/references']).to.have.property('get')
    expect(paths['/api/v1/tacacs/command-sets/references/counts']).to.have.property('post')
    expect(paths['/api/v1/tacacs/command-sets'].get.responses['200'].content['application/json'].schema.$ref).to.equal('#/components/schemas/CommandSetPage')
    expect(doc.components.schemas.CommandSetPage.properties.items.items.$ref).to.equal('#/components/schemas/CommandSetListResponse')
    expect(paths['/api/v1/tacacs/command-sets'].post.responses).to.have.property('201')
    expect(paths['/api/v1/tacacs/command-sets/{command_set_id}'].delete.responses).to.have.property('204')
    // The counts are an object of free keys (ids) each a RefCount: `additionalProperties`, which generators read as a map.
    expect(doc.components.schemas.RefCountsResponse.additionalProperties.$ref).to.equal('#/components/schemas/RefCount')
    expect(doc.components.schemas.RefCountsResponse).to.not.have.property('patternProperties')
  })
})
