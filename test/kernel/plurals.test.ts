/**
 * Messages with a count say it the way each language does: "1 character",
 * "2 subgroups"; «1 символ», «2 подгруппы», «12 символов» (i18next plural
 * forms, nested where a message names its number otherwise), through the
 * HTTP API in English and Russian.
 */
import { expect } from 'chai'
import { startTestApp, type TestApp, testEngines } from '../kit/app.js'

for (const engine of testEngines()) {
  describe(`messages pluralize in English and Russian (${engine})`, function () {
    this.timeout(60_000)
    let t: TestApp
    before(async () => {
      t = await startTestApp({ engine, plugins: ['inventory'] })
    })
    after(async () => t?.stop())

    const detail = async (method: string, path: string, lang: 'en' | 'ru', body?: unknown) => {
      const r = await t.admin(method, path, { body, headers: { 'accept-language': lang } })
      expect(r.status, r.text).to.be.oneOf([409, 422])
      return r.body.detail as string
    }

    it('a length of 1 is one character (the kernel\'s validation)', async () => {
      expect(await detail('POST', '/api/v1/user-groups', 'en', { name: '' })).to.equal('Must be at least 1 character long.')
      expect(await detail('POST', '/api/v1/user-groups', 'ru', { name: '' })).to.equal('Минимальная длина — 1 символ.')
      expect(await detail('POST', '/api/v1/user-groups', 'ru', { name: 'x'.repeat(65) })).to.equal('Максимальная длина — 64 символа.')
    })

    it('the password policy\'s 12 characters (the kernel\'s identity)', async () => {
      const body = { username: 'plural-user', password: 'Short-1' }
      expect(await detail('POST', '/api/v1/users', 'en', body)).to.equal('The password must be at least 12 characters long.')
      expect(await detail('POST', '/api/v1/users', 'ru', body)).to.equal('Пароль слишком короткий: минимум 12 символов.')
    })

    it('two counts in one message, each with its own form (a plugin\'s message)', async () => {
      const group = (await t.admin('POST', '/api/v1/device-groups', { body: { name: 'plural-site' } })).body
      for (const name of ['plural-floor-1', 'plural-floor-2']) expect((await t.admin('POST', '/api/v1/device-groups', { body: { name, parent_id: group.id } })).status).to.equal(201)
      expect((await t.admin('POST', '/api/v1/devices', { body: { name: 'plural-sw1', address: '192.0.2.61', device_group_id: group.id } })).status).to.equal(201)
      expect(await detail('DELETE', `/api/v1/device-groups/${group.id}`, 'en')).to.equal('The device group still holds 1 device and 2 subgroups. Move or delete them first.')
      expect(await detail('DELETE', `/api/v1/device-groups/${group.id}`, 'ru')).to.equal('В группе устройств ещё есть 1 устройство и 2 подгруппы. Сначала перенесите или удалите их.')
    })
  })
}
