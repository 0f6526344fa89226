/**
 * The FreeRADIUS second factor's text (renderers/mfa.ts), pure: which clients take the code
 * appended (device groups and the groups below them), what a client block and the site files
 * carry in one mode and in both, and the refusals. The daemon itself: e2e-mfa.test.ts.
 */
import { expect } from 'chai'
import { appendClientsOf, mfaAfterPassword, mfaAuthorize, mfaPostAuth, mfaClientLines, mfaModules, mfaPap, type FreeradiusMfa } from '../renderers/mfa.js'

const base: FreeradiusMfa = { mode: 'challenge', baseUrl: 'http://127.0.0.1:8080', key: 'k'.repeat(40), checkPath: '/api/v1/mfa/internal/check', verifyPath: '/api/v1/mfa/internal/verify', pushPath: '/api/v1/mfa/internal/push' }
const G = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`

describe('radius: the second factor, rendered (pure)', () => {
  const groups = [
    { id: G(1), parent_id: null },
    { id: G(2), parent_id: G(1) },
    { id: G(3), parent_id: G(2) },
    { id: G(4), parent_id: null },
  ]
  const devices = [
    { name: 'top', device_group_id: G(1) },
    { name: 'deep', device_group_id: G(3) },
    { name: 'other', device_group_id: G(4) },
    { name: 'none', device_group_id: null },
  ]

  it('takes the devices of a listed group and of every group below it', () => {
    expect(appendClientsOf([G(2)], groups, devices)).to.deep.equal(['deep'])
    expect(appendClientsOf([G(1)], groups, devices)).to.deep.equal(['top', 'deep'])
    expect(appendClientsOf([G(4), G(3)], groups, devices)).to.deep.equal(['deep', 'other'])
    expect(appendClientsOf([], groups, devices)).to.deep.equal([])
  })

  it('refuses an id that names no device group, naming the setting and the id', () => {
    expect(() => appendClientsOf([G(1), G(9)], groups, devices)).to.throw(/radius\.mfa_append_device_groups.*000000000009/)
  })

  it('ends on a cycle of groups instead of looping', () => {
    const cyclic = [
      { id: G(1), parent_id: G(2) },
      { id: G(2), parent_id: G(1) },
    ]
    expect(appendClientsOf([G(4)], [...cyclic, { id: G(4), parent_id: null }], [{ name: 'x', device_group_id: G(1) }])).to.deep.equal([])
  })

  it('writes no client item and one mode\'s text while the tree has one mode', () => {
    for (const m of [base, { ...base, mode: 'append' as const }, { ...base, mode: 'append' as const, appendClients: ['top'] }]) {
      expect(mfaClientLines(m, 'top')).to.deep.equal([])
      expect(mfaPap(m) + mfaAfterPassword(m)).to.not.include('%{client:portcullis_mfa}')
    }
    expect(mfaPap(base)).to.include('if (&State) {').and.not.include('&User-Password := "%{1}"')
    expect(mfaPap({ ...base, mode: 'append' })).to.include('&User-Password := "%{1}"').and.not.include('if (&State)')
  })

  it('writes each client\'s mode and compares it once a request when the tree has both', () => {
    const m = { ...base, appendClients: ['deep'] }
    expect(mfaClientLines(m, 'deep').at(-1)).to.equal('\tportcullis_mfa = "append"')
    expect(mfaClientLines(m, 'top').at(-1)).to.equal('\tportcullis_mfa = "challenge"')
    for (const text of [mfaPap(m), mfaAfterPassword(m)]) {
      expect(text.match(/%\{client:portcullis_mfa\}/g), 'one comparison').to.have.length(1)
      expect(text).to.include('if ("%{client:portcullis_mfa}" == "append") {')
    }
    const pap = mfaPap(m)
    expect(pap.indexOf('&User-Password := "%{1}"'), 'append first').to.be.lessThan(pap.indexOf('if (&State)'))
  })

  it('keeps the key out of the module file and refuses a control character in it, and an address that is not scheme, host and port', () => {
    expect(mfaModules(base)).to.not.include(base.key)
    expect(mfaPap(base)).to.include(`'X-Internal-Key: ${base.key}'`)
    expect(() => mfaPap({ ...base, key: 'a\nb' })).to.throw(/control character/)
    expect(() => mfaModules({ ...base, baseUrl: 'http://127.0.0.1:8080/x' })).to.throw(/mfa\.internal_url/)
  })

  it('routes the answer to a challenge to Auth-Type PAP in authorize, only while challenges are sent', () => {
    for (const m of [base, { ...base, appendClients: ['deep'] }]) expect(mfaAuthorize(m)).to.include('if (&State && &User-Password && !&CHAP-Password && !&MS-CHAP-Challenge) {').and.include('&Auth-Type := PAP')
    for (const m of [null, { ...base, mode: 'append' as const }]) expect(mfaAuthorize(m)).to.not.include('&Auth-Type')
  })

  it('marks the second factor decided where a code was verified or none was owed, and refuses an accept without the mark in post-auth', () => {
    const mark = '&Tmp-Integer-3 := 1'
    for (const [m, n] of [[base, 1], [{ ...base, mode: 'append' as const }, 2]] as const) {
      expect(mfaAfterPassword(m).split(mark).length - 1, 'not owed (and in append mode a push approved)').to.equal(n)
      expect(mfaPap(m)).to.include(mark)
    }
    expect(mfaPostAuth(base)).to.include('if (&Packet-Type == Access-Request && !&control:Tmp-Integer-3) {').and.include('"mfa_not_checked"').and.include('reject')
    expect(mfaPostAuth(null)).to.not.include('reject')
  })

  it('asks for a push where the check names it: with its number in the Access-Challenge (challenge mode), on the password alone (append mode)', () => {
    const after = mfaAfterPassword(base)
    expect(after).to.include('if (&control:Tmp-Integer-1) {').and.include('portcullis_mfa_push_start.authorize {').and.include('Approve the sign-in on your phone and enter %{control:Tmp-String-7} there')
    expect(after, 'no wait before the number is shown').to.not.include('portcullis_mfa_push.authorize {')
    const pap = mfaPap(base)
    expect(pap, 'the answer to the number').to.include('portcullis_mfa_push_wait.authorize {')
    const append = mfaAfterPassword({ ...base, mode: 'append' })
    expect(append).to.include('if (&control:Tmp-Integer-1) {').and.include('portcullis_mfa_push.authorize {')
    // Only an approval passes; every other end has its reason.
    for (const reason of ['mfa_push_denied', 'mfa_push_timeout', 'mfa_push_unavailable', 'mfa_push_locked', 'mfa_rate_limited']) {
      expect(append, reason).to.include(`"${reason}"`)
      expect(pap, reason).to.include(`"${reason}"`)
    }
    expect(append).to.include('/"approved":true,"outcome":"approved"/')
    const modules = mfaModules(base)
    const pushModule = modules.slice(modules.indexOf('rest portcullis_mfa_push {'))
    expect(pushModule).to.include('uri = "http://127.0.0.1:8080/api/v1/mfa/internal/push"').and.include('timeout = 122.0').and.include('connect_timeout = 2.0').and.include('max = 64')
    expect(pushModule).to.include('\\"origin\\":\\"radius\\"')
    const start = modules.slice(modules.indexOf('rest portcullis_mfa_push_start {'))
    expect(start).to.include('\\"number_matching\\":true').and.include('/api/v1/mfa/internal/push-start"').and.match(/\n\t\ttimeout = 2\.0\n/)
    expect(modules.slice(modules.indexOf('rest portcullis_mfa_push_wait {'))).to.include('/api/v1/mfa/internal/push-wait"').and.include('timeout = 122.0')
  })

  it('renders the password alone with the second factor off', () => {
    expect(mfaPap(null)).to.match(/\npap\n$/)
    expect(mfaAfterPassword(null)).to.match(/\nok\n$/)
    expect(mfaClientLines(null, 'top')).to.deep.equal([])
  })
})
