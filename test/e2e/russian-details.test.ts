/**
 * Issue 34 item 13, "Russian everywhere": the server's human text follows Accept-Language while the
 * machine fields stay put. A validation failure, a not-found and a conflict answer their `detail`
 * in Russian with the same `code` and `field`; the AAA and NAC policy tests give their trace
 * reasons (and the NAC refusal's detail) in Russian; English, asked or not, is as before. The
 * decision's secondary sentences (login and enable refusals, the RADIUS wider client, a command's
 * reason) and the explanations inside errors (a time window, a certificate value, a PKI import) too.
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp, testEngines } from '../kit/app.js'
import { created, uniq } from '../kit/expect.js'

const RU = { 'accept-language': 'ru-RU,ru;q=0.9,en;q=0.5' }
const EN = { 'accept-language': 'en' }

for (const engine of testEngines()) {
  describe(`server messages in the caller's language (${engine})`, function () {
    this.timeout(120_000)
    let t: TestApp
    before(async () => {
      t = await startTestApp({ engine, plugins: ['inventory', 'tacacs', 'radius', 'aaa-policy', 'aaa-logs', 'nac', 'pki'] })
    })
    after(async () => t?.stop())

    /** The same request in both languages (and with no header): only `detail` differs. */
    const both = async (method: string, path: string, status: number, body?: unknown) => {
      const [ru, en, none] = await Promise.all([RU, EN, {}].map((headers) => t.admin(method, path, { body, headers })))
      for (const r of [ru, en, none]) expect(r.status, r.text).to.equal(status)
      expect({ code: ru.body.code, field: ru.body.field }).to.deep.equal({ code: en.body.code, field: en.body.field })
      expect(none.body.detail).to.equal(en.body.detail)
      return { ru: ru.body, en: en.body }
    }

    it('a validation failure: the schema validator\'s required field and allowed values', async () => {
      const required = await both('POST', '/api/v1/user-groups', 422, {})
      expect(required.en).to.deep.include({ code: 'FIELD_REQUIRED', field: 'name', detail: 'Field "name" is required.' })
      expect(required.ru.detail).to.equal('Поле «name» обязательно.')
      const allowed = await both('POST', '/api/v1/aaa/policy/test', 422, { protocol: 'snmp', username: 'x', device_id: randomUUID() })
      expect(allowed.en.field).to.equal('protocol')
      expect(allowed.ru.detail).to.match(/^Допустимые значения: .*tacacs/)
    })

    it('a not-found and a conflict from a plugin\'s coded errors', async () => {
      const id = randomUUID()
      const missing = await both('GET', `/api/v1/device-groups/${id}`, 404)
      expect(missing.en.detail).to.match(/^No device group|not found/i)
      expect(missing.ru.detail).to.match(/[а-яё]/i).and.not.equal(missing.en.detail)
      const name = uniq('ru-site')
      await created(t, '/api/v1/device-groups', { name })
      const taken = await both('POST', '/api/v1/device-groups', 409, { name })
      expect(taken.en.code).to.equal('DEVICE_GROUP_NAME_TAKEN')
      expect(taken.ru.detail).to.equal(`Группа устройств с именем «${name}» уже существует (регистр букв не учитывается).`)
    })

    it('an error whose explanation is a phrase: the explanation in the same language', async () => {
      const device = await created(t, '/api/v1/devices', { name: uniq('ru-phrase-sw'), address: '10.233.0.1', tacacs_key: 'tac-key-1' })
      const user = await created(t, '/api/v1/users', { username: uniq('ru-phrase'), network_login: true })
      const prefix = await both('POST', '/api/v1/aaa/policy/rules', 422, { name: uniq('ru-prefix'), who: { user_id: user.id }, where: { device_id: device.id }, client_prefixes: ['10.1.2.3/16'] })
      expect(prefix.en).to.deep.include({ field: 'client_prefixes[0]', detail: 'Invalid rule condition: "10.1.2.3/16" has host bits set after /16: the network is 10.1.0.0/16, a single address is /32.' })
      expect(prefix.ru.detail).to.equal('Неверное условие правила: в "10.1.2.3/16" после /16 установлены биты узла: сеть — 10.1.0.0/16, отдельный адрес — /32.')
      const mab = await both('POST', '/api/v1/nac/policy/test', 422, { method: 'mab', username: 'someone', mac: '02:00:00:00:00:01', nas: '10.233.0.1' })
      expect(mab.en).to.deep.include({ field: 'username', detail: 'MAB has no user: the User-Name is the MAC address. Leave username out.' })
      expect(mab.ru.detail).to.equal('В MAB нет пользователя: User-Name — это MAC-адрес. Не указывайте username.')
      const profile = await created(t, '/api/v1/nac/authorization-profiles', { name: uniq('ru-phrase-prof'), vlan: 100 })
      const condition = await both('POST', '/api/v1/nac/policy/rules', 422, { name: uniq('ru-phrase-rule'), authorization_profile_id: profile.id, conditions: [{ type: 'method' }] })
      expect(condition.en.detail).to.equal('Invalid condition: a method condition needs methods.')
      expect(condition.ru.detail).to.equal('Неверное условие: условию method нужно methods.')
    })

    it('the AAA policy test\'s trace reasons and its decision\'s sentence', async () => {
      const group = await created(t, '/api/v1/user-groups', { name: uniq('ru-noc') })
      const [alice, bob] = await Promise.all([
        created(t, '/api/v1/users', { username: uniq('ru-alice'), network_login: true }),
        created(t, '/api/v1/users', { username: uniq('ru-bob'), network_login: true }),
      ])
      const device = await created(t, '/api/v1/devices', { name: uniq('ru-sw'), address: '10.231.0.1', tacacs_key: 'tac-key-1', radius_secret: 'rad-secret-1' })
      const profile = await created(t, '/api/v1/tacacs/profiles', { name: uniq('ru-tp'), privilege_level: 1 })
      const rules = '/api/v1/aaa/policy/rules'
      const forBob = await created(t, rules, { name: uniq('ru-bob-rule'), who: { user_id: bob.id }, where: { device_id: device.id }, tacacs_profile_id: profile.id })
      const forNoc = await created(t, rules, { name: uniq('ru-noc-rule'), who: { group_id: group.id }, where: { device_id: device.id }, tacacs_profile_id: profile.id })
      const forAlice = await created(t, rules, { name: uniq('ru-alice-rule'), who: { user_id: alice.id }, where: { device_id: device.id }, tacacs_profile_id: profile.id })
      const ask = async (headers: Record<string, string>) => {
        const r = await t.admin('POST', '/api/v1/aaa/policy/test', { body: { protocol: 'tacacs', username: alice.username, device_id: device.id }, headers })
        expect(r.status, r.text).to.equal(200)
        const reasons = new Map<string, string>((r.body.trace as { rule_id: string; reason: string }[]).map((s) => [s.rule_id, s.reason]))
        return [...[forBob, forNoc, forAlice].map((rule) => reasons.get(rule.id)), r.body.reason]
      }
      expect(await ask(EN)).to.deep.equal([
        `user is not ${bob.username}`,
        `user ${alice.username} is not a member of group ${group.name}`,
        `matched: user ${alice.username}, device ${device.name}`,
        `rule ${forAlice.name} permits with TACACS+ profile ${profile.name}`,
      ])
      expect(await ask(RU)).to.deep.equal([
        `пользователь — не ${bob.username}`,
        `пользователь ${alice.username} не входит в группу ${group.name}`,
        `совпало: пользователь ${alice.username}, устройство ${device.name}`,
        `правило ${forAlice.name} разрешает с профилем TACACS+ ${profile.name}`,
      ])
      // The walk's prepared steps are kept per language: English again is English.
      expect((await ask({}))[0]).to.equal(`user is not ${bob.username}`)
    })

    it('the NAC policy test\'s trace reasons and a refusal\'s detail', async () => {
      const switchAt = '10.232.0.0/24'
      await created(t, '/api/v1/devices', { name: uniq('ru-nac-sw'), address: switchAt, radius_secret: 'rad-secret-1' })
      const profile = await created(t, '/api/v1/nac/authorization-profiles', { name: uniq('ru-prof'), vlan: 100 })
      const rule = await created(t, '/api/v1/nac/policy/rules', { name: uniq('ru-mab'), authorization_profile_id: profile.id, conditions: [{ type: 'method', methods: ['mab'] }] })
      const user = await created(t, '/api/v1/users', { username: uniq('ru-olga'), password: 'Nac-Policy-Test-123', network_login: true })
      const ask = async (body: Record<string, unknown>, headers: Record<string, string>) => {
        const r = await t.admin('POST', '/api/v1/nac/policy/test', { body: { nas: '10.232.0.9', ...body }, headers })
        expect(r.status, r.text).to.equal(200)
        return r.body
      }
      const step = (b: { trace: { rule_id: string; reason: string | null }[] }) => b.trace.find((s) => s.rule_id === rule.id)?.reason
      expect(step(await ask({ method: 'peap', username: user.username }, EN))).to.equal('method is peap, not mab')
      expect(step(await ask({ method: 'peap', username: user.username }, RU))).to.equal('метод — peap, а не mab')
      const refusedEn = await ask({ method: 'peap', username: 'nobody-here' }, EN)
      const refusedRu = await ask({ method: 'peap', username: 'nobody-here' }, RU)
      expect(refusedRu.refused.reason).to.equal(refusedEn.refused.reason).and.equal('unknown_user')
      expect(refusedEn.refused.detail).to.equal('no user is named "nobody-here" (compared exactly)')
      expect(refusedRu.refused.detail).to.equal('пользователя с именем "nobody-here" нет (имя сравнивается точно)')
    })

    it('the decision\'s refusals, the wider client and a command\'s reason', async () => {
      const user = await created(t, '/api/v1/users', { username: uniq('ru-nopass'), network_login: true })
      await created(t, '/api/v1/devices', { name: uniq('ru-wide'), address: '10.234.0.0/16', tacacs_key: 'tac-key-1', radius_secret: 'rad-secret-1' })
      const inner = await created(t, '/api/v1/devices', { name: uniq('ru-inner'), address: '10.234.1.1', tacacs_key: 'tac-key-1' })
      const none = await created(t, '/api/v1/tacacs/profiles', { name: uniq('ru-noenable'), privilege_level: 1, enable_mode: 'none' })
      const rule = await created(t, '/api/v1/aaa/policy/rules', { name: uniq('ru-enable-rule'), who: { user_id: user.id }, where: { device_id: inner.id }, tacacs_profile_id: none.id })
      const ask = async (body: Record<string, unknown>) => {
        const out: Record<string, unknown>[] = []
        for (const headers of [EN, RU]) {
          const r = await t.admin('POST', '/api/v1/aaa/policy/test', { body: { username: user.username, ...body }, headers })
          expect(r.status, r.text).to.equal(200)
          out.push(r.body)
        }
        return out
      }
      // A RADIUS PAP login from a device without a secret inside a wider client, by a user with no network password.
      const [radEn, radRu] = await ask({ protocol: 'radius', nas_ip: '10.234.1.1', method: 'pap' })
      expect(radEn.reason).to.match(/^PAP login: user .* has no network password .* \(device .* has no RADIUS secret, so FreeRADIUS answers 10\.234\.1\.1 as the wider client /)
      expect(radRu.reason).to.equal(
        `вход PAP: у пользователя ${user.username} нет сетевого пароля (он не задавался с тех пор, как включён сетевой вход: network_verifiers_set — false), поэтому у демона нет проверочных данных и он отклоняет вход` +
          ` (у устройства ${inner.name} нет секрета RADIUS, поэтому FreeRADIUS отвечает 10.234.1.1 как более широкий клиент ${(radEn.device as { name: string }).name})`,
      )
      // Enable under a profile that holds no enable password.
      const [enEn, enRu] = await ask({ protocol: 'tacacs', device_id: inner.id, method: 'enable' })
      expect(enEn.reason).to.equal(`enable login: rule ${rule.name} gives TACACS+ profile ${none.name}, whose enable_mode is none: tac_plus-ng holds no enable password for it and rejects enable`)
      expect(enRu.reason).to.equal(`вход в enable: правило ${rule.name} даёт профиль TACACS+ ${none.name}, у которого enable_mode — none: у tac_plus-ng нет для него пароля enable, и enable отклоняется`)
      // A command no set matches: the profile's default (deny), in both languages.
      const [cmdEn, cmdRu] = await ask({ protocol: 'tacacs', device_id: inner.id, command: 'show version' })
      expect((cmdEn.command_decision as { reason: string }).reason).to.equal('No command of the profile\'s command sets matches; the profile\'s default action denies it.')
      expect((cmdRu.command_decision as { reason: string }).reason).to.equal('Ни одна команда наборов профиля не совпала; действие профиля по умолчанию запрещает строку.')
    })

    it('explanations inside errors: a time window, a certificate value, a PKI import, a CSR', async () => {
      const device = await created(t, '/api/v1/devices', { name: uniq('ru-tw-sw'), address: '10.235.0.1', tacacs_key: 'tac-key-1' })
      const user = await created(t, '/api/v1/users', { username: uniq('ru-tw'), network_login: true })
      const window = await both('POST', '/api/v1/aaa/policy/rules', 422, { name: uniq('ru-tw'), who: { user_id: user.id }, where: { device_id: device.id }, time_window: { days: ['mon'], start: '08:00', end: '08:00' } })
      expect(window.en).to.deep.include({ field: 'time_window.end', detail: 'Invalid rule condition: end 08:00 equals start 08:00: give a window that holds for some time but not all day (00:00-24:00 is the whole day).' })
      expect(window.ru.detail).to.equal('Неверное условие правила: конец 08:00 совпадает с началом 08:00: задайте окно, которое действует какое-то время, но не весь день (00:00-24:00 — весь день).')
      const profile = await created(t, '/api/v1/nac/authorization-profiles', { name: uniq('ru-cert-prof'), vlan: 100 })
      const cert = await both('POST', '/api/v1/nac/policy/rules', 422, { name: uniq('ru-cert'), authorization_profile_id: profile.id, conditions: [{ type: 'certificate', field: 'issuer_cn', values: ['Корп CA'] }] })
      expect(cert.en.detail).to.equal('Invalid condition: "Корп CA": only printable ASCII characters (letters, digits, space and punctuation) can be compared with a certificate by FreeRADIUS.')
      expect(cert.ru.detail).to.equal('Неверное условие: "Корп CA": FreeRADIUS может сравнивать с сертификатом только печатаемые символы ASCII (буквы, цифры, пробел и знаки препинания).')
      const pki = await both('POST', '/api/v1/pki/cas/import', 422, { name: uniq('ru-ca'), certificate_chain: 'x', private_key: 'not a key' })
      expect(pki.en).to.deep.include({ field: 'private_key', detail: 'The import could not be read: not a PEM private key (PKCS#8, PKCS#1 or SEC 1, unencrypted).' })
      expect(pki.ru.detail).to.equal('Импорт не удалось прочитать: это не закрытый ключ PEM (PKCS#8, PKCS#1 или SEC 1, без шифрования).')
      // A CSR is read before its CA and template are looked up: the parser's own explanation.
      const csr = await both('POST', '/api/v1/pki/certificates', 422, { ca_id: randomUUID(), template_id: randomUUID(), csr: 'not a request' })
      expect(csr.en).to.deep.include({ code: 'PKI_CSR_INVALID', field: 'csr', detail: 'The certificate signing request could not be read: expected exactly one PEM block "CERTIFICATE REQUEST".' })
      expect(csr.ru.detail).to.equal('Запрос на подпись сертификата не удалось прочитать: ожидается ровно один PEM-блок «CERTIFICATE REQUEST».')
    })

    it('the change impact\'s summary sentence', async () => {
      for (const path of ['/api/v1/aaa/policy/impact', '/api/v1/nac/policy/impact']) {
        const [en, ru] = await Promise.all([EN, RU].map((headers) => t.admin('POST', path, { body: { days: 1 }, headers })))
        expect(en.status, en.text).to.equal(200)
        expect(en.body.summary.text, path).to.equal('No replayed request is answered differently')
        expect(ru.body.summary.text, path).to.equal('Ни один воспроизведённый запрос не получает другого ответа')
      }
    })
  })
}
