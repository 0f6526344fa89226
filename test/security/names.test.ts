/**
 * Names people read (lists, the audit trail, logs) and that renderers write
 * into daemon configuration refuse what forges a line or disguises text:
 * control characters, line breaks and bidirectional controls answer 422
 * naming the field, and nothing is created. Names that allow Unicode accept
 * letters of any script; names that land unquoted in daemon files stay ASCII.
 * Descriptions may span lines (tab and line feed) but refuse the other
 * control characters and the bidirectional overrides and isolates.
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp, testEngines } from '../kit/app.js'

const uniq = (p: string) => `${p}-${randomUUID().slice(0, 8)}`
let net = 0
const freshNet = () => `10.${200 + Math.floor(++net / 256)}.${net % 256}.0/24`

/** The four the brief of issue 10 names, and the other line breaks and direction marks a name refuses. */
const HOSTILE_IN_NAMES = ['\n', '\u0007', '\u202E', '\u2066', '\r', '\u0085', '\u2028', '\u2029', '\u007F', '\u200F', '\u061C', '\u202A', '\u2069', '\u0000']
/** A description may hold tab and line feed; these it refuses. */
const HOSTILE_IN_TEXT = ['\u0007', '\u202E', '\u2066', '\r', '\u0000', '\u001B', '\u007F', '\u0085', '\u202D', '\u2068']

interface Resource {
  what: string
  path: string
  /** A valid create body; `name` is the value under test for `nameField`. */
  body: (t: TestApp, name: string) => Promise<Record<string, unknown>>
  nameField: string
  /** Whether the name field accepts letters beyond ASCII. */
  unicodeName: boolean
  /** Further one-line labels (Unicode allowed). */
  labels?: string[]
  descriptionField?: string
}

const RESOURCES: Resource[] = [
  { what: 'user (username)', path: '/api/v1/users', nameField: 'username', unicodeName: false, labels: ['display_name'], body: async (_t, name) => ({ username: name }) },
  { what: 'user group', path: '/api/v1/user-groups', nameField: 'name', unicodeName: true, descriptionField: 'description', body: async (_t, name) => ({ name }) },
  { what: 'role', path: '/api/v1/roles', nameField: 'name', unicodeName: true, descriptionField: 'description', body: async (_t, name) => ({ name, permissions: [] }) },
  { what: 'device', path: '/api/v1/devices', nameField: 'name', unicodeName: false, labels: ['vendor', 'model'], descriptionField: 'description', body: async (_t, name) => ({ name, address: freshNet() }) },
  { what: 'device group', path: '/api/v1/device-groups', nameField: 'name', unicodeName: false, descriptionField: 'description', body: async (_t, name) => ({ name }) },
  { what: 'TACACS+ command set', path: '/api/v1/tacacs/command-sets', nameField: 'name', unicodeName: false, descriptionField: 'description', body: async (_t, name) => ({ name, commands: [] }) },
  { what: 'TACACS+ profile', path: '/api/v1/tacacs/profiles', nameField: 'name', unicodeName: false, descriptionField: 'description', body: async (_t, name) => ({ name }) },
  { what: 'RADIUS profile', path: '/api/v1/radius/profiles', nameField: 'name', unicodeName: false, descriptionField: 'description', body: async (_t, name) => ({ name }) },
  {
    what: 'AAA policy rule',
    path: '/api/v1/aaa/policy/rules',
    nameField: 'name',
    unicodeName: false,
    descriptionField: 'description',
    body: async (t, name) => {
      const group = (await t.admin('POST', '/api/v1/user-groups', { body: { name: uniq('rule-who') } })).body
      const where = (await t.admin('POST', '/api/v1/device-groups', { body: { name: uniq('rule-where') } })).body
      return { name, who: { group_id: group.id }, where: { device_group_id: where.id } }
    },
  },
  { what: 'log exclusion rule', path: '/api/v1/log-exclusions', nameField: 'name', unicodeName: true, descriptionField: 'description', body: async (_t, name) => ({ name, match_type: 'username', match_value: 'nms-poller' }) },
]

async function count(t: TestApp, path: string): Promise<number> {
  const r = await t.admin('GET', path)
  expect(r.status, r.text).to.equal(200)
  return Array.isArray(r.body) ? r.body.length : (r.body.total as number)
}

function expect422(r: { status: number; body: any; text: string }, field: string, what: string) {
  expect(r.status, `${what}: ${r.text}`).to.equal(422)
  expect(r.body.field, what).to.equal(field)
  expect(r.body.code, what).to.be.oneOf(['VALIDATION_FAILED', 'FIELD_REQUIRED'])
  expect(r.body.detail, what).to.be.a('string').and.not.equal('')
}

const show = (s: string) => JSON.stringify(s)

for (const engine of testEngines()) {
  describe(`names and text refuse control and direction characters (${engine})`, function () {
    this.timeout(60_000)
    let t: TestApp
    before(async () => {
      t = await startTestApp({ engine, plugins: ['inventory', 'tacacs', 'radius', 'aaa-policy', 'aaa-logs'] })
    })
    after(async () => t?.stop())

    for (const r of RESOURCES) {
      describe(r.what, () => {
        it(`refuses ${r.nameField} with a line break, a control character or a direction control, creating nothing`, async () => {
          const before = await count(t, r.path)
          for (const bad of HOSTILE_IN_NAMES) {
            for (const name of [`core${bad}sw`, `${bad}core`, `core${bad}`]) {
              const res = await t.admin('POST', r.path, { body: await r.body(t, name) })
              expect422(res, r.nameField, `${r.what} ${r.nameField}=${show(name)}`)
            }
          }
          expect(await count(t, r.path)).to.equal(before)
        })

        for (const label of r.labels ?? []) {
          it(`refuses ${label} with a line break, a control character or a direction control, creating nothing`, async () => {
            const before = await count(t, r.path)
            for (const bad of HOSTILE_IN_NAMES) {
              const res = await t.admin('POST', r.path, { body: { ...(await r.body(t, uniq('ok'))), [label]: `Zürich${bad}core` } })
              expect422(res, label, `${r.what} ${label}=${show(bad)}`)
            }
            expect(await count(t, r.path)).to.equal(before)
            const ok = await t.admin('POST', r.path, { body: { ...(await r.body(t, uniq('ok'))), [label]: 'Zürich-core Москва' } })
            expect(ok.status, ok.text).to.equal(201)
            expect(ok.body[label]).to.equal('Zürich-core Москва')
          })
        }

        if (r.descriptionField) {
          const field = r.descriptionField
          it(`refuses ${field} with control characters other than tab and line feed, or with direction overrides`, async () => {
            const before = await count(t, r.path)
            for (const bad of HOSTILE_IN_TEXT) {
              const res = await t.admin('POST', r.path, { body: { ...(await r.body(t, uniq('ok'))), [field]: `first line${bad}second` } })
              expect422(res, field, `${r.what} ${field} with ${show(bad)}`)
            }
            expect(await count(t, r.path)).to.equal(before)
          })

          it(`accepts a multi-line ${field} with tabs, other scripts and right-to-left marks`, async () => {
            const text = 'Core switches in Zürich\n\tМосква: резерв\nשלום\u200F (RTL)'
            const res = await t.admin('POST', r.path, { body: { ...(await r.body(t, uniq('ok'))), [field]: text } })
            expect(res.status, res.text).to.equal(201)
            expect(res.body[field]).to.equal(text)
          })
        }

        if (r.unicodeName) {
          it(`accepts ${r.nameField} in any script`, async () => {
            for (const name of ['Zürich-core', 'Москва', '東京 NOC', 'Ελλάδα']) {
              const unique = `${name} ${randomUUID().slice(0, 4)}`
              const res = await t.admin('POST', r.path, { body: await r.body(t, unique) })
              expect(res.status, `${show(unique)}: ${res.text}`).to.equal(201)
              expect(res.body[r.nameField]).to.equal(unique)
            }
          })
        } else {
          it(`keeps ${r.nameField} to the ASCII alphabet it lands in daemon files with`, async () => {
            const res = await t.admin('POST', r.path, { body: await r.body(t, 'Zürich-core') })
            expect422(res, r.nameField, `${r.what} Zürich-core`)
          })
        }
      })
    }

    it('applies the same rule to a rename (PUT)', async () => {
      const g = (await t.admin('POST', '/api/v1/user-groups', { body: { name: uniq('NOC') } })).body
      for (const bad of ['\n', '\u0007', '\u202E', '\u2066']) {
        expect422(await t.admin('PUT', `/api/v1/user-groups/${g.id}`, { body: { name: `NOC${bad}evil` } }), 'name', `rename ${show(bad)}`)
      }
      expect((await t.admin('GET', `/api/v1/user-groups/${g.id}`)).body.name).to.equal(g.name)
    })

    it('says what is refused, in the caller language', async () => {
      const en = await t.admin('POST', '/api/v1/user-groups', { body: { name: 'a\u202Eb' } })
      expect(en.body.detail).to.match(/control characters/)
      const ru = await t.admin('POST', '/api/v1/user-groups', { body: { name: 'a\u202Eb' }, headers: { 'accept-language': 'ru' } })
      expect(ru.body.detail).to.match(/управляющие символы/)
      const text = await t.admin('POST', '/api/v1/user-groups', { body: { name: uniq('g'), description: 'a\u0007b' } })
      expect(text.body.detail).to.match(/tab and line feed are allowed/)
    })

    it('documents the character rules in the OpenAPI schema', async () => {
      const { NAME_PATTERN, TEXT_PATTERN } = await import('../../sdk/index.js')
      const doc = await import('../../kernel/http/openapi.js')
      const spec = doc.buildOpenApi(t.app.registry.routes, { version: t.app.version }) as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } }
      const s = spec.components.schemas
      expect(JSON.stringify(s.UserGroupCreate.properties.name)).to.contain(JSON.stringify(NAME_PATTERN).slice(1, -1))
      expect(JSON.stringify(s.UserGroupCreate.properties.description)).to.contain(JSON.stringify(TEXT_PATTERN).slice(1, -1))
      expect(JSON.stringify(s.UserCreate.properties.display_name)).to.contain(JSON.stringify(NAME_PATTERN).slice(1, -1))
    })
  })
}
