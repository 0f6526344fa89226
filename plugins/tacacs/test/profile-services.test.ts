/**
 * /api/v1/tacacs/profiles, services beyond shell and optional attributes: stored and returned as
 * given (the list replaced whole), rendered as `if (service == "…") { set|add … permit }`, and every
 * bad input answered 422 with nothing changed: shell as a service, a service twice, a reserved or
 * malformed attribute name, a value holding `${`, a pair over the 255 bytes of one TACACS+ argument.
 */
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { createTacacsService } from '../services/tacacs-service.js'
import { createProfile, expectError, uniq } from './helpers.js'

const BASE = '/api/v1/tacacs/profiles'
const JUNOS = { service: 'junos-exec', attributes: [{ name: 'local-user-name', value: 'NOC' }, { name: 'allow-commands', value: '^(show|ping) .*$', optional: true }] }

describe('tacacs profiles API: services and optional attributes', () => {
  let t: TestApp
  before(async () => {
    t = await startTestApp({ plugins: ['inventory', 'tacacs'] })
  })
  after(async () => t?.stop())

  it('defaults to no services; stores services and optional attributes as given; a PUT replaces the list', async () => {
    expect((await createProfile(t)).services).to.deep.equal([])
    const shell = [{ name: 'shell:roles', value: '"network-admin"', optional: true }, { name: 'autocmd', value: 'say "hi" \\ $HOME 100%' }, { name: 'idletime', value: '5', optional: false }]
    const p = await createProfile(t, { shell_attributes: shell, services: [JUNOS, { service: 'ciscowlc', attributes: [] }] })
    expect(p.shell_attributes).to.deep.equal(shell)
    expect(p.services).to.deep.equal([JUNOS, { service: 'ciscowlc', attributes: [] }])
    const r = await t.admin('PUT', `${BASE}/${p.id}`, { body: { services: [{ service: 'fortigate', attributes: [{ name: 'memberof', value: 'noc' }] }] } })
    expect(r.status).to.equal(200)
    expect(r.body.services).to.deep.equal([{ service: 'fortigate', attributes: [{ name: 'memberof', value: 'noc' }] }])
    expect(r.body.shell_attributes).to.deep.equal(shell)
  })

  it('takes a pair of exactly 255 bytes and refuses 256 (422 ATTRIBUTE_TOO_LONG at the value)', async () => {
    const name = 'allow-commands' // 14 bytes + `=` leaves 240 for the value
    const ok = await t.admin('POST', BASE, { body: { name: uniq('p'), services: [{ service: 'junos-exec', attributes: [{ name, value: 'v'.repeat(240) }] }] } })
    expect(ok.status).to.equal(201)
    const over = { name: uniq('p'), services: [{ service: 'junos-exec', attributes: [{ name: 'x', value: 'v' }, { name, value: 'v'.repeat(241) }] }] }
    expectError(await t.admin('POST', BASE, { body: over }), 422, 'ATTRIBUTE_TOO_LONG', 'services[0].attributes[1].value')
    expectError(await t.admin('POST', BASE, { body: { name: uniq('p'), shell_attributes: [{ name: 'a'.repeat(64), value: 'v'.repeat(191) }] } }), 422, 'ATTRIBUTE_TOO_LONG', 'shell_attributes[0].value')
  })

  const cases: [string, Record<string, unknown>, string, string][] = [
    ['shell as a service', { services: [{ service: 'shell', attributes: [] }] }, 'TACACS_SERVICE_SHELL', 'services[0].service'],
    ['a service twice', { services: [JUNOS, { service: 'fortigate', attributes: [] }, { service: 'junos-exec', attributes: [] }] }, 'TACACS_SERVICE_DUPLICATE', 'services[2].service'],
    ['a service name with a space', { services: [{ service: 'junos exec', attributes: [] }] }, 'VALIDATION_FAILED', 'services[0].service'],
    ['a service name with a quote', { services: [{ service: 'a"b', attributes: [] }] }, 'VALIDATION_FAILED', 'services[0].service'],
    ['a service without attributes', { services: [{ service: 'fortigate' }] }, 'FIELD_REQUIRED', 'services[0].attributes'],
    ['11 services', { services: Array.from({ length: 11 }, (_, i) => ({ service: `s${i}`, attributes: [] })) }, 'VALIDATION_FAILED', 'services'],
    ['cmd as a service attribute', { services: [{ service: 'fortigate', attributes: [{ name: 'CMD', value: 'x' }] }] }, 'SHELL_ATTRIBUTE_RESERVED', 'services[0].attributes[0].name'],
    ['a service attribute value with ${', { services: [{ service: 'fortigate', attributes: [{ name: 'memberof', value: 'a${USER}' }] }] }, 'VALIDATION_FAILED', 'services[0].attributes[0].value'],
    ['a service attribute name with =', { services: [{ service: 'fortigate', attributes: [{ name: 'a=b', value: 'x' }] }] }, 'VALIDATION_FAILED', 'services[0].attributes[0].name'],
    ['a service attribute name with *', { services: [{ service: 'fortigate', attributes: [{ name: 'a*b', value: 'x' }] }] }, 'VALIDATION_FAILED', 'services[0].attributes[0].name'],
    ['optional as text', { shell_attributes: [{ name: 'idletime', value: '5', optional: 'yes' }] }, 'VALIDATION_FAILED', 'shell_attributes[0].optional'],
  ]
  for (const [what, body, code, field] of cases) {
    it(`refuses ${what} (422 ${code} at ${field}), changing nothing`, async () => {
      expectError(await t.admin('POST', BASE, { body: { name: uniq('p'), ...body } }), 422, code, field)
      const p = await createProfile(t, { services: [JUNOS] })
      expectError(await t.admin('PUT', `${BASE}/${p.id}`, { body }), 422, code, field)
      expect((await t.admin('GET', `${BASE}/${p.id}`)).body).to.deep.equal(p)
    })
  }

  it('renders each service after the shell block: mandatory `set`, optional `add`, quoted with `%` doubled', async () => {
    const service = createTacacsService(t.app.db)
    const p = await createProfile(t, {
      shell_attributes: [{ name: 'shell:roles', value: '"network-admin"', optional: true }],
      services: [JUNOS, { service: 'PaloAlto', attributes: [{ name: 'PaloAlto-Admin-Role', value: 'ro 100%' }] }],
    })
    const text = await service.renderProfile((await service.getProfile(p.id))!)
    expect(text).to.include('add "shell:roles" = "\\"network-admin\\""')
    expect(text).to.include(
      [
        '        if (service == "junos-exec") {',
        '            set "local-user-name" = "NOC"',
        '            add "allow-commands" = "^(show|ping) .*$"',
        '            permit',
        '        }',
        '        if (service == "PaloAlto") {',
        '            set "PaloAlto-Admin-Role" = "ro 100%%"',
        '            permit',
        '        }',
      ].join('\n'),
    )
  })
})
