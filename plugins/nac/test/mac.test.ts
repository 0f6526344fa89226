/** MAC notations (services/mac.ts) and the IEEE vendor lookup (services/oui.ts): no app needed. */
import { expect } from 'chai'
import fc from 'fast-check'
import { macFragment, normalizeMac, parseMac } from '../services/mac.js'
import { ouiPrefixCount, ouiVendor } from '../services/oui.js'

describe('nac: MAC notations', () => {
  const CANON = '00:1b:63:84:45:e6'
  it('normalizes every common notation, upper or lower case, to aa:bb:cc:dd:ee:ff', () => {
    const forms = [
      '00:1b:63:84:45:e6', '00:1B:63:84:45:E6', '00-1B-63-84-45-E6', '00-1b-63-84-45-e6', '001b.6384.45e6', '001B.6384.45E6',
      '001b-6384-45e6', '001b63:8445e6', '001b63-8445e6', '001b638445e6', '001B638445E6', '0:1b:63:84:45:e6', '0-1B-63-84-45-E6', '  00:1b:63:84:45:e6 ',
    ]
    for (const f of forms) expect(normalizeMac(f), f).to.equal(CANON)
    expect(normalizeMac('a:b:c:d:e:f')).to.equal('0a:0b:0c:0d:0e:0f')
  })

  it('refuses what is not a MAC, naming the reason', () => {
    const invalid = [
      '', ' ', '00:1b:63:84:45', '00:1b:63:84:45:e6:01', '00:1b-63:84:45:e6', '001b.6384-45e6', '00:1b:63:84:45:g6', '001b638445e', '001b638445e6f',
      '00:1b:63:84:45:e6\n', '\t001b638445e6', '00:1b:63:84:45:e6\u0000', '００:1b:63:84:45:e6', '0x001b638445e6', '001b:6384:45e6', '00 1b 63 84 45 e6',
      '000:1b:63:84:45:e6', '00.1b.63.84.45.e6', 'x'.repeat(10_000), '00:1b:63:84:45:e6;DROP TABLE',
    ]
    for (const f of invalid) expect(parseMac(f), JSON.stringify(f)).to.deep.equal({ ok: false, reason: 'invalid' })
    // Group addresses: the I/G bit (the first octet odd), broadcast among them.
    for (const f of ['ff:ff:ff:ff:ff:ff', 'FF-FF-FF-FF-FF-FF', '01:00:5e:00:00:01', '33:33:00:00:00:01', '01:80:c2:00:00:03', '0180.c200.0003']) {
      expect(parseMac(f), f).to.deep.equal({ ok: false, reason: 'group' })
    }
    for (const f of ['00:00:00:00:00:00', '000000000000', '0000.0000.0000', '0:0:0:0:0:0']) expect(parseMac(f), f).to.deep.equal({ ok: false, reason: 'zero' })
  })

  it('flags locally administered (randomized) addresses and accepts them', () => {
    expect(parseMac('da:a1:19:00:00:01')).to.deep.include({ ok: true, mac: 'da:a1:19:00:00:01', locallyAdministered: true })
    expect(parseMac('00:1b:63:84:45:e6')).to.deep.include({ ok: true, locallyAdministered: false })
  })

  it('every unicast, non-zero 48-bit value round-trips through every notation', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 6, maxLength: 6 }), fc.boolean(), (bytes, upper) => {
        const hex = Buffer.from(bytes).toString('hex')
        const canon = hex.match(/../g)!.join(':')
        const notations = [canon, canon.replace(/:/g, '-'), `${hex.slice(0, 4)}.${hex.slice(4, 8)}.${hex.slice(8)}`, `${hex.slice(0, 6)}-${hex.slice(6)}`, hex].map((s) => (upper ? s.toUpperCase() : s))
        for (const n of notations) {
          const r = parseMac(n)
          if (/^0{12}$/.test(hex)) expect(r).to.deep.equal({ ok: false, reason: 'zero' })
          else if (bytes[0] & 1) expect(r).to.deep.equal({ ok: false, reason: 'group' })
          else expect(r).to.deep.include({ ok: true, mac: canon })
        }
      }),
      { numRuns: 500 },
    )
  })

  it('reads a MAC fragment with separators as bare hex for search, and nothing else', () => {
    expect(macFragment('00-1B-63')).to.equal('001b63')
    expect(macFragment('001b.6384')).to.equal('001b6384')
    expect(macFragment('1b:63:84')).to.equal('1b6384')
    expect(macFragment('printer')).to.equal(null)
    expect(macFragment('001b63')).to.equal(null)
  })
})

describe('nac: vendor from the IEEE registry (oui-data)', () => {
  it('ships the registry: tens of thousands of MA-L, MA-M and MA-S prefixes', () => {
    expect(ouiPrefixCount()).to.be.greaterThan(40_000)
  })

  it('names the vendor of an MA-L block', () => {
    expect(ouiVendor('00:00:0c:12:34:56')).to.match(/^Cisco/)
    expect(ouiVendor('00:1b:63:84:45:e6')).to.match(/^Apple/)
    expect(ouiVendor('b8:27:eb:00:00:01')).to.match(/Raspberry Pi/)
  })

  it('prefers the longest prefix: an MA-M block inside one the IEEE re-sells', () => {
    // 10:06:48 is an MA-L of the IEEE Registration Authority; 10:06:48:0 an MA-M block in it.
    const v = ouiVendor('10:06:48:01:02:03')
    expect(v).to.be.a('string').and.not.match(/IEEE Registration Authority/)
  })

  it('gives no vendor to a locally administered or unassigned address', () => {
    expect(ouiVendor('da:a1:19:00:00:01')).to.equal(null)
    expect(ouiVendor('02:00:00:00:00:01')).to.equal(null)
  })
})
