/**
 * The built-in profiles the transcripts run. TEMPORARY: a copy until plugins/ncm/services/profiles/builtin.ts
 * (helper hb) is on main; then this file reads that one, so a change of a built-in is tested here.
 */
import type { CollectorProfile } from '../../collector/wire.js'

const base = { login_prompt: null, login_answer: null, enable_command: null, enable_prompt: null, pager_answer: ' ', command_timeout_seconds: 5, legacy_algorithms: false, mode: 'shell' as const }
const CISCO_PROMPT = '[\\w.@()/:-]+[>#]'

export const BUILTIN_FOR_TESTS: { key: string; profile: CollectorProfile }[] = [
  { key: 'cisco_ios', profile: { ...base, id: 'cisco_ios', name: 'Cisco IOS', prompt: CISCO_PROMPT, pre_commands: ['terminal length 0', 'terminal width 0'], command: 'show running-config', pager_pattern: '--More--' } },
  { key: 'cisco_nxos', profile: { ...base, id: 'cisco_nxos', name: 'Cisco NX-OS', prompt: CISCO_PROMPT, pre_commands: ['terminal length 0'], command: 'show running-config', pager_pattern: '--More--' } },
  { key: 'juniper_junos', profile: { ...base, id: 'juniper_junos', name: 'Juniper Junos', prompt: '[\\w.-]+@[\\w.-]+[>#]', pre_commands: [], command: 'show configuration | display set | no-more', pager_pattern: '---\\(more( \\d+%)?\\)---' } },
  { key: 'arista_eos', profile: { ...base, id: 'arista_eos', name: 'Arista EOS', prompt: CISCO_PROMPT, pre_commands: ['terminal length 0'], command: 'show running-config', pager_pattern: '--More--' } },
  { key: 'aruba_aoscx', profile: { ...base, id: 'aruba_aoscx', name: 'Aruba AOS-CX', prompt: '[\\w.-]+#', pre_commands: ['no page'], command: 'show running-config', pager_pattern: '-- MORE --' } },
  { key: 'hpe_procurve', profile: { ...base, id: 'hpe_procurve', name: 'HPE ProCurve', prompt: '[\\w.-]+#', login_prompt: 'Press any key to continue', login_answer: '', pre_commands: ['no page'], command: 'show running-config', pager_pattern: '-- MORE --' } },
  { key: 'mikrotik_routeros', profile: { ...base, id: 'mikrotik_routeros', name: 'MikroTik RouterOS', prompt: '\\[[^\\]]+\\] >', pre_commands: [], command: '/export terse', pager_pattern: '-- \\[Q quit' } },
]
