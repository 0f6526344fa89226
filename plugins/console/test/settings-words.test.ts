/**
 * The settings screen has words for every setting (ui/src/i18n/settings-en.ts, settings-ru.ts): the Pro
 * edition booted (every plugin of the product, Pro's included), each key GET /settings lists as the admin
 * has a label and a description in English and in Russian, and a section of the screen's own (not the
 * "plugin …" section a third-party plugin's unknown key lands in). A new setting without words fails here;
 * so does a word for a key no longer registered. Engine-independent: once per npm test, in the PostgreSQL run.
 */
import { expect } from 'chai'
import settingsEn from '../../../ui/src/i18n/settings-en.js'
import settingsRu from '../../../ui/src/i18n/settings-ru.js'
import { matches, sectionsOf, wordsOf, type Setting } from '../../../ui/src/pages/settings-model.js'
import { runsOn, startTestApp, type TestApp } from '../../../test/kit/app.js'

;(runsOn('postgres') ? describe : describe.skip)('console: every registered setting has its words in English and Russian', function () {
  this.timeout(180_000)
  let t: TestApp
  let listed: Setting[]
  before(async () => {
    t = await startTestApp({ edition: 'pro' })
    const r = await t.admin<Setting[]>('GET', '/api/v1/settings')
    expect(r.status, r.text).to.equal(200)
    listed = r.body
  })
  after(() => t?.stop())

  it('lists the settings of every plugin, Pro\'s included', () => {
    const owners = new Set(listed.map((s) => s.owner))
    for (const o of ['kernel', 'tacacs', 'radius', 'nac', 'pki', 'mfa', 'ncm', 'portal', 'aaa-logs', 'update-feed', 'pro-reports']) expect(owners, o).to.include(o)
  })

  it('has a label and a description for each key, in both languages, Russian in Russian', () => {
    const missing: string[] = []
    for (const s of listed) {
      for (const [lang, dict] of [['en', settingsEn], ['ru', settingsRu]] as const) {
        const w = wordsOf(dict, s.key)
        if (!w?.label.trim() || !w.description.trim()) missing.push(`${lang} ${s.key}`)
      }
      const ru = wordsOf(settingsRu, s.key)
      if (ru && !/[а-яё]/i.test(ru.description)) missing.push(`ru ${s.key}: not in Russian`)
    }
    expect(missing).to.deep.equal([])
  })

  it('has no words for a key no plugin registers', () => {
    const registered = new Set(listed.map((s) => s.key))
    expect(Object.keys(settingsEn.keys).filter((k) => !registered.has(k))).to.deep.equal([])
  })

  it('puts every key in a section of its own words, none in a plugin\'s', () => {
    for (const dict of [settingsEn, settingsRu]) {
      const sections = sectionsOf(dict, listed)
      expect(sections.filter((s) => s.id.startsWith('plugin:')).map((s) => s.settings.map((x) => x.key))).to.deep.equal([])
      expect(sections.flatMap((s) => s.settings).length).to.equal(listed.length)
    }
  })

  it('groups a key it does not know under its plugin, with the server\'s description, and finds it by it', () => {
    const alien = { key: 'acme.widget_limit', owner: 'acme', description: 'How many widgets.', value: 3, default: 3, schema: { type: 'integer' }, secret: false }
    const sections = sectionsOf(settingsRu, [...listed, alien])
    expect(sections.at(-1)).to.include({ id: 'plugin:acme', title: 'Модуль acme' })
    expect(matches(settingsRu, alien, 'widgets')).to.equal(true)
    expect(matches(settingsRu, listed.find((s) => s.key === 'mail.smtp_port')!, 'порт smtp')).to.equal(true)
  })
})
