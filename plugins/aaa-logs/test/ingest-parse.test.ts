import { expect } from 'chai'
import { FREERADIUS_LINE_TEMPLATES, freeradiusFileKind, freeradiusLogModules, REPLY_NOT_LOGGED } from '../../../sdk/logs/freeradius.js'
import { parseFreeradiusLine } from '../../../sdk/logs/freeradius-parse.js'
import { logFileKind, parseLogLineDetailed } from '../../../sdk/logs/tac-plus-ng.js'
import { parseLine } from '../ingest/records.js'

const TS = '2026-11-21T06:34:11.184829+00:00'
const authz = (user: string) =>
  [TS, 'authorization', 'AUTHZ-PASS', user, 'core1', '10.0.0.1', 'tty1', '192.0.2.9', 'netops', 'admin', 'permit', 'shell', '15', 'show running-config', 'service=shell\\037cmd=show', 'priv-lvl=15', '', '77'].join('\t')

describe('aaa-logs ingest: parsing', () => {
  describe('tac_plus-ng lines', () => {
    it('parses an authorization line into a row', () => {
      const p = parseLine('tacacs_authorization', Buffer.from(authz('alice')))
      expect(p.ok).to.equal(true)
      if (!p.ok) return
      expect(p.row).to.include({ username: 'alice', nas_ip: '10.0.0.1', action: 'permit', priv_lvl: 15, command: 'show running-config', rule_name: 'netops', result_code: 'AUTHZ-PASS' })
      expect(p.row.arguments).to.deep.equal(['service=shell', 'cmd=show'])
    })
    it('keeps a " in a value, unescapes octal escapes and backslashes', () => {
      const p = parseLine('tacacs_authorization', Buffer.from(authz('a"b\\\\c\\011d')))
      expect(p.ok && p.username).to.equal('a"b\\c\td')
    })
    it('refuses truncated lines, wrong field counts, bad timestamps, invalid UTF-8, other kinds', () => {
      const line = authz('bob')
      expect(parseLogLineDetailed(line.slice(0, 40)).ok).to.equal(false)
      expect(parseLine('tacacs_authorization', Buffer.from(line + '\textra')).ok).to.equal(false)
      expect(parseLine('tacacs_authorization', Buffer.from(line.replace(TS, 'yesterday'))).ok).to.equal(false)
      const bad = parseLine('tacacs_authorization', Buffer.concat([Buffer.from(line.slice(0, 60)), Buffer.from([0xff, 0xfe]), Buffer.from(line.slice(60))]))
      expect(bad).to.deep.equal({ ok: false, reason: 'invalid UTF-8' })
      expect(parseLine('tacacs_accounting', Buffer.from(line)).ok).to.equal(false)
      expect(parseLogLineDetailed('').ok).to.equal(false)
    })
    it('keeps the daemon\'s own code and sentence for a failed login (AUTHC-FAIL-NOUSER: not a network user)', () => {
      // As tac_plus-ng writes it (plugins/tacacs/test/e2e/chap.test.ts checks the daemon's msgid and hint).
      const line = [TS, 'authentication', 'AUTHC-FAIL-NOUSER', 'mallory', 'core1', '10.0.0.1', 'tty1', '192.0.2.9', '', '', 'deny', 'ascii', 'login', 'login', 'failed (no such user)', '77'].join('\t')
      const p = parseLine('tacacs_authentication', Buffer.from(line))
      expect(p.ok && p.row).to.include({ status: 'failure', result_code: 'AUTHC-FAIL-NOUSER', message: 'failed (no such user)', nas_ip: '10.0.0.1', device_name: 'core1', client_address: '192.0.2.9' })
    })
    it('names files by kind', () => {
      expect(logFileKind('authentication-2026-11-21.log')).to.equal('authentication')
      expect(logFileKind('authentication-2026-11-21.log.1')).to.equal(null)
    })
  })

  describe('FreeRADIUS lines', () => {
    const auth = (user: string, extra = '') =>
      `{"v":1,"kind":"auth","ts":"1763706851","us":"123456","result":"accept","request":{"User-Name":"${user}","NAS-IP-Address":"10.1.1.1","Calling-Station-Id":"aa-bb-cc-dd-ee-ff","NAS-Port":"7"${extra}},"control":{"Auth-Type":"MS-CHAP","Tmp-String-0":"corp-wifi","Tmp-String-1":"Corporate"},"reply":{"Tunnel-Private-Group-Id":"100","Session-Timeout":"3600"}}`
    it('parses an accept', () => {
      const r = parseFreeradiusLine(auth('alice'))
      expect(r.kind).to.equal('auth')
      if (r.kind !== 'auth') return
      expect(r.event).to.include({ username: 'alice', nasIp: '10.1.1.1', authType: 'MS-CHAPv2', result: 'accept', ruleName: 'corp-wifi', ruleLabel: 'Corporate', nasPort: '7' })
      expect(r.event.timestamp).to.equal('2025-11-21T06:34:11.123Z')
      expect(r.event.replyAttributes).to.deep.equal([
        { name: 'Tunnel-Private-Group-Id', value: '100' },
        { name: 'Session-Timeout', value: '3600' },
      ])
    })
    it('undoes the double escaping of " and \\', () => {
      const r = parseFreeradiusLine(auth('a\\\\\\"b'))
      expect(r.kind === 'auth' && r.event.username).to.equal('a"b')
      const r2 = parseFreeradiusLine(auth('CORP\\\\\\\\bob'))
      expect(r2.kind === 'auth' && r2.event.username).to.equal('CORP\\bob')
    })
    it('parses accounting with counters', () => {
      const r = parseFreeradiusLine(
        '{"v":1,"kind":"acct","ts":"1763706851","us":"0","request":{"User-Name":"bob","Packet-Src-IP-Address":"10.2.2.2","Acct-Status-Type":"Stop","Acct-Session-Id":"S1","Framed-IP-Address":"172.16.0.5","Acct-Session-Time":"60","Acct-Input-Octets":"1000","Acct-Output-Octets":2000}}',
      )
      expect(r.kind).to.equal('acct')
      if (r.kind !== 'acct') return
      expect(r.event).to.include({ username: 'bob', nasIp: '10.2.2.2', acctStatusType: 'Stop', acctSessionId: 'S1', framedIp: '172.16.0.5', sessionTime: 60, inputOctets: '1000', outputOctets: '2000' })
    })
    it('reads the NAC profiling fields: the port, its type, and each Cisco-AVPair byte for byte from hex', () => {
      const tlv = Buffer.concat([Buffer.from('dhcp-option='), Buffer.from([0, 60, 0, 8]), Buffer.from('MSFT 5.0')]).toString('hex')
      const ua = Buffer.from('http-tlv=Mozilla/5.0 (Linux; Android 14) — é').toString('hex')
      const line = `{"v":1,"kind":"acct","ts":"1763706851","us":"0","src":"10.2.2.2","request":{"User-Name":"bob","Acct-Status-Type":"Start"},"profiling":{"NAS-Port-Id":"Gi1\\\/0\\\/7","NAS-Port-Type":"Ethernet"},"sensor":["${tlv}","${ua}","","zz","abc"]}`
      const r = parseFreeradiusLine(line)
      expect(r.kind).to.equal('acct')
      if (r.kind !== 'acct') return
      expect(r.event).to.include({ nasPortId: 'Gi1/0/7', nasPortType: 'Ethernet', profilingTruncated: false })
      // Empty and malformed entries are skipped; bytes come one character each.
      expect(r.event.ciscoAvPairs).to.deep.equal([Buffer.from(tlv, 'hex').toString('latin1'), Buffer.from(ua, 'hex').toString('latin1')])
      expect(r.event.ciscoAvPairs[0].slice(12, 16)).to.equal('\u0000<\u0000\u0008')
      // Older lines: no fields, nothing invented.
      const old = parseFreeradiusLine('{"v":1,"kind":"acct","ts":"1763706851","us":"0","request":{"User-Name":"bob","Acct-Status-Type":"Start"}}')
      expect(old.kind === 'acct' && old.event).to.include({ nasPortId: null, nasPortType: null })
      expect(old.kind === 'acct' && old.event.ciscoAvPairs).to.deep.equal([])
      // A profiling field FreeRADIUS cut: dropped, the line kept.
      const cut = parseFreeradiusLine('{"v":1,"kind":"acct","ts":"1763706851","us":"0","request":{"User-Name":"bob","Acct-Status-Type":"Start"},"profiling":{"NAS-Port-Id":"Gi1/0/')
      expect(cut.kind === 'acct' && cut.event).to.include({ username: 'bob', nasPortId: null, profilingTruncated: true })
    })
    it('returns a reason for hostile lines, never throws', () => {
      const cases: (string | Buffer)[] = [
        auth('alice').slice(0, 80),
        '',
        'garbage',
        '[1,2]',
        '{"v":2}',
        '{"v":1,"kind":"auth","ts":"x","request":{}}',
        '{"v":1,"kind":"auth","ts":"1","request":{},"result":"maybe"}',
        '{"v":1,"kind":"acct","ts":"1","request":{}}',
        Buffer.concat([Buffer.from(auth('x').slice(0, 50)), Buffer.from([0xc3, 0x28]), Buffer.from(auth('x').slice(50))]),
        auth('a"b'),
      ]
      for (const c of cases) {
        const r = parseFreeradiusLine(c)
        expect(r.kind, String(c)).to.equal('error')
        if (r.kind === 'error') expect(r.reason).to.be.a('string').and.not.equal('')
      }
      expect(parseFreeradiusLine(auth('alice').slice(0, 80))).to.deep.equal({ kind: 'error', reason: 'truncated JSON (no closing brace)' })
    })
    it('reads lines captured from FreeRADIUS 3.2.1 running the exported linelog modules', () => {
      // accept (PAP), accept (MS-CHAP), reject of CORP\\bob, reject of a"b, accounting Stop
      const captured = [
        "{\"v\":1,\"kind\":\"auth\",\"ts\":\"1795244302\",\"us\":\"349838\",\"result\":\"accept\",\"request\":{\"User-Name\":\"alice\",\"NAS-IP-Address\":\"127.0.0.1\",\"NAS-Port\":\"0\"},\"control\":{\"Auth-Type\":\"PAP\",\"Tmp-String-0\":\"corp-rule\",\"Tmp-String-1\":\"Corp \\\\\\\"label\\\\\\\"\"},\"reply\":{\"Tunnel-Private-Group-Id\":\"100\",\"Session-Timeout\":\"3600\"}}",
        "{\"v\":1,\"kind\":\"auth\",\"ts\":\"1795244303\",\"us\":\"403627\",\"result\":\"accept\",\"request\":{\"User-Name\":\"alice\",\"NAS-IP-Address\":\"127.0.0.1\",\"NAS-Port\":\"0\"},\"control\":{\"Auth-Type\":\"mschap\",\"Tmp-String-0\":\"corp-rule\",\"Tmp-String-1\":\"Corp \\\\\\\"label\\\\\\\"\"},\"reply\":{\"Tunnel-Private-Group-Id\":\"100\",\"Session-Timeout\":\"3600\"}}",
        "{\"v\":1,\"kind\":\"auth\",\"ts\":\"1795244307\",\"us\":\"858074\",\"result\":\"reject\",\"request\":{\"User-Name\":\"CORP\\\\\\\\bob\",\"NAS-IP-Address\":\"127.0.0.1\",\"Module-Failure-Message\":\"No Auth-Type found: rejecting the user via Post-Auth-Type = Reject\"},\"control\":{},\"reply\":{}}",
        "{\"v\":1,\"kind\":\"auth\",\"ts\":\"1795244308\",\"us\":\"874538\",\"result\":\"reject\",\"request\":{\"User-Name\":\"a\\\\\\\"b\",\"NAS-IP-Address\":\"127.0.0.1\",\"Module-Failure-Message\":\"No Auth-Type found: rejecting the user via Post-Auth-Type = Reject\"},\"control\":{},\"reply\":{}}",
        "{\"v\":1,\"kind\":\"acct\",\"ts\":\"1795244303\",\"us\":\"418401\",\"request\":{\"User-Name\":\"bob\",\"NAS-IP-Address\":\"10.2.2.2\",\"Acct-Status-Type\":\"Stop\",\"Acct-Session-Id\":\"S1\",\"Framed-IP-Address\":\"172.16.0.5\",\"Acct-Session-Time\":\"60\",\"Acct-Input-Octets\":\"1000\",\"Acct-Output-Octets\":\"2000\"}}"
      ]
      const [pap, mschap, domain, quote, acct] = captured.map((l) => parseFreeradiusLine(l))
      expect(pap.kind === 'auth' && pap.event).to.include({ username: 'alice', authType: 'PAP', result: 'accept', ruleName: 'corp-rule', ruleLabel: 'Corp "label"', nasIp: '127.0.0.1' })
      expect(mschap.kind === 'auth' && mschap.event.authType).to.equal('MS-CHAPv2')
      expect(domain.kind === 'auth' && domain.event).to.include({ username: 'CORP\\bob', result: 'reject' })
      expect(quote.kind === 'auth' && quote.event.username).to.equal('a"b')
      expect(acct.kind === 'acct' && acct.event).to.include({ acctStatusType: 'Stop', sessionTime: 60, framedIp: '172.16.0.5' })
    })
    it('exports templates with explicit request and control lists, every reply attribute but proofs and keys, no secrets', () => {
      for (const t of Object.values(FREERADIUS_LINE_TEMPLATES)) {
        const [head, replies = ''] = t.split('"replies":')
        expect(head).to.not.match(/Password|MS-MPPE|\[\*\]|State|Message-Authenticator/)
        expect(t).to.not.match(/Password/)
        expect(t).to.include('%{json_encode:&request:User-Name').and.include('"src":"%{%{Packet-Src-IP-Address}:-%{Packet-Src-IPv6-Address}}","client":"%{client:shortname}"')
        if (t === FREERADIUS_LINE_TEMPLATES.accept) {
          expect(replies).to.match(/^%\{portcullis_list_encode:&reply:\[\*\] /)
          for (const n of REPLY_NOT_LOGGED) expect(replies).to.include(`!&reply:${n}`)
        } else expect(replies).to.not.include('reply')
      }
      expect(FREERADIUS_LINE_TEMPLATES.acct).to.include('&request:Acct-Input-Gigawords &request:Acct-Output-Gigawords')
      expect(freeradiusLogModules('/var/log/pc')).to.include('/var/log/pc/radius-auth-%Y-%m-%d.jsonl')
      expect(freeradiusFileKind('radius-acct-2026-11-21.jsonl')).to.equal('acct')
    })
    it('reads the verified client, the claimed NAS-IP-Address, every reply attribute in order and the reject reason', () => {
      // As FreeRADIUS 3.2.1 writes them (plugins/aaa-logs/test/ingest-radius-e2e.test.ts runs the daemon).
      const accept =
        '{"v":1,"kind":"auth","ts":"1795466221","us":"120232","src":"127.0.0.1","client":"sw1","result":"accept","request":{"User-Name":"alice","NAS-IP-Address":"10.66.66.66","NAS-Identifier":"core-9"},"control":{"Auth-Type":"PAP","Tmp-String-0":"admins-core","Tmp-String-1":"admin"},"replies":[{"name":"Service-Type","type":"integer","value":"Administrative-User"},{"name":"Cisco-AVPair","type":"string","value":"shell:priv-lvl=15"},{"name":"Reply-Message","type":"string","value":"say \\\\\\"hi\\\\\\""},{"name":"Cisco-AVPair","type":"string","value":"shell:roles=x"}]}'
      const p = parseLine('radius_authentication', Buffer.from(accept))
      expect(p.ok && p.row).to.include({ nas_ip: '127.0.0.1', device_name: 'sw1', nas_ip_address: '10.66.66.66', nas_identifier: 'core-9', status: 'accept', reject_reason: null })
      expect(p.ok && p.row.reply_attributes).to.deep.equal([
        { name: 'Service-Type', value: 'Administrative-User' },
        { name: 'Cisco-AVPair', value: 'shell:priv-lvl=15' },
        { name: 'Reply-Message', value: 'say "hi"' },
        { name: 'Cisco-AVPair', value: 'shell:roles=x' },
      ])
      const reject = '{"v":1,"kind":"auth","ts":"1795466221","us":"0","src":"::1","client":"sw1","result":"reject","request":{"User-Name":"mallory"},"control":{"Auth-Type":"MS-CHAPv1","Tmp-String-2":"unknown_user"},"replies":[]}'
      expect(parseLine('radius_authentication', Buffer.from(reject))).to.deep.include({ ok: true })
      const r = parseLine('radius_authentication', Buffer.from(reject))
      expect(r.ok && r.row).to.include({ nas_ip: '::1', auth_type: 'MS-CHAPv1', reject_reason: 'unknown_user', nas_ip_address: null })
      // A code the platform does not know (a hand-edited tree) is not stored as one.
      const odd = parseLine('radius_authentication', Buffer.from(reject.replace('unknown_user', 'because')))
      expect(odd.ok && odd.row.reject_reason).to.equal(null)
    })
    it('reads 802.1X and MAB lines as FreeRADIUS 3.2.1 writes them: method, user, MAC, port, VLAN, ACL, the NAC rule', () => {
      // Captured from plugins/radius/test/e2e-nac.test.ts (PEAP accept, EAP-TLS accept, MAB reject, a TLS failure).
      const peap =
        '{"v":1,"kind":"auth","ts":"1795779287","us":"220447","src":"127.0.0.1","client":"sw1","result":"accept","request":{"User-Name":"anonymous","NAS-IP-Address":"127.0.0.1","Calling-Station-Id":"00-11-22-33-44-77","EAP-Type":"PEAP","NAS-Port-Type":"Ethernet","Service-Type":"Framed-User"},"control":{"Auth-Type":"eap","Tmp-String-0":"staff-peap","Tmp-String-1":"staff-vlan","Portcullis-NAC-Method":"peap","Portcullis-NAC-User":"alice"},"replies":[{"name":"User-Name","type":"string","value":"anonymous"},{"name":"Tunnel-Type","type":"integer","value":"VLAN"},{"name":"Tunnel-Medium-Type","type":"integer","value":"IEEE-802"},{"name":"Tunnel-Private-Group-Id","type":"string","value":"10"}]}'
      const tls =
        '{"v":1,"kind":"auth","ts":"1795779382","us":"102364","src":"127.0.0.1","client":"sw1","result":"accept","request":{"User-Name":"alice","Calling-Station-Id":"00-11-22-33-44-78","EAP-Type":"TLS","NAS-Port-Type":"Wireless-802.11","NAS-Port-Id":"wlan0"},"control":{"Auth-Type":"eap","Tmp-String-0":"certs","Tmp-String-1":"cert-vlan","Portcullis-NAC-Method":"eap-tls","Portcullis-NAC-User":"alice"},"replies":[{"name":"Tunnel-Private-Group-Id","type":"string","value":"20"},{"name":"Filter-Id","type":"string","value":"corp-acl"}]}'
      const mab =
        '{"v":1,"kind":"auth","ts":"1795779235","us":"045758","src":"127.0.0.1","client":"sw1","result":"reject","request":{"User-Name":"001122334466","Calling-Station-Id":"00:11:22:33:44:66","Module-Failure-Message":"NAC rule blocked-type denies access","NAS-Port-Type":"Ethernet","NAS-Port-Id":"Gi1/0/7","Service-Type":"Call-Check"},"control":{"Auth-Type":"Accept","Tmp-String-0":"blocked-type","Tmp-String-1":"deny","Tmp-String-2":"nac_denied","Portcullis-NAC-Method":"mab"},"replies":[]}'
      const failed =
        '{"v":1,"kind":"auth","ts":"1795779336","us":"312346","src":"127.0.0.1","client":"sw1","result":"reject","request":{"User-Name":"alice","Calling-Station-Id":"00-11-22-33-44-78","Module-Failure-Message":"eap_tls: (TLS) OpenSSL says error 23 : certificate revoked","EAP-Type":"TLS"},"control":{"Auth-Type":"eap","Tmp-String-2":"eap_failed","Portcullis-NAC-Method":"eap-tls"},"replies":[]}'
      const [a, b, c, d] = [peap, tls, mab, failed].map((l) => parseFreeradiusLine(l))
      expect(a.kind === 'auth' && a.event).to.include({ username: 'anonymous', nacMethod: 'peap', nacUser: 'alice', eapType: 'PEAP', callingStationId: '00-11-22-33-44-77', nasPortType: 'Ethernet', vlan: '10', filterId: null, ruleName: 'staff-peap', ruleLabel: 'staff-vlan', authType: null })
      expect(b.kind === 'auth' && b.event).to.include({ nacMethod: 'eap-tls', nasPortId: 'wlan0', vlan: '20', filterId: 'corp-acl', ruleName: 'certs' })
      expect(c.kind === 'auth' && c.event).to.include({ result: 'reject', nacMethod: 'mab', rejectReason: 'nac_denied', ruleName: 'blocked-type', vlan: null, nasPortId: 'Gi1/0/7' })
      expect(d.kind === 'auth' && d.event).to.include({ nacMethod: 'eap-tls', rejectReason: 'eap_failed', nacUser: null })
      // Device administration and older lines: no NAC fields; an unknown method is not taken for one.
      const odd = parseFreeradiusLine(mab.replace('"Portcullis-NAC-Method":"mab"', '"Portcullis-NAC-Method":"radius-magic"'))
      expect(odd.kind === 'auth' && odd.event.nacMethod).to.equal(null)
      const admin = parseFreeradiusLine('{"v":1,"kind":"auth","ts":"1795466221","us":"0","src":"127.0.0.1","client":"sw1","result":"accept","request":{"User-Name":"alice"},"control":{"Auth-Type":"PAP","Tmp-String-0":"r"},"replies":[]}')
      expect(admin.kind === 'auth' && admin.event).to.include({ nacMethod: null, eapType: null, vlan: null, authType: 'PAP' })
    })
    it('a reply list FreeRADIUS cut (2,047 bytes per expansion): the whole attributes before the cut, marked', () => {
      const head = '{"v":1,"kind":"auth","ts":"1795466221","us":"0","src":"127.0.0.1","client":"sw1","result":"accept","request":{"User-Name":"maxi"},"control":{"Auth-Type":"PAP","Tmp-String-0":"r"}'
      const cut = head + ',"replies":[{"name":"Reply-Message","type":"string","value":"a } ] {\\\\\\"x"},{"name":"Class","type":"octets","value":"0x01"},{"name":"Reply-Message","type":"string","value":"m16....}'
      const p = parseLine('radius_authentication', Buffer.from(cut))
      expect(p.ok && p.row).to.include({ status: 'accept', rule_name: 'r', reply_attributes_truncated: true })
      expect(p.ok && p.row.reply_attributes).to.deep.equal([
        { name: 'Reply-Message', value: 'a } ] {"x' },
        { name: 'Class', value: '0x01' },
      ])
      const whole = parseLine('radius_authentication', Buffer.from(head + ',"replies":[{"name":"Class","type":"octets","value":"0x01"}]}'))
      expect(whole.ok && whole.row.reply_attributes_truncated).to.equal(false)
    })
    it('folds the Gigawords into 64-bit octet counts; a total past a bigint is null, never an error', () => {
      const acct = (extra: string) =>
        `{"v":1,"kind":"acct","ts":"1795466236","us":"0","src":"127.0.0.1","client":"sw1","request":{"User-Name":"alice","Acct-Status-Type":"Stop","Acct-Input-Octets":"5","Acct-Output-Octets":"4294967295"${extra}}}`
      const big = parseLine('radius_accounting', Buffer.from(acct(',"Acct-Input-Gigawords":"3","Acct-Output-Gigawords":"4294967295"')))
      expect(big.ok && big.row).to.include({ input_octets: String(3 * 2 ** 32 + 5), nas_ip: '127.0.0.1', device_name: 'sw1' })
      expect(big.ok && big.row.output_octets).to.equal(null) // (2^32 − 1) × 2^32 + 2^32 − 1 = 2^64 − 1
      const mid = parseLine('radius_accounting', Buffer.from(acct(',"Acct-Output-Gigawords":"2147483647"')))
      expect(mid.ok && mid.row.output_octets).to.equal(((2n ** 31n - 1n) * 2n ** 32n + 4294967295n).toString())
      const none = parseLine('radius_accounting', Buffer.from(acct('')))
      expect(none.ok && none.row).to.include({ input_octets: '5', output_octets: '4294967295' })
    })
    it('maps to radius rows', () => {
      const p = parseLine('radius_authentication', Buffer.from(auth('alice')))
      expect(p.ok && p.row).to.include({ status: 'accept', auth_type: 'MS-CHAPv2', rule_label: 'Corporate', calling_station_id: 'aa-bb-cc-dd-ee-ff' })
      expect(parseLine('radius_accounting', Buffer.from(auth('alice'))).ok).to.equal(false)
    })
  })
})
