/** The tac_plus-ng text of one profile and one policy rule, and the identifiers every renderer shares. */
import { expect } from 'chai'
import type { CommandSet, PolicyRuleView, TacacsProfile } from '../api.js'
import { deviceGroupIdent, tacIdent, userGroupIdent } from '../renderers/names.js'
import { renderProfileText } from '../renderers/profile.js'
import { renderRuleText } from '../renderers/rule.js'

const profile: TacacsProfile = {
  id: '00000000-0000-4000-8000-000000000001',
  name: 'noc',
  description: null,
  privilege_level: 7,
  shell_attributes: [
    { name: 'idletime', value: '10' },
    { name: 'autocmd', value: 'show users' },
  ],
  command_set_ids: ['a', 'b'],
  default_action: 'deny',
  created_at: '',
  updated_at: '',
}

const sets: Pick<CommandSet, 'name' | 'commands'>[] = [
  { name: 'read-only', commands: [{ command: 'show', action: 'permit', arguments: [{ match_type: 'exact', value: '10.0.0.0/8' }] }] },
  { name: 'no-reload', commands: [{ command: 'reload', action: 'deny', arguments: [] }] },
]

const rule = (over: Partial<PolicyRuleView>): PolicyRuleView => ({
  id: 'r',
  name: 'noc-core',
  position: 1,
  enabled: true,
  is_default: false,
  who: { type: 'any' },
  where: { type: 'any' },
  tacacs_profile_id: null,
  radius_profile_id: null,
  ...over,
})

describe('tacacs renderers: profile and rule text', () => {
  it('renders a profile: shell start with privilege and attributes, entries in order, the default action', () => {
    expect(renderProfileText(profile, sets)).to.equal(
      [
        'profile "noc" {',
        '    script {',
        '        if (service == shell) {',
        '            if (cmd == "") {',
        '                set priv-lvl = 7',
        '                set "idletime" = "10"',
        '                set "autocmd" = "show users"',
        '                permit',
        '            }',
        '            if (cmd =~ /[\\x00-\\x1f\\x7f]/) deny',
        '            # command set read-only',
        '            if (cmd =~ /^show (?!<cr>$)(?:10\\.0\\.0\\.0\\/8)(?<! <cr>)(?: <cr>)?$/) permit',
        '            # command set no-reload',
        '            if (cmd =~ /^reload(?: .*)?$/) deny',
        '            deny',
        '        }',
        '    }',
        '}',
        '',
      ].join('\n'),
    )
  })

  it('renders a rule for a user on a device, with its profile', () => {
    const text = renderRuleText(rule({ who: { type: 'user', user_id: 'u', username: 'alice' }, where: { type: 'device', device_id: 'd', device_name: 'core-sw1' } }), 'noc')
    expect(text).to.equal(
      ['rule "noc-core" {', '    enabled = yes', '    script {', '        if (user == "alice" && device == "core-sw1") {', '            profile = "noc"', '            permit', '        }', '    }', '}', ''].join('\n'),
    )
  })

  it('renders a group on a device group; a rule without a TACACS+ profile denies; a disabled rule says so', () => {
    const text = renderRuleText(
      rule({ enabled: false, who: { type: 'group', group_id: 'g', group_name: 'Net Admins' }, where: { type: 'device_group', device_group_id: 'x', device_group_name: 'core' } }),
      null,
    )
    expect(text).to.contain('enabled = no')
    expect(text).to.contain(`if (member == ${userGroupIdent('Net Admins')} && device == "group:core") {`)
    expect(text).to.contain('            deny\n')
    expect(text).not.to.contain('profile =')
  })

  it('renders the default rule, and a rule for anyone anywhere, without a condition', () => {
    const expected = ['rule "default" {', '    enabled = yes', '    script {', '        profile = "guest"', '        permit', '    }', '}', ''].join('\n')
    expect(renderRuleText(rule({ name: 'default', is_default: true }), 'guest')).to.equal(expected)
    expect(renderRuleText(rule({ name: 'default' }), 'guest')).to.equal(expected)
    expect(renderRuleText(rule({ name: 'default', is_default: true }), null)).to.contain('        deny\n')
  })

  it('keeps safe names, and makes others safe, stable and distinct', () => {
    expect(tacIdent('core-sw1.example')).to.equal('core-sw1.example')
    expect(tacIdent('alice@corp')).to.equal('alice@corp')
    const odd = tacIdent('Net "Admins" ${HOME}\n#x')
    expect(odd).to.match(/^[A-Za-z0-9._@-]+~[0-9a-f]{16}$/)
    expect(tacIdent('Net "Admins" ${HOME}\n#x')).to.equal(odd)
    expect(tacIdent('a b')).not.to.equal(tacIdent('a_b'))
    expect(tacIdent('a b')).not.to.equal(tacIdent('a,b'))
    expect(deviceGroupIdent('core')).to.equal('"group:core"')
  })
})
