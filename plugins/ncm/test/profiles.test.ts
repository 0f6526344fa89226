/**
 * The built-in vendor profiles (no app): every pattern is a safe regex as the collector and the
 * core compile it, and each profile's strip and secret lines do what they are for on a sample of
 * that vendor's output.
 */
import { expect } from 'chai'
import { checkSafeRegex } from '../../../sdk/safe-regex.js'
import { BUILTIN_PROFILES } from '../services/profiles/builtin.js'
import { maskConfig, normalizeConfig, SECRET_HIDDEN } from '../services/mask.js'

const byName = (n: string) => BUILTIN_PROFILES.find((p) => p.name === n)!

describe('ncm: built-in command profiles', () => {
  it('has the seven vendor profiles, each pattern a safe regex', () => {
    expect(BUILTIN_PROFILES.map((p) => p.name)).to.deep.equal(['cisco_ios', 'cisco_nxos', 'juniper_junos', 'arista_eos', 'aruba_aoscx', 'hpe_procurve', 'mikrotik_routeros'])
    for (const p of BUILTIN_PROFILES) {
      for (const pattern of [p.prompt, p.login_prompt, p.enable_prompt, p.pager_pattern, ...p.strip_lines, ...p.secret_lines]) {
        if (pattern !== null) expect(checkSafeRegex(pattern, { allowSlash: true }), `${p.name}: ${pattern}`).to.equal(null)
      }
    }
  })

  const samples: Record<string, { output: string; stripped: string[]; hidden: string[]; kept: string[] }> = {
    cisco_ios: {
      output: 'Building configuration...\r\n\r\nCurrent configuration : 1234 bytes\r\n! Last configuration change at 10:01:02 UTC Mon Nov 2 2026 by alice\r\nhostname sw1\r\nenable secret 9 $9$abc$def\r\nusername bob privilege 15 secret 5 $1$xyz\r\nsnmp-server community s3cret RO\r\n  key 7 0822455D0A16\r\nntp clock-period 36028797\r\nend\r\n',
      stripped: ['Building configuration', 'Current configuration', 'Last configuration change', 'ntp clock-period'],
      hidden: ['$9$abc$def', '$1$xyz', 's3cret', '0822455D0A16'],
      kept: ['hostname sw1', 'enable secret 9 <secret hidden>', 'username bob privilege 15 secret 5 <secret hidden>', 'end'],
    },
    juniper_junos: {
      output: '## Last commit: 2026-11-28 10:00:00 UTC by alice\nset system host-name r1\nset system root-authentication encrypted-password "$6$abc"\nset protocols ospf area 0 interface ge-0/0/0 authentication md5 1 key "$9$xyz"\n',
      stripped: ['## Last commit'],
      hidden: ['$6$abc', '$9$xyz'],
      kept: ['set system host-name r1'],
    },
    mikrotik_routeros: {
      output: '# 2026-11-28 10:00:00 by RouterOS 7.16\n# software id = ABCD-1234\n/system identity set name=rb1\n/user add name=backup password=Hunter2-x\n',
      stripped: ['by RouterOS', 'software id'],
      hidden: ['Hunter2-x'],
      kept: ['/system identity set name=rb1'],
    },
  }

  for (const [name, s] of Object.entries(samples)) {
    it(`${name}: strips the lines that change by themselves and hides the secrets`, () => {
      const p = byName(name)
      const raw = normalizeConfig(s.output, p.strip_lines)
      for (const x of s.stripped) expect(raw).to.not.include(x)
      expect(raw).to.not.include('\r').and.not.match(/^\n/)
      const masked = maskConfig(raw, p.secret_lines, [])
      for (const x of s.hidden) expect(masked, x).to.not.include(x)
      for (const x of s.kept) expect(masked.split('\n'), x).to.include(x)
      expect(masked).to.include(SECRET_HIDDEN)
    })
  }

  it('masks every written form of a known secret wherever it stands', () => {
    const masked = maskConfig('description pass Pw-Secret-1 here\nbanner "Pw-Secret-1"\n', [], ['Pw-Secret-1'])
    expect(masked).to.not.include('Pw-Secret-1')
  })
})
