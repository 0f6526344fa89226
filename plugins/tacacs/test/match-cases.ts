/** The matching table shared by the pure test (command-match.test.ts) and the daemon test (daemon-matching.test.ts). */
import type { ArgumentRule, Command } from '../api.js'

export const any = (command: string, action: Command['action'] = 'permit'): Command => ({ command, action, arguments: [] })
export const withArgs = (command: string, ...args: [ArgumentRule['match_type'], string][]): Command => ({
  command,
  action: 'permit',
  arguments: args.map(([match_type, value]) => ({ match_type, value })),
})

/** [entry, line, matches] */
export const CASES: [Command, string, boolean][] = [
  // the command words, any arguments; word boundary; the trailing <cr> or not; case-insensitive as the daemon
  [any('show'), 'show', true],
  [any('show'), 'show <cr>', true],
  [any('show'), 'show running-config', true],
  [any('show'), 'show running-config <cr>', true],
  [any('show'), 'SHOW Running-Config <cr>', true],
  [any('show'), 'showrun', false],
  [any('show'), 'show-run <cr>', false],
  [any('show'), 'no show', false],
  [any('configure terminal'), 'configure terminal <cr>', true],
  [any('configure terminal'), 'configure terminal', true],
  [any('configure terminal'), 'configure', false],
  [any('configure terminal'), 'configure terminally <cr>', false],
  [any('configure terminal'), 'configure memory <cr>', false],
  // literal metacharacters in the command words
  [any('show.run'), 'show.run', true],
  [any('show.run'), 'showXrun', false],
  [any('a+b'), 'a+b <cr>', true],
  [any('a+b'), 'aab', false],
  [any('x|y'), 'x', false],
  [any('(x)'), '(x) <cr>', true],
  // exact: the arguments equal the value
  [withArgs('show', ['exact', 'running-config']), 'show running-config', true],
  [withArgs('show', ['exact', 'running-config']), 'show running-config <cr>', true],
  [withArgs('show', ['exact', 'running-config']), 'show running-config brief <cr>', false],
  [withArgs('show', ['exact', 'running-config']), 'show running', false],
  [withArgs('show', ['exact', 'running-config']), 'show', false],
  [withArgs('show', ['exact', 'running-config']), 'show <cr>', false],
  [withArgs('show ip route', ['exact', '10.0.0.0/8']), 'show ip route 10.0.0.0/8 <cr>', true],
  [withArgs('show ip route', ['exact', '10.0.0.0/8']), 'show ip route 10a0b0c0/8 <cr>', false],
  [withArgs('show ip route', ['exact', '10.0.0.0/8']), 'show ip route 10.0.0.0/80 <cr>', false],
  [withArgs('echo', ['exact', 'a\\b']), 'echo a\\b <cr>', true],
  [withArgs('echo', ['exact', 'a\\b']), 'echo ab <cr>', false],
  [withArgs('echo', ['exact', '$HOME [1] {2} ^x? "q"']), 'echo $HOME [1] {2} ^x? "q" <cr>', true],
  [withArgs('echo', ['exact', 'x|y']), 'echo x', false],
  [withArgs('echo', ['exact', 'a b']), 'echo a b <cr>', true],
  // prefix: the arguments start with the value (characters, not words)
  [withArgs('show', ['prefix', 'run']), 'show running-config <cr>', true],
  [withArgs('show', ['prefix', 'run']), 'show run', true],
  [withArgs('show', ['prefix', 'run']), 'show ru', false],
  [withArgs('show', ['prefix', 'run']), 'show <cr>', false],
  [withArgs('show', ['prefix', 'ip.']), 'show ipx', false],
  // regex: the pattern matches the arguments whole, never the <cr>
  [withArgs('vlan', ['regex', '\\d+']), 'vlan 10', true],
  [withArgs('vlan', ['regex', '\\d+']), 'vlan 10 <cr>', true],
  [withArgs('vlan', ['regex', '\\d+']), 'vlan 10a', false],
  [withArgs('vlan', ['regex', '\\d+']), 'vlan', false],
  [withArgs('vlan', ['regex', '\\d+']), 'vlan <cr>', false],
  [withArgs('ping', ['regex', '\\S+']), 'ping 192.0.2.1 <cr>', true],
  [withArgs('ping', ['regex', '\\S+']), 'ping <cr>', false],
  [withArgs('ping', ['regex', '\\S+']), 'ping a b <cr>', false],
  [withArgs('x', ['regex', '\\S+ \\S+']), 'x a <cr>', false],
  [withArgs('x', ['regex', '\\S+ \\S+']), 'x a b <cr>', true],
  [withArgs('interface', ['regex', 'Gi(?:gabitEthernet)?\\d+\\x2f\\d+']), 'interface GigabitEthernet1/0 <cr>', true],
  [withArgs('interface', ['regex', 'Gi(?:gabitEthernet)?\\d+\\x2f\\d+']), 'interface Gi1/0', true],
  [withArgs('interface', ['regex', 'Gi(?:gabitEthernet)?\\d+\\x2f\\d+']), 'interface Te1/0', false],
  [withArgs('shutdown', ['regex', '(?:up|down)']), 'shutdown UP', true],
  // a rule that accepts no arguments makes them optional
  [withArgs('show', ['regex', '[0-9]*']), 'show', true],
  [withArgs('show', ['regex', '[0-9]*']), 'show <cr>', true],
  [withArgs('show', ['regex', '[0-9]*']), 'show 12 <cr>', true],
  [withArgs('show', ['regex', '[0-9]*']), 'show x', false],
  // several rules: any of them
  [withArgs('clear', ['exact', 'counters'], ['regex', 'line \\d+']), 'clear counters <cr>', true],
  [withArgs('clear', ['exact', 'counters'], ['regex', 'line \\d+']), 'clear line 5 <cr>', true],
  [withArgs('clear', ['exact', 'counters'], ['regex', 'line \\d+']), 'clear ip bgp * <cr>', false],
]
