/** Configuration from the environment and an optional JSON file; bad values refuse the boot. */
import { expect } from 'chai'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { loadConfig } from '../../kernel/config.js'
import { BootError } from '../../kernel/boot-error.js'

describe('configuration', () => {
  let dir: string
  before(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-cfg-'))))
  after(() => rmSync(dir, { recursive: true, force: true }))

  it('has the documented defaults', () => {
    const c = loadConfig({}, { plugins: ['inventory'] })
    expect(c).to.include({ port: 8080, host: '127.0.0.1', databaseUrl: null, docsEnabled: false, logLevel: 'info', role: 'primary', nodeId: null, serviceVersion: null })
    expect(c.dataDir).to.equal(path.resolve('./var'))
    expect(c.plugins).to.deep.equal(['inventory'])
  })

  it('reads the environment, with PLUGINS as a comma-separated list', () => {
    const c = loadConfig({ PORT: '9000', HOST: '0.0.0.0', DOCS_ENABLED: 'true', PLUGINS: ' a, ./b ,', ROLE: 'replica', SERVICE_VERSION: '2.0.0' })
    expect(c).to.include({ port: 9000, host: '0.0.0.0', docsEnabled: true, role: 'replica', serviceVersion: '2.0.0' })
    expect(c.plugins).to.deep.equal(['a', './b'])
  })

  it('reads a config file, with the environment taking precedence', () => {
    const file = path.join(dir, 'portcullis.json')
    writeFileSync(file, JSON.stringify({ port: 7000, log_level: 'debug', plugins: ['x', 'y'], settings: { 'x.flag': true } }))
    const c = loadConfig({ PORTCULLIS_CONFIG: file, LOG_LEVEL: 'warn' })
    expect(c).to.include({ port: 7000, logLevel: 'warn' })
    expect(c.plugins).to.deep.equal(['x', 'y'])
    expect(c.settings).to.deep.equal({ 'x.flag': true })
  })

  for (const [env, msg] of [
    [{ PORT: '70000' }, /PORT must be an integer/],
    [{ PORT: 'eighty' }, /PORT must be an integer/],
    [{ DOCS_ENABLED: 'maybe' }, /DOCS_ENABLED must be true or false/],
    [{ ROLE: 'leader' }, /ROLE must be primary or replica/],
    [{ PORTCULLIS_CONFIG: '/nonexistent/portcullis.json' }, /cannot read config file/],
  ] as [Record<string, string>, RegExp][]) {
    it(`refuses ${JSON.stringify(env)} with CONFIG_INVALID`, () => {
      try {
        loadConfig(env)
        expect.fail('accepted')
      } catch (e) {
        expect(e).to.be.instanceOf(BootError)
        expect((e as BootError).code).to.equal('CONFIG_INVALID')
        expect((e as BootError).message).to.match(msg)
      }
    })
  }
})
