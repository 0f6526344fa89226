/**
 * The renderers' `revokedSince` on hand-written files (the end-to-end proof against the daemons is in
 * test/e2e/full-chain.test.ts and plugins/nac/test/e2e-8021x.test.ts): the forms those tests do not
 * reach, tac_plus-ng with the lockout (passwords in the shadow file) and directory users, and what is
 * not a revocation (a release refusing the user by itself, a later expiry, an added user), and the
 * endpoint groups (MAB): taken out of every group counts, a move between groups or an added endpoint not.
 */
import { expect } from 'chai'
import { freeradiusRevokedSince } from '../../plugins/radius/renderers/revocations.js'
import { tacPlusNgRevokedSince } from '../../plugins/tacacs/renderers/revocations.js'

const at = new Date('2026-06-01T00:00:00Z')
const past = Math.floor(Date.parse('2026-05-01T00:00:00Z') / 1000)
const later = Math.floor(Date.parse('2026-09-01T00:00:00Z') / 1000)
const sooner = Math.floor(Date.parse('2026-07-01T00:00:00Z') / 1000)
const C1 = '$6$aaaaaaaa$' + 'A'.repeat(86)
const C2 = '$6$bbbbbbbb$' + 'B'.repeat(86)

const tacCfg = (users: string[], dirUsers: string[] = []) => ({
  path: 'tac_plus-ng.cfg',
  content: ['id = tac_plus-ng {', ...dirUsers.map((u) => `        if ($USER == "${u}") { set $TACPROFILE = "{ member = x }" continue }`), ...users, '}', ''].join('\n'),
})
const tacUser = (name: string, lines: string[]) => [`    user "${name}" {`, ...lines.map((l) => `        ${l}`), '    }'].join('\n')
const shadow = (entries: [string, string][]) => ({ path: 'shadow', content: entries.map(([u, c]) => `${u}:${c}:20000:0:99999:7:::`).join('\n') + '\n' })

describe('deploy: what a release lets in that now\'s files do not (revokedSince)', () => {
  it('tac_plus-ng with the lockout: the verifier is read from the shadow file; a changed one is a password change, the same one nothing', () => {
    const mavis = ['password login = mavis', 'password pap = login']
    const release = [tacCfg([tacUser('ann', mavis), tacUser('ben', mavis)]), shadow([['ann', C1], ['ben', C1]])]
    const now = [tacCfg([tacUser('ann', mavis), tacUser('ben', mavis)]), shadow([['ann', C1], ['ben', C2]])]
    expect(tacPlusNgRevokedSince(release, now, at)).to.deep.equal([{ subject: 'user', name: 'ben', change: 'password_changed', at: null }])
    // The lockout turned on since: the same verifier, moved from the block to the shadow file.
    const plain = [tacCfg([tacUser('ann', [`password login = crypt "${C1}"`]), tacUser('ben', [`password login = crypt "${C1}"`])])]
    expect(tacPlusNgRevokedSince(plain, release, at)).to.deep.equal([])
  })

  it('tac_plus-ng: a directory user no longer let through, a "deny" password, an expiry; not a release that refuses by itself, a later expiry or an added user', () => {
    const crypt = `password login = crypt "${C1}"`
    const release = [tacCfg([tacUser('gone', [crypt]), tacUser('denied', [crypt]), tacUser('old', [crypt, `valid until = ${past}`]), tacUser('soon', [crypt]), tacUser('longer', [crypt, `valid until = ${sooner}`])], ['dir-a', 'dir-b'])]
    const now = [tacCfg([tacUser('denied', ['password login = deny']), tacUser('soon', [crypt, `valid until = ${sooner}`]), tacUser('longer', [crypt, `valid until = ${later}`]), tacUser('added', [crypt])], ['dir-a'])]
    expect(tacPlusNgRevokedSince(release, now, at)).to.deep.equal([
      { subject: 'user', name: 'denied', change: 'not_admitted', at: null },
      { subject: 'user', name: 'dir-b', change: 'not_admitted', at: null },
      { subject: 'user', name: 'gone', change: 'not_admitted', at: null },
      { subject: 'user', name: 'soon', change: 'expires_sooner', at: new Date(sooner * 1000).toISOString() },
    ])
  })

  it('FreeRADIUS: refused now, expired now, directory, a later expiry and an added user', () => {
    const file = (lines: string[]) => [{ path: 'portcullis/verifiers', content: ['# header', ...lines, ''].join('\n') }]
    const u = (name: string, items: string) => `u.${name}\t${items}`
    const pw = (c: string) => `Crypt-Password := '${c}', NT-Password := 0x${'A'.repeat(32)}`
    const release = file([
      u('dis', pw(C1)),
      u('exp', pw(C1)),
      u('dir', 'Tmp-String-7 := "directory"'),
      u('was-refused', 'Tmp-String-4 := "disabled"'),
      u('longer', `${pw(C1)}, Expiration := ${sooner}`),
      u('chap', `${pw(C1)}, Cleartext-Password := 'x'`),
    ])
    const now = file([
      u('dis', 'Tmp-String-4 := "disabled"'),
      u('exp', `${pw(C1)}, Expiration := ${past}`),
      u('was-refused', pw(C2)),
      u('longer', `${pw(C1)}, Expiration := ${later}`),
      u('chap', pw(C1)),
      u('added', pw(C1)),
    ])
    expect(freeradiusRevokedSince(release, now, at)).to.deep.equal([
      { subject: 'user', name: 'dir', change: 'not_admitted', at: null },
      { subject: 'user', name: 'dis', change: 'not_admitted', at: null },
      { subject: 'user', name: 'exp', change: 'not_admitted', at: new Date(past * 1000).toISOString() },
    ])
  })

  it('FreeRADIUS endpoints: out of every group or gone counts; a move, an added endpoint, or one in no group then does not; no NAC file now is no group', () => {
    const g = (id: string) => `Portcullis-NAC-Endpoint-Group += "${id}"`
    const file = (lines: string[]) => ({ path: 'portcullis/nac-endpoints', content: ['# header', ...lines, ''].join('\n') })
    const release = [
      file([
        `m.02:00:00:00:00:01\t${g('printers')}`,
        `m.02:00:00:00:00:02\t${g('guests')}, Portcullis-NAC-Device-Type := "camera"`,
        `m.02:00:00:00:00:03\t${g('printers')}`,
        `m.02:00:00:00:00:04\tPortcullis-NAC-MAC := "02:00:00:00:00:04"`,
      ]),
    ]
    const now = [
      file([
        `m.02:00:00:00:00:01\tPortcullis-NAC-Device-Type := "camera"`,
        `m.02:00:00:00:00:03\t${g('phones')}`,
        `m.02:00:00:00:00:05\t${g('guests')}`,
      ]),
    ]
    const named = (macs: string[]) => macs.map((name) => ({ subject: 'endpoint', name, change: 'not_admitted', at: null }))
    expect(freeradiusRevokedSince(release, now, at)).to.deep.equal(named(['02:00:00:00:00:01', '02:00:00:00:00:02']))
    expect(freeradiusRevokedSince(now, release, at)).to.deep.equal(named(['02:00:00:00:00:05']))
    expect(freeradiusRevokedSince([], now, at)).to.deep.equal([])
    expect(freeradiusRevokedSince(release, [], at)).to.deep.equal(named(['02:00:00:00:00:01', '02:00:00:00:00:02', '02:00:00:00:00:03']))
  })
})
