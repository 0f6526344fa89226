/**
 * CHAP and MS-CHAP for tac_plus-ng, the pure parts: the client's MS-CHAP crypto against the RFC
 * test vectors (the daemon itself checks them in e2e/chap.test.ts), the user-block lines the
 * renderer writes from a kept password, and the names the deploy compares to purge older releases.
 */
import { expect } from 'chai'
import { challengeHash, mschapV1NtResponse, ntHash, ntResponse } from '../../../sdk/index.js'
import { tacacsChapWritable, tacacsMschapWritable } from '../api.js'
import { chapPasswordLines, tacPlusNgCleartextIn } from '../renderers/chap.js'

const hex = (b: Buffer) => b.toString('hex').toUpperCase()

describe('tacacs: CHAP and MS-CHAP (pure)', () => {
  it('computes MS-CHAPv1 (RFC 2433 B) and MS-CHAPv2 (RFC 2759 9.2) responses as the RFCs\' vectors say', () => {
    expect(hex(ntHash('MyPw'))).to.equal('FC156AF7EDCD6C0EDDE3337D427F4EAC')
    expect(hex(mschapV1NtResponse(Buffer.from('102DB5DF085D3041', 'hex'), 'MyPw'))).to.equal('4E9D3C8F9CFD385D5BF4D3246791956CA4C351AB409A3D61')
    const auth = Buffer.from('5B5D7C7D7B3F2F3E3C2C602132262628', 'hex')
    const peer = Buffer.from('21402324255E262A28295F2B3A337C7E', 'hex')
    expect(hex(challengeHash(peer, auth, 'User'))).to.equal('D02E4386BCE91226')
    expect(hex(ntResponse(auth, peer, 'User', 'clientPass'))).to.equal('82309ECD8D708B5EA08FAA3981CD83544233114A3D85D6DF')
  })

  it('writes nothing for a user without a kept password', () => {
    expect(chapPasswordLines(undefined, '  ')).to.deep.equal([])
  })

  it('writes the kept password for CHAP and MS-CHAP as one quoted token, escapes included', () => {
    const lines = chapPasswordLines('a"b\\c\td\n}# e', '  ')
    expect(lines.slice(1)).to.deep.equal(['  password chap = clear "a\\"b\\\\c\\011d\\012}# e"', '  password ms-chap = clear "a\\"b\\\\c\\011d\\012}# e"'])
    expect(lines[0]).to.match(/^ {2}# /)
  })

  it('leaves out MS-CHAP for a password outside the Basic Multilingual Plane, and both for one holding "${", saying why in a comment', () => {
    const astral = chapPasswordLines('Pass-😀-word', '')
    expect(astral[1]).to.equal('password chap = clear "Pass-😀-word"')
    expect(astral[2]).to.match(/^# .*Basic Multilingual Plane.*MS-CHAP is rejected$/)
    expect(astral.join('\n')).to.not.include('ms-chap =')
    const dollar = chapPasswordLines('x${HOME}y', '')
    expect(dollar).to.have.length(1)
    expect(dollar[0]).to.match(/^# the kept CHAP password holds "\$\{".*CHAP and MS-CHAP are rejected$/)
    expect(dollar[0]).to.not.include('HOME')
    // Below the astral plane every character is fine, U+FFFF included.
    expect(tacacsMschapWritable('\uFFFF-é-€')).to.equal(true)
    expect([tacacsChapWritable('a$b{c}'), tacacsChapWritable('a\0b')]).to.deep.equal([true, false])
  })

  it('names each user\'s kept password for the deploy\'s purge: stable, different per user and per password, none without', () => {
    const cfg = (users: [string, string | undefined][]) => ({
      path: 'tac_plus-ng.cfg',
      content: users.map(([u, p]) => [`    user "${u}" {`, '        password login = crypt "$6$x$y"', ...chapPasswordLines(p, '        '), '    }'].join('\n')).join('\n'),
    })
    const names = (users: [string, string | undefined][]) => tacPlusNgCleartextIn([cfg(users)], 'tac_plus-ng.cfg')
    const a = names([['alice', 'pw-1'], ['bob', undefined]])
    expect(a).to.have.length(2) // chap and ms-chap lines
    expect(names([['alice', 'pw-1'], ['bob', undefined], ['carol', undefined]])).to.deep.equal(a)
    expect(names([['alice', 'pw-2']])).to.not.include.members([a[0]])
    expect(names([['bob', 'pw-1']])).to.not.include.members([a[0]])
    expect(names([['alice', undefined]])).to.deep.equal([])
    expect(tacPlusNgCleartextIn([{ path: 'other.cfg', content: cfg([['alice', 'pw-1']]).content }], 'tac_plus-ng.cfg')).to.deep.equal([])
  })
})
