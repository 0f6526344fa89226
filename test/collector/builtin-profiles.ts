/**
 * The built-in profiles the transcripts run. TEMPORARY: a copy of the collector's fields of
 * plugins/ncm/services/profiles/builtin.ts (helper hb) until it is on main; then this file reads that
 * one, so a change of a built-in is tested here.
 */
import type { CollectorProfile } from '../../collector/wire.js'

const base = { login_prompt: null, login_answer: null, enable_command: null, enable_prompt: null, pager_pattern: null, pager_answer: ' ', command_timeout_seconds: 30, legacy_algorithms: false, mode: 'shell' as const }
const CISCO_PROMPT = '[A-Za-z0-9_.:@-]+(\\([a-z0-9-]+\\))?[#>] ?'

export const BUILTIN_FOR_TESTS: { key: string; profile: CollectorProfile }[] = [
  { key: 'cisco_ios', profile: { ...base, id: '1', name: 'cisco_ios', prompt: CISCO_PROMPT, pre_commands: ['terminal length 0', 'terminal width 0'], enable_command: 'enable', enable_prompt: '[Pp]assword: ?', command: 'show running-config', pager_pattern: ' ?--More-- ?' } },
  { key: 'cisco_nxos', profile: { ...base, id: '2', name: 'cisco_nxos', prompt: CISCO_PROMPT, pre_commands: ['terminal length 0'], command: 'show running-config', pager_pattern: ' ?--More-- ?' } },
  { key: 'juniper_junos', profile: { ...base, id: '3', name: 'juniper_junos', prompt: '[A-Za-z0-9_.@-]+[>#%] ?', pre_commands: [], command: 'show configuration | display set | no-more' } },
  { key: 'arista_eos', profile: { ...base, id: '4', name: 'arista_eos', prompt: CISCO_PROMPT, pre_commands: ['terminal length 0', 'terminal width 32767'], command: 'show running-config' } },
  { key: 'aruba_aoscx', profile: { ...base, id: '5', name: 'aruba_aoscx', prompt: '[A-Za-z0-9_.()-]+# ?', pre_commands: ['no page'], command: 'show running-config' } },
  { key: 'hpe_procurve', profile: { ...base, id: '6', name: 'hpe_procurve', prompt: '[A-Za-z0-9_.()-]+[#>] ?', login_prompt: 'Press any key to continue', login_answer: ' ', pre_commands: ['no page'], command: 'show running-config', pager_pattern: '-- MORE --.*' } },
  { key: 'mikrotik_routeros', profile: { ...base, id: '7', name: 'mikrotik_routeros', prompt: '\\[[^\\]]+\\] ?> ?', pre_commands: [], command: '/export terse' } },
]
