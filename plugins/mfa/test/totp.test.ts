/** The TOTP arithmetic against the RFCs' own test vectors, and the window and replay rules. */
import { expect } from 'chai'
import { base32Decode, base32Encode, hotp, matchStep, timeStep, totp } from '../services/totp.js'
import { TotpProvider } from '../services/totp-provider.js'

const RFC_SEED = Buffer.from('12345678901234567890', 'ascii')

describe('mfa: TOTP (RFC 6238) and base32 (RFC 4648)', () => {
  it('gives the RFC 6238 SHA-1 test vectors (8 digits)', () => {
    const vectors: [number, string][] = [
      [59, '94287082'],
      [1111111109, '07081804'],
      [1111111111, '14050471'],
      [1234567890, '89005924'],
      [2000000000, '69279037'],
      [20000000000, '65353130'],
    ]
    for (const [t, code] of vectors) expect(totp(RFC_SEED, t * 1000, { digits: 8 }), `T=${t}`).to.equal(code)
  })

  it('gives the RFC 4226 HOTP test vectors (6 digits)', () => {
    const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489']
    expected.forEach((code, counter) => expect(hotp(RFC_SEED, counter), `counter ${counter}`).to.equal(code))
  })

  it('uses 30-second steps from the Unix epoch', () => {
    expect(timeStep(0)).to.equal(0)
    expect(timeStep(29_999)).to.equal(0)
    expect(timeStep(30_000)).to.equal(1)
    expect(timeStep(59_000)).to.equal(1)
  })

  it('encodes and decodes base32 as RFC 4648 section 10, without padding', () => {
    const vectors: [string, string][] = [['', ''], ['f', 'MY'], ['fo', 'MZXQ'], ['foo', 'MZXW6'], ['foob', 'MZXW6YQ'], ['fooba', 'MZXW6YTB'], ['foobar', 'MZXW6YTBOI']]
    for (const [plain, enc] of vectors) {
      expect(base32Encode(Buffer.from(plain)), plain).to.equal(enc)
      expect(base32Decode(enc).toString(), enc).to.equal(plain)
    }
    expect(base32Decode('mzxw6ytboi======').toString(), 'lower case and padding').to.equal('foobar')
    expect(base32Decode('MZXW 6YTB-OI').toString(), 'spaces and dashes').to.equal('foobar')
    expect(base32Encode(RFC_SEED)).to.equal('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ')
    expect(() => base32Decode('MZXW1')).to.throw(/invalid base32/)
  })

  it('round-trips random seeds through base32', () => {
    for (let n = 0; n < 50; n++) {
      const buf = Buffer.from(Array.from({ length: n % 33 }, () => Math.floor(Math.random() * 256)))
      expect(base32Decode(base32Encode(buf)).equals(buf)).to.equal(true)
    }
  })

  it('accepts the step before, the current and the next one, and nothing further', () => {
    const now = 1_700_000_000_000
    const step = timeStep(now)
    for (const d of [-1, 0, 1]) expect(matchStep(RFC_SEED, hotp(RFC_SEED, step + d), { nowMs: now, lastStep: null }), `offset ${d}`).to.equal(step + d)
    for (const d of [-3, -2, 2, 3]) expect(matchStep(RFC_SEED, hotp(RFC_SEED, step + d), { nowMs: now, lastStep: null }), `offset ${d}`).to.equal(null)
  })

  it('refuses a code of a step at or before the last one used (replay)', () => {
    const now = 1_700_000_000_000
    const step = timeStep(now)
    const p = new TotpProvider()
    const code = hotp(RFC_SEED, step)
    expect(p.check(RFC_SEED, code, null, now)).to.equal(step)
    expect(p.check(RFC_SEED, code, step, now), 'same step').to.equal(null)
    expect(p.check(RFC_SEED, code, step + 1, now), 'a later step was used').to.equal(null)
    expect(p.check(RFC_SEED, code, step - 1, now), 'an earlier step was used').to.equal(step)
    expect(p.check(RFC_SEED, hotp(RFC_SEED, step + 1), step, now), 'the next step is still good').to.equal(step + 1)
  })

  it('refuses malformed codes', () => {
    const now = 1_700_000_000_000
    const code = hotp(RFC_SEED, timeStep(now))
    for (const bad of ['', code.slice(1), code + '0', ` ${code.slice(1)}`]) expect(matchStep(RFC_SEED, bad, { nowMs: now, lastStep: null }), JSON.stringify(bad)).to.equal(null)
  })
})
