/** Reply attributes: the dictionary route, and every value rule, through the API. */
import { readFileSync } from 'node:fs'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { dictionaryEntries } from '../services/dictionary.js'
import { createProfile, expectError, uniq } from './helpers.js'

type Attr = { name: string; value: string }

describe('radius reply attributes', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp({ plugins: ['inventory', 'radius'] })
  })
  after(async () => t?.stop())

  const post = (attributes: unknown[], lang?: string) =>
    t.admin('POST', '/api/v1/radius/profiles', { body: { name: uniq('attr'), attributes }, headers: lang ? { 'accept-language': lang } : {} })

  describe('GET /api/v1/radius/dictionary', () => {
    it('lists every supported attribute with vendor, type, values, bounds and repetition', async () => {
      const r = await t.admin('GET', '/api/v1/radius/dictionary')
      expect(r.status).to.equal(200)
      const by = new Map<string, any>(r.body.attributes.map((a: { name: string }) => [a.name, a]))
      for (const name of [
        'Service-Type', 'Reply-Message', 'Session-Timeout', 'Idle-Timeout', 'Class', 'Filter-Id', 'Framed-IP-Address', 'Tunnel-Type',
        'Tunnel-Medium-Type', 'Tunnel-Private-Group-Id', 'Cisco-AVPair', 'Juniper-Local-User-Name', 'Aruba-Admin-Role',
        'Fortinet-Group-Name', 'Fortinet-Access-Profile', 'Arista-AVPair', 'HP-Command-String',
      ]) {
        expect(by.has(name), name).to.equal(true)
      }
      expect(by.get('Service-Type')).to.deep.include({ vendor: null, type: 'enum', repeatable: false, min: null, max: null, max_length: null })
      expect(by.get('Service-Type').values).to.include.members(['Login-User', 'Framed-User', 'Administrative-User', 'NAS-Prompt-User', 'Authorize-Only', 'Outbound-User'])
      // A vendor-specific value carries 6 octets fewer than a standard one: the VSA header sits inside the 253.
      expect(by.get('Cisco-AVPair')).to.deep.include({ vendor: 'Cisco', type: 'string', repeatable: true, values: null, max_length: 247, format: 'avpair' })
      expect(by.get('Reply-Message')).to.deep.include({ vendor: null, max_length: 253 })
      for (const a of r.body.attributes) if (a.type === 'string') expect(a.max_length, a.name).to.equal(a.vendor ? 247 : 253)
      expect(by.get('Session-Timeout')).to.deep.include({ type: 'integer', min: 1, max: 4294967295 })
      expect(by.get('Framed-IP-Address')).to.deep.include({ type: 'ipaddr' })
      expect(by.get('Tunnel-Type').values).to.include('VLAN')
      expect(by.get('Tunnel-Medium-Type').values).to.include('IEEE-802')
      expect(by.get('Class')).to.deep.include({ type: 'octets', repeatable: true })
      // Standard attributes first, then vendors A to Z.
      const vendors = r.body.attributes.map((a: { vendor: string | null }) => a.vendor ?? '')
      expect(vendors).to.deep.equal([...vendors].sort())
    })
  })

  it('documents every dictionary entry in docs/radius.md, and nothing else', () => {
    const lines = readFileSync('docs/radius.md', 'utf8').split('\n')
    const start = lines.indexOf('| Name | Vendor | Type | Accepts | Repeatable |') + 2
    const end = lines.indexOf('', start)
    const documented = lines.slice(start, end).map((l) => l.split(' | ')).map(([name, vendor, type]) => `${name.slice(3, -1)} ${vendor} ${type}`)
    expect(start).to.be.greaterThan(1)
    expect(documented).to.deep.equal(dictionaryEntries().map((e) => `${e.name} ${e.vendor ?? '—'} ${e.type}`))
  })

  describe('valid lists', () => {
    it('accepts a repeated Cisco-AVPair, a VLAN assignment and each value type', async () => {
      const attributes: Attr[] = [
        { name: 'Service-Type', value: 'Administrative-User' },
        { name: 'Cisco-AVPair', value: 'shell:priv-lvl=15' },
        { name: 'Cisco-AVPair', value: 'shell:roles="network-admin vdc-admin"' },
        { name: 'Cisco-AVPair', value: 'shell:roles*"network-operator"' },
        { name: 'Tunnel-Type', value: 'VLAN' },
        { name: 'Tunnel-Medium-Type', value: 'IEEE-802' },
        { name: 'Tunnel-Private-Group-Id', value: '100' },
        { name: 'Session-Timeout', value: '4294967295' },
        { name: 'Idle-Timeout', value: '1' },
        { name: 'Framed-IP-Address', value: '192.0.2.10' },
        { name: 'Framed-IPv6-Address', value: '2001:db8::10' },
        { name: 'Class', value: 'ops-team' },
        { name: 'Class', value: '0x6f7073' },
        { name: 'Reply-Message', value: 'Привет, C:\\path and \'quotes\' `ok` $x #y $ {z} $ENV HOME' },
        { name: 'Juniper-Local-User-Name', value: 'super-user-template' },
        { name: 'Juniper-Allow-Commands', value: '^(show|ping) .*$' },
        { name: 'Aruba-Admin-Role', value: 'root' },
        { name: 'Fortinet-Group-Name', value: 'fw-admins' },
        { name: 'Fortinet-Access-Profile', value: 'super_admin' },
        { name: 'Arista-AVPair', value: 'shell:roles=network-admin' },
        { name: 'HP-Command-String', value: 'show;ping' },
        { name: 'HP-Command-Exception', value: 'Permit-List' },
        { name: 'HP-Privilege-Level', value: '15' },
        { name: 'Huawei-Exec-Privilege', value: '0' },
      ]
      expect((await createProfile(t, { attributes })).attributes).to.deep.equal(attributes)
    })

    it('accepts a value of exactly 253 bytes, and a vendor-specific one of exactly 247', async () => {
      await createProfile(t, { attributes: [{ name: 'Reply-Message', value: 'a'.repeat(253) }] })
      await createProfile(t, { attributes: [{ name: 'Cisco-AVPair', value: 'shell:x=' + 'é'.repeat(119) + 'e' }] })
    })
  })

  describe('what fits in a RADIUS packet', () => {
    /** 14 Reply-Messages of 253 bytes and one of 180: 15 headers of 2, 3752 bytes in all, the budget exactly. */
    const full = (extra = 0): Attr[] => [...Array.from({ length: 14 }, (_, i) => ({ name: 'Reply-Message', value: `${i}`.padEnd(253, 'm') })), { name: 'Reply-Message', value: 'z'.repeat(180 + extra) }]

    it('refuses a vendor-specific value over 247 bytes of UTF-8, saying how many bytes over (FreeRADIUS would cut it)', async () => {
      // 253 octets: a standard attribute's limit, cut to 247 by FreeRADIUS inside a Cisco-AVPair.
      const r = await post([{ name: 'Service-Type', value: 'Login-User' }, { name: 'Cisco-AVPair', value: 'shell:x=' + 'a'.repeat(245) }])
      expectError(r, 422, 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[1].value')
      expect(r.body.detail).to.equal('The value of Cisco-AVPair is 253 bytes in UTF-8, 6 bytes over the 247 that Cisco-AVPair carries in a RADIUS packet.')
      // 120 characters, 248 bytes: one é too many, counted in bytes as the wire does.
      const utf8 = await post([{ name: 'Cisco-AVPair', value: 'shell:x=' + 'é'.repeat(120) }], 'ru')
      expectError(utf8, 422, 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value')
      expect(utf8.body.detail).to.equal('Значение Cisco-AVPair занимает 248 байт в UTF-8, на 1 байт больше предела 247, который Cisco-AVPair вмещает в пакете RADIUS.')
      const std = await post([{ name: 'Reply-Message', value: 'я'.repeat(127) }])
      expect(std.body.detail).to.equal('The value of Reply-Message is 254 bytes in UTF-8, 1 byte over the 253 that Reply-Message carries in a RADIUS packet.')
    })

    it('accepts attributes that take exactly the packet budget (3752 bytes with their headers)', async () => {
      expect((await createProfile(t, { attributes: full() })).attributes).to.deep.equal(full())
    })

    it('refuses one byte more with 422 RADIUS_REPLY_TOO_LARGE at attributes, saying how much is over, and changes nothing on update', async () => {
      const r = await post(full(1))
      expectError(r, 422, 'RADIUS_REPLY_TOO_LARGE', 'attributes')
      expect(r.body.detail).to.equal(
        'The attributes take 3753 bytes in a RADIUS reply, 1 byte over the 3752 a 4096-byte packet leaves for a profile beside the header, Message-Authenticator, MS-CHAP2-Success and Proxy-State (from attributes[14] on, the device would not receive them).',
      )
      // Vendor-specific headers count: 50 Cisco-AVPairs of 70 bytes are 50 × 78 = 3900 bytes.
      const many = Array.from({ length: 50 }, (_, i) => ({ name: 'Cisco-AVPair', value: `shell:cmd${String(i).padStart(2, '0')}=${'x'.repeat(58)}` }))
      const big = await post(many, 'ru')
      expectError(big, 422, 'RADIUS_REPLY_TOO_LARGE', 'attributes')
      expect(big.body.detail).to.include('3900 байт').and.include('на 148 байт больше').and.include('attributes[48]')
      const p = await createProfile(t, { attributes: [{ name: 'Service-Type', value: 'Login-User' }] })
      expectError(await t.admin('PUT', `/api/v1/radius/profiles/${p.id}`, { body: { attributes: full(1) } }), 422, 'RADIUS_REPLY_TOO_LARGE', 'attributes')
      expect((await t.admin('GET', `/api/v1/radius/profiles/${p.id}`)).body.attributes).to.deep.equal(p.attributes)
    })
  })

  describe('refusals', () => {
    const cases: [string, Attr[], string, string][] = [
      ['an unknown name', [{ name: 'Service-Type', value: 'Login-User' }, { name: 'Cisco-AV-Pair', value: 'shell:priv-lvl=15' }], 'RADIUS_ATTRIBUTE_UNKNOWN', 'attributes[1].name'],
      ['a name in the wrong case', [{ name: 'cisco-avpair', value: 'shell:priv-lvl=15' }], 'RADIUS_ATTRIBUTE_UNKNOWN', 'attributes[0].name'],
      ['a non-repeatable attribute twice', [{ name: 'Service-Type', value: 'Login-User' }, { name: 'Cisco-AVPair', value: 'a=b' }, { name: 'Service-Type', value: 'Login-User' }], 'RADIUS_ATTRIBUTE_REPEATED', 'attributes[2].name'],
      ['an enum value not in the list', [{ name: 'Service-Type', value: 'Root-User' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['an enum value in the wrong case', [{ name: 'Tunnel-Type', value: 'vlan' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['an enum value given as its number', [{ name: 'Service-Type', value: '6' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['an integer above its range', [{ name: 'Session-Timeout', value: '4294967296' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['an integer below its range', [{ name: 'Session-Timeout', value: '0' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['a privilege level of 16', [{ name: 'HP-Privilege-Level', value: '16' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['a negative integer', [{ name: 'Idle-Timeout', value: '-5' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['an integer with a leading zero', [{ name: 'Idle-Timeout', value: '0300' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['an integer with spaces', [{ name: 'Idle-Timeout', value: ' 300' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['a fractional integer', [{ name: 'Idle-Timeout', value: '1.5' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['a hexadecimal integer', [{ name: 'Idle-Timeout', value: '0x10' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['an IPv4 octet above 255', [{ name: 'Framed-IP-Address', value: '10.0.0.256' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['an IPv4 address with three parts', [{ name: 'Framed-IP-Address', value: '10.0.1' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['a host name for an address', [{ name: 'Framed-IP-Address', value: 'router.example.com' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['an IPv6 address for an IPv4 one', [{ name: 'Framed-IP-Address', value: '2001:db8::1' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['a bad IPv6 address', [{ name: 'Framed-IPv6-Address', value: '2001:db8:::1' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['a line break', [{ name: 'Reply-Message', value: 'hello\nCisco-AVPair = "shell:priv-lvl=15"' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['a tab', [{ name: 'Filter-Id', value: 'acl\t1' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['a NUL byte', [{ name: 'Cisco-AVPair', value: 'shell:priv-lvl=1\u00005' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['DEL', [{ name: 'Reply-Message', value: 'a\u007fb' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['a C1 control character', [{ name: 'Reply-Message', value: 'a\u0085b' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['a lone surrogate', [{ name: 'Reply-Message', value: 'a\ud800b' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      // Direction characters, as names refuse them: `Filter-Id` would read as another ACL on every screen.
      ['a right-to-left override', [{ name: 'Filter-Id', value: 'staff\u202Eloof' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['a direction isolate', [{ name: 'Cisco-AVPair', value: 'shell:roles=\u2067admin\u2069' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['a right-to-left mark', [{ name: 'Reply-Message', value: 'hi\u200F' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['a line separator', [{ name: 'Reply-Message', value: 'a\u2028b' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['a FreeRADIUS expansion', [{ name: 'Reply-Message', value: '%{control:Cleartext-Password}' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['a configuration variable', [{ name: 'Reply-Message', value: 'dir ${confdir}' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['an environment variable', [{ name: 'Cisco-AVPair', value: 'shell:x=$ENV{MASTER_KEY}' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['a bare %', [{ name: 'Reply-Message', value: '100% sure' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['more than 253 bytes of UTF-8', [{ name: 'Reply-Message', value: 'я'.repeat(127) }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['an AV pair without =', [{ name: 'Cisco-AVPair', value: 'priv-lvl 15' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['an AV pair without an attribute', [{ name: 'Arista-AVPair', value: '=network-admin' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['a tag prefix on a tagged attribute', [{ name: 'Tunnel-Private-Group-Id', value: ':1:100' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['bad hex in an octets value', [{ name: 'Class', value: '0x6f7' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['an empty hex value', [{ name: 'Class', value: '0x' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value'],
      ['the first of several problems', [{ name: 'Reply-Message', value: 'ok' }, { name: 'Session-Timeout', value: 'soon' }, { name: 'Nope', value: 'x' }], 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[1].value'],
    ]
    for (const [what, attributes, code, field] of cases) {
      it(`refuses ${what} (422 ${code} at ${field})`, async () => {
        expectError(await post(attributes), 422, code, field)
      })
    }

    it('refuses the same way on update, changing nothing', async () => {
      const p = await createProfile(t, { attributes: [{ name: 'Service-Type', value: 'Login-User' }] })
      expectError(await t.admin('PUT', `/api/v1/radius/profiles/${p.id}`, { body: { attributes: [{ name: 'Session-Timeout', value: '-1' }] } }), 422, 'RADIUS_ATTRIBUTE_VALUE_INVALID', 'attributes[0].value')
      expectError(await t.admin('PUT', `/api/v1/radius/profiles/${p.id}`, { body: { attributes: [{ name: 'Filter-Idd', value: 'x' }] } }), 422, 'RADIUS_ATTRIBUTE_UNKNOWN', 'attributes[0].name')
      expect((await t.admin('GET', `/api/v1/radius/profiles/${p.id}`)).body.attributes).to.deep.equal(p.attributes)
    })

    it('checks attributes before the name, so a bad list never costs a conflict check', async () => {
      const p = await createProfile(t)
      expectError(await t.admin('POST', '/api/v1/radius/profiles', { body: { name: p.name, attributes: [{ name: 'X', value: 'y' }] } }), 422, 'RADIUS_ATTRIBUTE_UNKNOWN')
    })

    it('says what is wrong, in English and Russian', async () => {
      const detail = async (attributes: Attr[], lang?: string) => (await post(attributes, lang)).body.detail as string
      expect(await detail([{ name: 'Cisco-AV-Pair', value: 'a=b' }])).to.equal('Unknown RADIUS attribute "Cisco-AV-Pair". GET /api/v1/radius/dictionary lists the supported ones.')
      expect(await detail([{ name: 'cisco-avpair', value: 'a=b' }])).to.equal('Unknown RADIUS attribute "cisco-avpair". Did you mean "Cisco-AVPair"?')
      expect(await detail([{ name: 'Session-Timeout', value: '0' }])).to.equal('Session-Timeout takes a whole number from 1 to 4294967295.')
      expect(await detail([{ name: 'Termination-Action', value: 'Drop' }])).to.equal('Termination-Action takes one of: Default, RADIUS-Request.')
      expect(await detail([{ name: 'Framed-IP-Address', value: 'x' }])).to.include('IPv4')
      expect(await detail([{ name: 'Reply-Message', value: 'a\rb' }])).to.include('control character')
      expect(await detail([{ name: 'Reply-Message', value: '50%' }])).to.include('"%"')
      expect(await detail([{ name: 'Reply-Message', value: '$ENV{HOME}' }])).to.include('"$ENV{"')
      expect(await detail([{ name: 'Service-Type', value: 'Login-User' }, { name: 'Service-Type', value: 'Login-User' }])).to.equal('Service-Type may appear only once in a profile.')
      expect(await detail([{ name: 'Session-Timeout', value: '0' }], 'ru')).to.equal('Session-Timeout принимает целое число от 1 до 4294967295.')
      expect(await detail([{ name: 'cisco-avpair', value: 'a=b' }], 'ru')).to.equal('Неизвестный атрибут RADIUS «cisco-avpair». Возможно, имелся в виду «Cisco-AVPair»?')
    })
  })
})
