/**
 * The built-in vendor profiles, in code with fixed ids (they cannot be edited or deleted; an
 * administrator copies one into a custom profile instead). Oxidized's models
 * (lib/oxidized/model/*.rb, Apache-2.0) were the reference for the commands and the lines that
 * change by themselves: ideas only, no code copied. Every pattern is a safe regex
 * (sdk/safe-regex.ts); a unit test checks them.
 */
import type { Profile } from './types.js'

const base = {
  mode: 'shell' as const,
  login_prompt: null,
  login_answer: null,
  enable_command: null,
  enable_prompt: null,
  pager_pattern: null,
  pager_answer: ' ',
  command_timeout_seconds: 30,
  legacy_algorithms: false,
  builtin: true,
}

/** `host#`, `host>`, `host(config)#`: the last line of a Cisco-like CLI. */
const CISCO_PROMPT = '[A-Za-z0-9_.:@-]+(\\([a-z0-9-]+\\))?[#>] ?'
const CISCO_SECRETS = ['enable (secret|password)( \\d+)?', 'username \\S+ (privilege \\d+ )?(secret|password)( \\d+)?', 'snmp-server community', 'tacacs-server key', 'radius-server key', 'key 7', 'key-string', 'password \\d', ' ?secret \\d', 'tacacs server \\S+ key', 'server-private \\S+ key']

export const BUILTIN_PROFILES: readonly Profile[] = [
  {
    ...base,
    id: '6e636d00-0000-4000-8000-000000000001',
    name: 'cisco_ios',
    description: 'Cisco IOS and IOS-XE: show running-config, paging off.',
    prompt: CISCO_PROMPT,
    pre_commands: ['terminal length 0', 'terminal width 0'],
    enable_command: 'enable',
    enable_prompt: '[Pp]assword: ?',
    command: 'show running-config',
    pager_pattern: ' ?--More-- ?',
    strip_lines: ['Building configuration\\.\\.\\.', 'Current configuration : \\d+ bytes', 'ntp clock-period \\d+', '! Last configuration change at .*', '! NVRAM config last updated at .*', '! No configuration change since last restart'],
    secret_lines: CISCO_SECRETS,
  },
  {
    ...base,
    id: '6e636d00-0000-4000-8000-000000000002',
    name: 'cisco_nxos',
    description: 'Cisco NX-OS: show running-config, paging off.',
    prompt: CISCO_PROMPT,
    pre_commands: ['terminal length 0'],
    command: 'show running-config',
    pager_pattern: ' ?--More-- ?',
    strip_lines: ['!Time: .*', '!Running configuration last done at: .*', '!Command: show running-config'],
    secret_lines: ['username \\S+ password \\d', 'snmp-server user \\S+ \\S+ auth \\S+', 'tacacs-server key', 'tacacs-server host \\S+ key', 'radius-server key', 'radius-server host \\S+ key', 'key 7'],
  },
  {
    ...base,
    id: '6e636d00-0000-4000-8000-000000000003',
    name: 'juniper_junos',
    description: 'Juniper Junos: show configuration | display set | no-more.',
    prompt: '[A-Za-z0-9_.@-]+[>#%] ?',
    pre_commands: [],
    command: 'show configuration | display set | no-more',
    strip_lines: ['## Last commit: .*', '## Last changed: .*'],
    secret_lines: ['set .* encrypted-password', 'set .* authentication-key', 'set .* authentication md5 \\d+ key', 'set .* secret', 'set .* pre-shared-key', 'set snmp community'],
  },
  {
    ...base,
    id: '6e636d00-0000-4000-8000-000000000004',
    name: 'arista_eos',
    description: 'Arista EOS: show running-config, paging off.',
    prompt: CISCO_PROMPT,
    pre_commands: ['terminal length 0', 'terminal width 32767'],
    command: 'show running-config',
    strip_lines: ['! Time: .*', '! Startup-config last modified at .*'],
    secret_lines: ['username \\S+ (privilege \\d+ )?(role \\S+ )?secret', 'enable (secret|password)', 'snmp-server community', 'tacacs-server (host \\S+ )?key', 'radius-server (host \\S+ )?key', 'key 7'],
  },
  {
    ...base,
    id: '6e636d00-0000-4000-8000-000000000005',
    name: 'aruba_aoscx',
    description: 'Aruba AOS-CX: show running-config, paging off.',
    prompt: '[A-Za-z0-9_.()-]+# ?',
    pre_commands: ['no page'],
    command: 'show running-config',
    strip_lines: ['Current configuration:', '!Version ArubaOS-CX .*', '!export-password: .*'],
    secret_lines: ['user \\S+ group \\S+ password', 'snmp-server community', 'tacacs-server host \\S+ key', 'radius-server host \\S+ key', 'key ciphertext'],
  },
  {
    ...base,
    id: '6e636d00-0000-4000-8000-000000000006',
    name: 'hpe_procurve',
    description: 'HPE ProCurve / ArubaOS-Switch: show running-config, paging off.',
    prompt: '[A-Za-z0-9_.()-]+[#>] ?',
    login_prompt: 'Press any key to continue',
    login_answer: ' ',
    pre_commands: ['no page'],
    command: 'show running-config',
    pager_pattern: '-- MORE --.*',
    strip_lines: ['Running configuration:', '; .* Configuration Editor; Created on release .*'],
    secret_lines: ['password (manager|operator)', 'snmp-server community', 'tacacs-server key', 'radius-server key'],
  },
  {
    ...base,
    id: '6e636d00-0000-4000-8000-000000000007',
    name: 'mikrotik_routeros',
    description: 'MikroTik RouterOS: /export terse (log in as "user+ct" to turn colours and the terminal detection off).',
    prompt: '\\[[^\\]]+\\] ?> ?',
    pre_commands: [],
    command: '/export terse',
    strip_lines: ['# \\S+ \\S+ by RouterOS .*', '# \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d by RouterOS .*', '# software id = .*'],
    secret_lines: ['.* password=', '.* secret=', '.* authentication-key=', '.* wpa2-pre-shared-key='],
  },
]

const byId = new Map(BUILTIN_PROFILES.map((p) => [p.id, p]))

export const builtinProfile = (id: string): Profile | undefined => byId.get(id)
