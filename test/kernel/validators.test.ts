/**
 * Route validators compile on first use and, after listen, in the background
 * (kernel/http/validation.ts): a boot no longer pays Ajv's code generation.
 * So this is where a schema Ajv refuses is caught for every plugin that
 * ships: the whole default edition's validators compile here.
 */
import { expect } from 'chai'
import { readFileSync } from 'node:fs'
import { Validation } from '../../kernel/http/validation.js'
import type { TSchema } from '../../sdk/index.js'
import { runsOn, startTestApp } from '../kit/app.js'

const edition = (JSON.parse(readFileSync('package.json', 'utf8')) as { portcullis: { editions: { community: string[] } } }).portcullis.editions.community

// Compiling the route schemas is the same whatever the engine (the default edition's boot costs twice as much on
// the embedded one): once per `npm test`, in its PostgreSQL run (docs/testing.md).
;(runsOn('postgres') ? describe : describe.skip)('route validators', () => {
  it('every validator of the default edition compiles, and none is left after the warm-up', async () => {
    const t = await startTestApp({ plugins: edition })
    try {
      expect(edition.length).to.be.greaterThan(4)
      await t.app.validation.compilePending()
      expect(t.app.validation.pendingCount).to.equal(0)
      // A route still validates after its validator compiled in the warm-up.
      const r = await t.admin('POST', '/api/v1/devices', { body: { name: 'x', address: 'not-an-address', extra: 1 } })
      expect(r.status).to.equal(422)
      expect(r.body.code).to.equal('UNKNOWN_FIELD')
    } finally {
      await t.stop()
    }
  })

  it('a schema Ajv refuses fails the warm-up and its route answers 500, never unvalidated', async () => {
    const t = await startTestApp({ plugins: ['./test/fixtures/plugins/bad-schema'] })
    try {
      const warm = await t.app.validation.compilePending().then(() => null, (e: Error) => e)
      expect(warm?.message).to.match(/colour/)
      const r = await t.admin('POST', '/api/v1/bad-schema', { body: { note: 'hi' } })
      expect(r.status).to.equal(500)
      expect(r.body.code).to.be.a('string')
    } finally {
      await t.stop()
    }
  })

  it('the warm-up checks every schema against the JSON Schema meta-schema, one already compiled by a request too', async () => {
    const v = new Validation()
    const check = v.compileData({ type: 'string', minLength: -1 } as unknown as TSchema)
    // Used before the warm-up: compiled without the meta-schema check (that is what the boot saves).
    expect(check('x')).to.equal(true)
    const warm = await v.compilePending().then(() => null, (e: Error) => e)
    expect(warm?.message).to.match(/not valid JSON Schema.*minLength/)
  })
})
