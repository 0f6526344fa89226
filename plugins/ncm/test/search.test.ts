/**
 * GET /ncm/search over the latest configurations: contains and whole-line matches, case, groups with
 * their descendants, at most 5 lines a device with the count of all, masked text only, a new version
 * replacing the lines searched. The answers are compared with fixed JSON (device ids read as names),
 * so each engine's run checks the same answer: parity. One small fixture of 5 devices.
 */
import { expect } from 'chai'
import { startTestApp, testEngines, type TestApp } from '../../../test/kit/app.js'
import { expectError } from '../../../test/kit/expect.js'
import { enrollCollector, trackDevice, type TestCollector } from '../../../test/kit/ncm-collector.js'
import { putVersion } from './read-side-kit.js'

const KEY = 'Tac-Search-Key-55'
const TEXTS: Record<string, string> = {
  'sw-a': `hostname sw-a\nip http server\ninterface Gi0/1\n description 50% of uplink\n!\ntacacs-server key ${KEY}\nend\n`,
  'sw-b': 'hostname sw-b\nno ip http server\ninterface Gi0/1\n ip http server\n!\nend\n',
  'sw-c': 'hostname sw-c\nIP HTTP SERVER\n' + Array.from({ length: 7 }, (_, i) => `interface Gi0/${i}\n description to HTTP server ${i}`).join('\n') + '\nend\n',
  'sw-d': 'hostname sw-d\nno ip http server\nend\n',
  'sw-e': 'hostname sw-e\nip ssh version 2\nend\n',
}

for (const engine of testEngines()) {
  describe(`ncm read side: search (${engine})`, function () {
    this.timeout(120_000)
    let t: TestApp
    let col: TestCollector
    let readOnly: string
    const ids: Record<string, string> = {}
    const groups: Record<string, string> = {}
    /** The answer with device ids read as names, version ids as "latest" checks. */
    const search = async (q: string) => {
      const r = await t.req('GET', `/api/v1/ncm/search?${q}`, { token: readOnly })
      expect(r.status, r.text).to.equal(200)
      const names = Object.fromEntries(Object.entries(ids).map(([n, id]) => [id, n]))
      return {
        ...r.body,
        items: r.body.items.map((i: any) => {
          expect(i.device_name).to.equal(names[i.device_id])
          return { device: names[i.device_id], match_count: i.match_count, lines: i.lines.map((l: any) => `${l.n}:${l.line}`) }
        }),
      }
    }

    before(async () => {
      t = await startTestApp({ engine, plugins: ['inventory', 'ncm'] })
      col = await enrollCollector(t)
      let k = 40
      for (const [name, text] of Object.entries(TEXTS)) {
        const d = await trackDevice(t, col, { address: `192.0.2.${k++}/32`, name, tacacsKey: name === 'sw-a' ? KEY : undefined })
        ids[name] = d.deviceId
        groups[name] = d.groupId
        await putVersion(t, col, d.deviceId, name === 'sw-e' ? 'hostname sw-e\nip http server\nend\n' : text)
      }
      // sw-e's latest version replaces the lines search reads.
      await putVersion(t, col, ids['sw-e'], TEXTS['sw-e'])
      readOnly = await t.token({ permissions: ['ncm.read'] })
    })
    after(async () => t?.stop())

    it('finds a term anywhere in a line, case-insensitively, by device name, 5 lines a device with the count of all', async () => {
      expect(await search('q=http%20server')).to.deep.equal({
        items: [
          { device: 'sw-a', match_count: 1, lines: ['2:ip http server'] },
          { device: 'sw-b', match_count: 2, lines: ['2:no ip http server', '4: ip http server'] },
          { device: 'sw-c', match_count: 8, lines: ['2:IP HTTP SERVER', '4: description to HTTP server 0', '6: description to HTTP server 1', '8: description to HTTP server 2', '10: description to HTTP server 3'] },
          { device: 'sw-d', match_count: 1, lines: ['2:no ip http server'] },
        ],
        total: 4,
        total_capped: false,
        page: 1,
        per_page: 50,
        pages: 1,
      })
    })

    it('matches a whole line, indentation ignored: ip http server is not no ip http server', async () => {
      const r = await search('q=Ip%20Http%20Server&match=line')
      expect(r.items).to.deep.equal([
        { device: 'sw-a', match_count: 1, lines: ['2:ip http server'] },
        { device: 'sw-b', match_count: 1, lines: ['4: ip http server'] },
        { device: 'sw-c', match_count: 1, lines: ['2:IP HTTP SERVER'] },
      ])
      expect((await search('q=%20%20ip%20http%20server%20&match=line')).items.map((i: any) => i.device)).to.deep.equal(['sw-a', 'sw-b', 'sw-c'])
    })

    it('searches the latest version only, and only masked text: a secret is never found', async () => {
      expect((await search('q=ip%20ssh')).items).to.deep.equal([{ device: 'sw-e', match_count: 1, lines: ['2:ip ssh version 2'] }])
      expect((await search(`q=${encodeURIComponent(KEY)}`)).items).to.deep.equal([])
      expect((await search('q=search-key')).items).to.deep.equal([])
      expect((await search('q=tacacs-server')).items).to.deep.equal([{ device: 'sw-a', match_count: 1, lines: ['6:tacacs-server key <secret hidden>'] }])
    })

    it('takes % and _ literally, narrows to a group and its descendants, and pages', async () => {
      expect((await search('q=50%25%20of')).items.map((i: any) => i.device)).to.deep.equal(['sw-a'])
      expect((await search('q=0_1')).items).to.deep.equal([])
      // A child group under sw-a's group, holding sw-b: the parent's search covers both.
      const child = await t.admin('POST', '/api/v1/device-groups', { body: { name: `child-${groups['sw-a'].slice(0, 8)}`, parent_id: groups['sw-a'] } })
      expect(child.status).to.equal(201)
      expect((await t.admin('PUT', `/api/v1/devices/${ids['sw-b']}`, { body: { device_group_id: child.body.id } })).status).to.equal(200)
      expect((await search(`q=http%20server&device_group_id=${groups['sw-a']}`)).items.map((i: any) => i.device)).to.deep.equal(['sw-a', 'sw-b'])
      expect((await search(`q=http%20server&device_group_id=${child.body.id}`)).items.map((i: any) => i.device)).to.deep.equal(['sw-b'])
      expect((await search(`q=http%20server&device_group_id=${groups['sw-e']}`)).items).to.deep.equal([])
      const p = await search('q=http%20server&per_page=3&page=2')
      expect(p).to.deep.include({ total: 4, page: 2, per_page: 3, pages: 2 })
      expect(p.items.map((i: any) => i.device)).to.deep.equal(['sw-d'])
    })

    it('forgets a device whose history is deleted', async () => {
      expect((await t.admin('DELETE', `/api/v1/ncm/devices/${ids['sw-d']}/history`)).status).to.equal(200)
      expect((await search('q=http%20server')).items.map((i: any) => i.device)).to.deep.equal(['sw-a', 'sw-b', 'sw-c'])
      expect(await t.app.db.knex('ncm_latest_lines').where({ device_id: ids['sw-d'] }).select('n')).to.deep.equal([])
    })

    it('refuses malformed input at the field, and a group that does not exist', async () => {
      const bad = (q: string) => t.req('GET', `/api/v1/ncm/search?${q}`, { token: readOnly })
      expectError(await bad(''), 422, 'FIELD_REQUIRED', 'q')
      expectError(await bad('q=ip'), 422, 'VALIDATION_FAILED', 'q')
      expectError(await bad('q=%20%20%20%20'), 422, 'VALIDATION_FAILED', 'q')
      expectError(await bad(`q=${'x'.repeat(201)}`), 422, 'VALIDATION_FAILED', 'q')
      expectError(await bad('q=http&match=regex'), 422, 'VALIDATION_FAILED', 'match')
      expectError(await bad('q=http&device_group_id=x'), 422, 'VALIDATION_FAILED', 'device_group_id')
      expectError(await bad('q=http&per_page=201'), 422, 'VALIDATION_FAILED', 'per_page')
      expectError(await bad('q=http&device_group_id=00000000-0000-4000-8000-000000000000'), 422, 'NCM_GROUP_NOT_FOUND', 'device_group_id')
      // A NUL, which no stored line holds (PostgreSQL text cannot): nothing found, no failure.
      const nul = await bad('q=http%00server')
      expect(nul.status, nul.text).to.equal(200)
      expect(nul.body.items).to.deep.equal([])
      expect((await t.req('GET', '/api/v1/ncm/search?q=http', { token: await t.token({ permissions: ['ncm.reveal'] }) })).status).to.equal(403)
    })
  })
}
