/**
 * The CoA packet code on its own (services/coa/packet.ts): sizes a NAS would
 * never send do not break a request, IPv6 addresses in every spelling, and
 * answers that are not this request's are told apart from forged ones.
 */
import { createHash } from 'node:crypto'
import { expect } from 'chai'
import radius from 'radius'
import { buildRequest, checkResponse } from '../services/coa/packet.js'

const attr = (packet: Buffer, type: number): Buffer | undefined => {
  for (let o = 20; o + 2 <= packet.length; o += packet.readUInt8(o + 1)) if (packet.readUInt8(o) === type) return packet.subarray(o + 2, o + packet.readUInt8(o + 1))
  return undefined
}

describe('nac: CoA packets', () => {
  it('cuts an over-long Acct-Session-Id or NAS-Port-Id to one attribute (253 octets) instead of failing', () => {
    const r = buildRequest('disconnect', 'cisco', { mac: '00:11:22:33:44:55', nasIp: '10.0.0.1', acctSessionId: 'x'.repeat(400), nasPortId: 'é'.repeat(200) }, 's', 1)
    expect(attr(r.packet, 44)!.length).to.equal(253)
    expect(attr(r.packet, 87)!.length).to.be.at.most(253)
  })

  it('writes NAS-IPv6-Address for every IPv6 spelling', () => {
    for (const [ip, hex] of [
      ['2001:db8::1', '20010db8000000000000000000000001'],
      ['fe80::', 'fe800000000000000000000000000000'],
      ['::1', '00000000000000000000000000000001'],
      ['2001:db8:0:0:1:0:0:1', '20010db8000000000001000000000001'],
    ]) {
      const r = buildRequest('reauthenticate', 'rfc5176', { mac: '00:11:22:33:44:55', nasIp: ip }, 's', 1)
      expect(attr(r.packet, 95)!.toString('hex'), ip).to.equal(hex)
      expect(attr(r.packet, 4), ip).to.equal(undefined)
    }
  })

  it('tells an answer to another request (ignored) from a forged one (remembered)', () => {
    const req = buildRequest('reauthenticate', 'cisco', { mac: '00:11:22:33:44:55', nasIp: '10.0.0.1' }, 'secret', 7)
    const answer = (code: string, identifier: number, secret: string) => {
      const packet = radius.decode_without_secret({ packet: Buffer.from(req.packet) })
      return radius.encode_response({ packet: { ...packet, identifier }, code, secret })
    }
    expect(checkResponse(req, answer('CoA-ACK', 7, 'secret'), 'secret')).to.deep.equal({ ok: true, code: 44, errorCause: null })
    expect(checkResponse(req, answer('CoA-ACK', 8, 'secret'), 'secret')).to.deep.equal({ ok: false, why: 'unrelated' })
    expect(checkResponse(req, answer('Disconnect-ACK', 7, 'secret'), 'secret')).to.deep.equal({ ok: false, why: 'unrelated' })
    expect(checkResponse(req, Buffer.alloc(12), 'secret')).to.deep.equal({ ok: false, why: 'unrelated' })
    expect(checkResponse(req, answer('CoA-ACK', 7, 'other'), 'secret')).to.deep.equal({ ok: false, why: 'authenticator' })
    // A right Response Authenticator around a Message-Authenticator made with another secret: refused too.
    const forged = Buffer.from(answer('CoA-NAK', 7, 'other'))
    forged.set(req.packet.subarray(4, 20), 4)
    createHash('md5').update(forged).update('secret').digest().copy(forged, 4)
    expect(checkResponse(req, forged, 'secret')).to.deep.equal({ ok: false, why: 'authenticator' })
  })
})
