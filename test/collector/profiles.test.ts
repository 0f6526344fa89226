/**
 * Transcripts: each built-in vendor profile against a fake switch that talks the way that vendor's
 * CLI does (its prompt, its pager and erase sequence, its ANSI noise, HPE's "Press any key"). Each
 * profile is run twice: as is (paging turned off by its pre-commands) and with paging left on, so its
 * pager pattern is proven too. The configuration must come back byte for byte.
 */
import { expect } from 'chai'
import { fetchConfig } from '../../collector/ssh/session.js'
import type { CollectorProfile } from '../../collector/wire.js'
import { CISCO_LIKE, startFakeSwitch, type FakeSwitch, type Personality } from '../kit/fake-ssh.js'
import { BUILTIN_FOR_TESTS } from './builtin-profiles.js'
import { runsOn } from '../kit/app.js'

const ERASE = (n: number) => '\b'.repeat(n) + ' '.repeat(n) + '\b'.repeat(n)

/** What each vendor's CLI looks like on the wire (from their manuals and captured sessions). */
const personalities: Record<string, { p: Personality; config: string }> = {
  cisco_ios: {
    // Already privileged: `enable` changes nothing, the password prompt never comes.
    p: { ...CISCO_LIKE, prompt: 'core-sw1#', quiet: ['terminal width 0', 'enable'] },
    config: ['Building configuration...', '', 'Current configuration : 2048 bytes', '!', 'hostname core-sw1', '!', 'enable secret 9 $9$abc', ...lines('interface GigabitEthernet1/0/%', ' switchport access vlan 10'), 'end'].join('\n'),
  },
  cisco_nxos: {
    p: { ...CISCO_LIKE, prompt: 'nx-1(config)#', pagingOff: ['terminal length 0'], quiet: [] },
    config: ['!Command: show running-config', '!Time: Sat Nov 28 20:00:00 2026', '', 'version 9.3(8)', 'hostname nx-1', ...lines('interface Ethernet1/%', '  no shutdown')].join('\n'),
  },
  juniper_junos: {
    p: {
      prompt: 'netops@mx-1> ',
      banner: '--- JUNOS 21.4R3 Kernel 64-bit\r\n',
      pagingOff: [],
      command: 'show configuration | display set | no-more',
      pagerText: '---(more 42%)---',
      pagerErase: '\r' + ' '.repeat(16) + '\r',
    },
    config: ['## Last commit: 2026-11-28 20:00:00 UTC by netops', 'set version 21.4R3', ...lines('set interfaces ge-0/0/% unit 0 family inet address 10.0.%.1/24')].join('\n'),
  },
  arista_eos: {
    p: { ...CISCO_LIKE, prompt: 'leaf-1#', pagingOff: ['terminal length 0'], quiet: ['terminal width 32767'] },
    config: ['! Command: show running-config', '! Time: Sat Nov 28 20:00:00 2026', 'hostname leaf-1', ...lines('interface Ethernet%', '   switchport access vlan 20')].join('\n'),
  },
  aruba_aoscx: {
    p: {
      prompt: 'aruba-1# ',
      pagingOff: ['no page'],
      command: 'show running-config',
      pagerText: '-- MORE --, next page: Space, next line: Enter, quit: Control-C',
      pagerErase: '\x1b[2K\r',
      ansi: { beforePrompt: '\x1b[?1h\x1b=\x1b[24;1H\x1b[2K', beforeOutput: '\x1b[1;24r\x1b[24;1H' },
    },
    config: ['Current configuration:', '!', 'hostname aruba-1', ...lines('interface 1/1/%', '    vlan access 30')].join('\n'),
  },
  hpe_procurve: {
    p: {
      prompt: 'HP-2920# ',
      banner: 'HP J9727A 2920-24G-PoE+ Switch\r\nSoftware revision WB.16.10\r\n\r\n',
      loginPrompt: 'Press any key to continue',
      pagingOff: ['no page'],
      command: 'show running-config',
      pagerText: '-- MORE --, next page: Space, next line: Enter, quit: Control-C',
      pagerErase: '\x1b[24;1H\x1b[2K',
      ansi: { beforePrompt: '\x1b[24;1H\x1b[2K\x1b[?25h', beforeOutput: '\x1b[1;24r\x1b[1;1H\x1b[2J\x1b[?6l' },
    },
    config: ['Running configuration:', '', '; J9727A Configuration Editor; Created on release #WB.16.10', 'hostname "HP-2920"', ...lines('interface %', '   name "access %"', '   exit')].join('\n'),
  },
  mikrotik_routeros: {
    p: {
      prompt: '[netops@MikroTik] > ',
      pagingOff: [],
      command: '/export terse',
      pagerText: '-- [Q quit|D dump|down]',
      pagerErase: '\r\x1b[K',
      ansi: { beforePrompt: '\x1b[m\x1b[36m', beforeOutput: '\x1b[m' },
    },
    config: ['# nov/28/2026 20:00:00 by RouterOS 7.12', '# software id = ABCD-1234', '/system identity set name=MikroTik', ...lines('/ip address add address=10.1.%.1/24 interface=ether%')].join('\n'),
  },
}

function lines(...tpl: string[]): string[] {
  const out: string[] = []
  for (let i = 1; i <= 12; i++) for (const t of tpl) out.push(t.replace(/%/g, String(i)))
  return out
}

// No database here: the same on either engine, so once per `npm test`, in the embedded run (the PostgreSQL run is the suite's critical path).
;(runsOn('embedded') ? describe : describe.skip)('collector: transcripts of the built-in profiles', function () {
  this.timeout(30_000)
  const switches: FakeSwitch[] = []
  after(async () => {
    for (const s of switches) await s.close()
  })

  it('has a fake for every built-in profile', () => {
    expect(Object.keys(personalities).sort()).to.deep.equal(BUILTIN_FOR_TESTS.map((b) => b.key).sort())
  })

  for (const { key, profile } of BUILTIN_FOR_TESTS) {
    // Paging left on is tried where the profile knows its pager; the others turn it off by command (or have none).
    for (const paging of profile.pager_pattern ? [false, true] : [false]) {
      it(`${key}: ${paging ? 'with paging left on, the pager answered' : 'as shipped'}`, async () => {
        const { p, config } = personalities[key]
        // Paging left on: the profile's paging-off commands are not sent, the device pages.
        const used: CollectorProfile = paging ? { ...profile, pre_commands: profile.pre_commands.filter((c) => !p.pagingOff.includes(c)) } : profile
        const sw = await startFakeSwitch({ personality: p, password: 'pw', config, mode: paging ? 'paging' : 'normal', pageLines: 9 })
        switches.push(sw)
        const r = await fetchConfig({ host: sw.host, port: sw.port, profile: used, credential: { username: 'netops', password: 'pw' }, hostKeySha256: sw.hostKeySha256, connectTimeoutMs: 5000, deadlineMs: 20_000, maxBytes: 1 << 20 })
        expect(r.status, r.detail).to.equal('ok')
        expect(r.output).to.equal(config + '\n')
        expect(sw.commands).to.include(profile.command)
        if (paging) expect(sw.pagerAnswers).to.be.above(0)
      })
    }
  }
})
