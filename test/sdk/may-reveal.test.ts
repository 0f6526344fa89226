/** sdk/renderer.ts mayReveal: the flag and the permission it names, `config.reveal` unless told. */
import { expect } from 'chai'
import { mayReveal } from '../../sdk/renderer.js'

describe('sdk mayReveal', () => {
  const holder = (...p: string[]) => ({ isAdmin: false, permissions: new Set(p) })
  it('needs the flag and the named permission, and no other', () => {
    expect(mayReveal(holder('config.reveal'), true)).to.equal(true)
    expect(mayReveal(holder('config.reveal'), false)).to.equal(false)
    expect(mayReveal(holder('ncm.reveal'), true)).to.equal(false)
    expect(mayReveal(holder('ncm.reveal'), true, 'ncm.reveal')).to.equal(true)
    expect(mayReveal(holder('config.reveal'), true, 'ncm.reveal')).to.equal(false)
    expect(mayReveal({ isAdmin: true, permissions: new Set() }, true, 'ncm.reveal')).to.equal(true)
    expect(mayReveal(null, true, 'ncm.reveal')).to.equal(false)
  })
})
