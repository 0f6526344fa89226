/** The address parser alone: what is a device address, its one canonical spelling, and the host-bits rule. */
import { expect } from 'chai'
import { parseHost, parsePrefix } from '../services/address.js'

const canonical = (s: string) => {
  const r = parsePrefix(s)
  if (!r.ok) throw new Error(`${s}: ${r.reason}`)
  return r.text
}

describe('inventory address parsing', () => {
  it('writes every spelling of a prefix one way', () => {
    const cases: [string, string][] = [
      ['10.0.0.1', '10.0.0.1/32'],
      ['10.0.0.1/32', '10.0.0.1/32'],
      ['10.1.0.0/16', '10.1.0.0/16'],
      ['0.0.0.0/0', '0.0.0.0/0'],
      ['2001:DB8::', '2001:db8::/128'],
      ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1/128'],
      ['2001:db8::/64', '2001:db8::/64'],
      ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1/128'],
      ['2001:db8:0:1:0:0:0:0/64', '2001:db8:0:1::/64'],
      ['2001:db8:1:0:1:1:1:1', '2001:db8:1:0:1:1:1:1/128'],
      ['::', '::/128'],
      ['::/0', '::/0'],
      ['::1', '::1/128'],
      ['fe80::/10', 'fe80::/10'],
      ['1:2:3:4:5:6:7::', '1:2:3:4:5:6:7:0/128'],
      ['64:ff9b::192.0.2.33', '64:ff9b::c000:221/128'],
      // IPv4-mapped: the same hosts as IPv4, stored as IPv4.
      ['::ffff:10.0.0.1', '10.0.0.1/32'],
      ['::ffff:a00:1', '10.0.0.1/32'],
      ['::ffff:10.0.0.0/104', '10.0.0.0/8'],
      ['::ffff:0:0/96', '0.0.0.0/0'],
    ]
    for (const [input, want] of cases) expect(canonical(input), input).to.equal(want)
  })

  it('refuses what is not an address or prefix', () => {
    const bad = [
      '', 'abc', 'sw1.example.net', '10.0.0.300/24', '10.0.0.0/33', 'fe80::/129', '10.0.0', '10.0.0.0.1', '010.0.0.1', '10.0.0.1/', '10.0.0.1/08',
      '10.0.0.1/-1', '10.0.0.1/24/1', ' 10.0.0.1', '10.0.0.1 ', '1::2::3', '1:2:3:4:5:6:7:8:9', '1:2:3:4:5:6:7', '12345::', 'fe80::1%eth0', 'g::1',
      '::ffff:10.0.0.256', '1.2.3.4::', '10.0.0.1/+8', '10.0.0.1/1e1', '١٠.0.0.1',
    ]
    for (const s of bad) expect(parsePrefix(s), JSON.stringify(s)).to.deep.equal({ ok: false, reason: 'malformed' })
  })

  it('refuses host bits, naming the network that was probably meant', () => {
    expect(parsePrefix('10.1.2.3/16')).to.deep.equal({ ok: false, reason: 'host_bits', network: '10.1.0.0/16' })
    expect(parsePrefix('2001:db8::1/64')).to.deep.equal({ ok: false, reason: 'host_bits', network: '2001:db8::/64' })
    expect(parsePrefix('::ffff:10.1.2.3/104')).to.deep.equal({ ok: false, reason: 'host_bits', network: '10.0.0.0/8' })
  })

  it('reads one host address for lookups, a mapped one as IPv4', () => {
    expect(parseHost('10.0.0.1')).to.equal('10.0.0.1')
    expect(parseHost('::ffff:10.0.0.1')).to.equal('10.0.0.1')
    expect(parseHost('2001:DB8::0001')).to.equal('2001:db8::1')
    expect(parseHost('10.0.0.0/8')).to.equal(null)
    expect(parseHost('10.0.0.1/32')).to.equal(null)
    expect(parseHost('nas1')).to.equal(null)
  })
})
