/** The tac_plus-ng text of one profile and one policy rule, and the identifiers every renderer shares. */
import { expect } from 'chai'
import type { CommandSet, PolicyRuleView, TacacsProfile } from '../api.js'
import { deviceGroupIdent, tacName, userGroupIdent, userIdent } from '../renderers/names.js'
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
    { name: 'banner', value: '100% %p %n' },
  ],
  command_set_ids: ['a', 'b'],
  default_action: 'deny',
  services: [],
  enable_mode: 'none',
  enable_privilege_level: 15,
  has_enable_secret: false,
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
  it('renders a profile: control characters denied first, shell start with privilege and attributes (`%` doubled for strftime), entries in order, the default action', () => {
    expect(renderProfileText(profile, sets)).to.equal(
      [
        'profile "noc" {',
        '    script {',
        '        if (service == shell) {',
        '            # A line holding a control character (a NUL byte too) is denied first',
        '            if (cmd !~ /\\A[^\\x00-\\x1f\\x7f]*\\z/) deny',
        '            if (cmd == "") {',
        '                set priv-lvl = 7',
        '                set "idletime" = "10"',
        '                set "autocmd" = "show users"',
        '                set "banner" = "100%% %%p %%n"',
        '                permit',
        '            }',
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
      [
        '# Rule "noc-core": user "alice" on device "core-sw1": TACACS+ profile "noc"',
        'rule "noc-core" {',
        '    enabled = yes',
        '    script {',
        '        if user == "alice" {',
        '            if device == "core-sw1" {',
        '                profile = "noc"',
        '                permit',
        '            }',
        '        }',
        '    }',
        '}',
        '',
      ].join('\n'),
    )
  })

  it('renders a group on a device group; a rule without a TACACS+ profile denies; a disabled rule says so', () => {
    const text = renderRuleText(
      rule({ enabled: false, who: { type: 'group', group_id: 'g', group_name: 'Net Admins' }, where: { type: 'device_group', device_group_id: 'x', device_group_name: 'core' } }),
      null,
    )
    expect(text).to.contain('enabled = no')
    expect(text).to.contain('        if member == "Net Admins" {\n            if device == "group:core" {\n')
    expect(text.split('\n')[0]).to.equal('# Rule "noc-core": members of user group "Net Admins" on the devices of device group "core": denied (no TACACS+ profile) (disabled)')
    expect(text).to.contain('                deny\n')
    expect(text).not.to.contain('profile =')
  })

  it('renders the default rule, and a rule for anyone anywhere, without a condition', () => {
    const body = ['rule "default" {', '    enabled = yes', '    script {', '        profile = "guest"', '        permit', '    }', '}', '']
    expect(renderRuleText(rule({ name: 'default', is_default: true }), 'guest')).to.equal(['# Default rule "default": anyone on any device: TACACS+ profile "guest"', ...body].join('\n'))
    expect(renderRuleText(rule({ name: 'default' }), 'guest')).to.equal(['# Rule "default": anyone on any device: TACACS+ profile "guest"', ...body].join('\n'))
    expect(renderRuleText(rule({ name: 'default', is_default: true }), null)).to.contain('        deny\n')
  })

  it('writes every name as the operator wrote it, quoted, with `"` and `\\` escaped and `${` defused', () => {
    for (const name of ['_bob', '.x', '-y', '@z', 'alice@corp', 'core-sw1.example', 'a.b_c-d@e']) expect(userIdent(name)).to.equal(`"${name}"`)
    expect(userGroupIdent('Net Admins')).to.equal('"Net Admins"')
    expect(userGroupIdent('ops "core" \\ #1, ünï')).to.equal('"ops \\"core\\" \\\\ #1, ünï"')
    // The reader would replace `${HOME}` from its environment: a \001 byte between `$` and `{` stops it.
    expect(userGroupIdent('x${HOME}y')).to.equal('"x$\\001{HOME}y"')
    expect(userGroupIdent('$ {x} $x')).to.equal('"$ {x} $x"')
    expect(deviceGroupIdent('core')).to.equal('"group:core"')
    expect(() => tacName('a\0b')).to.throw(/NUL/)
  })
})
