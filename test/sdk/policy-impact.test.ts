import { expect } from 'chai'
import { changeOf, ImpactAccumulator, impactSentence, PHRASE_SAY, sayPhrases, type ImpactOutcome, type ImpactRequest } from '../../sdk/index.js'
import { runsOn } from '../kit/app.js'
import { createTranslator } from '../../kernel/i18n.js'
import aaaEn from '../../plugins/aaa-policy/locales/en.js'
import aaaRu from '../../plugins/aaa-policy/locales/ru.js'

const permit = (rule: string, attrs: Record<string, string> = {}): ImpactOutcome => ({
  decision: 'permit',
  rule: { id: rule, name: `rule ${rule}`, position: 1 },
  profile: { id: 'p', name: 'p' },
  attributes: Object.entries(attrs).map(([name, value]) => ({ name, value })),
  command_line: null,
  reason: '',
})
const deny = (rule: string | null): ImpactOutcome => ({ decision: 'deny', rule: rule ? { id: rule, name: `rule ${rule}`, position: 2 } : null, profile: null, attributes: [], command_line: null, reason: '' })
const request = (username: string, device: string, events: number, groups: string[] = []): ImpactRequest => ({
  kind: 'tacacs_command',
  username,
  mac: null,
  device: { id: device, name: `dev-${device}` },
  nas_ip: null,
  method: null,
  service: 'shell',
  command: `show ${username}`,
  priv_lvl: 15,
  user_groups: groups.map((g) => ({ id: g, name: `group ${g}` })),
  device_groups: [],
  events,
  last_seen: '2026-11-28T10:00:00.000Z',
})
const link = () => ({ path: '/api/v1/aaa/policy/test', deployed: null, pending: {} })

// Pure functions: one engine's run is enough.
;(runsOn('postgres') ? describe : describe.skip)('sdk: the change-impact accumulator', () => {
  it('names the most severe change: a flipped decision, then attributes, then the deciding rule; a deny by another rule is a rule change', () => {
    expect(changeOf(permit('a'), deny('b'))).to.equal('permit_to_deny')
    expect(changeOf(deny(null), permit('a'))).to.equal('deny_to_permit')
    expect(changeOf(permit('a', { 'priv-lvl': '15' }), permit('b', { 'priv-lvl': '1' }))).to.equal('attributes')
    expect(changeOf(permit('a', { 'priv-lvl': '15' }), permit('b', { 'priv-lvl': '15' }))).to.equal('rule')
    expect(changeOf(deny('a'), deny('b'))).to.equal('rule')
    expect(changeOf(permit('a', { x: '1' }), permit('a', { x: '1' }))).to.equal(null)
    const line = (l: string): ImpactOutcome => ({ ...permit('a'), command_line: { command_set: { id: 's', name: 's' }, line: l } })
    expect(changeOf(line('show .*'), line('show ip .*'))).to.equal('rule')
  })

  it('counts requests and the real events behind them, groups them biggest first, keeps the top changes and says it in one sentence', () => {
    const acc = new ImpactAccumulator({ changesLimit: 2, groupLimit: 10 })
    acc.add(request('alice', 'd1', 100, ['g1']), permit('a'), deny('b'), link)
    acc.add(request('alice', 'd2', 50, ['g1']), permit('a'), deny('b'), link)
    acc.add(request('bob', 'd1', 7, ['g1', 'g2']), permit('a'), deny('b'), link)
    acc.add(request('carol', 'd3', 1000), deny(null), permit('c'), link)
    acc.add(request('dave', 'd3', 5), permit('a', { 'priv-lvl': '15' }), permit('a', { 'priv-lvl': '1' }), link)
    acc.add(request('erin', 'd3', 9), permit('a'), permit('a'), link)
    acc.unreplayable(request('frank', 'd1', 3), 'wrong_password', 'the login failed on its password')
    const r = acc.result()
    expect(r.requests).to.deep.include({ distinct: 7, events: 1174, evaluated: 6, unchanged: 1 })
    expect(r.requests.unreplayable).to.deep.equal({ requests: 1, events: 3, by_reason: [{ reason: 'wrong_password', description: 'the login failed on its password', requests: 1, events: 3 }] })
    expect(r.summary.permit_to_deny).to.deep.equal({ requests: 3, events: 157 })
    expect(r.summary.deny_to_permit).to.deep.equal({ requests: 1, events: 1000 })
    expect(r.summary.attributes).to.deep.equal({ requests: 1, events: 5 })
    expect(r.summary).to.include({ users_losing_access: 2, devices_losing_access: 2, rules_newly_deciding: 2 })
    expect(r.summary.requests_newly_decided).to.deep.equal({ requests: 4, events: 1157 })
    expect(r.summary.text).to.equal('2 users lose access to 2 devices; 1,000 requests are newly permitted; 5 requests get other attributes; 2 rules now decide 1,157 requests they did not')
    expect(r.groups.users.map((u) => [u.name, u.events])).to.deep.equal([['carol', 1000], ['alice', 150], ['bob', 7], ['dave', 5]])
    expect(r.groups.user_groups.map((g) => [g.id, g.permit_to_deny, g.events])).to.deep.equal([['g1', 3, 157], ['g2', 1, 7]])
    expect(r.groups.rules.map((g) => [g.id, g.events])).to.deep.equal([['b', 157], ['c', 1000], ['a', 5]].sort((x, y) => (y[1] as number) - (x[1] as number)))
    // The two most severe, biggest first; all five counted.
    expect(r.changes_total).to.equal(5)
    expect(r.changes.map((c) => [c.request.username, c.change])).to.deep.equal([['alice', 'permit_to_deny'], ['alice', 'permit_to_deny']])
    expect(r.changes[0].request.events).to.equal(100)
  })

  it('lists the attributes that changed, a name sent several times by its values in order', () => {
    const acc = new ImpactAccumulator({ changesLimit: 10, groupLimit: 10 })
    const before: ImpactOutcome = { ...permit('a'), attributes: [{ name: 'Tunnel-Private-Group-Id', value: '10' }, { name: 'Cisco-AVPair', value: 'a=1' }, { name: 'Cisco-AVPair', value: 'b=2' }] }
    const after: ImpactOutcome = { ...permit('a'), attributes: [{ name: 'Tunnel-Private-Group-Id', value: '20' }, { name: 'Cisco-AVPair', value: 'a=1' }, { name: 'Cisco-AVPair', value: 'b=2' }, { name: 'Filter-Id', value: 'guest' }] }
    acc.add(request('a', 'd', 1), before, after, link)
    expect(acc.result().changes[0].changed_attributes).to.deep.equal([
      { name: 'Tunnel-Private-Group-Id', before: '10', after: '20' },
      { name: 'Filter-Id', before: null, after: 'guest' },
    ])
  })

  it('says when nothing changes, and speaks in the singular of one', () => {
    const zero = { requests: 0, events: 0 }
    expect(impactSentence({ permit_to_deny: zero, deny_to_permit: zero, attributes: zero, rule: zero, users_losing_access: 0, devices_losing_access: 0, rules_newly_deciding: 0, requests_newly_decided: zero })).to.equal(
      'No replayed request is answered differently',
    )
    const one = { requests: 1, events: 1 }
    expect(impactSentence({ permit_to_deny: one, deny_to_permit: zero, attributes: zero, rule: zero, users_losing_access: 1, devices_losing_access: 1, rules_newly_deciding: 1, requests_newly_decided: one })).to.equal(
      '1 user loses access to 1 device; 1 rule now decides 1 request it did not',
    )
  })
  it('says the sentence and the unreplayable reasons in the caller\'s language: English as without, Russian with its plural forms', async () => {
    const tr = await createTranslator()
    tr.addNamespace('aaa-policy', { en: aaaEn, ru: aaaRu })
    const say = (lang: string) => (key: string, vars?: Record<string, unknown>) => tr.t(lang, key, vars)
    const of = (users: number, devices: number, permitted: number, rules: number, decided: number) => ({
      permit_to_deny: { requests: users, events: users }, deny_to_permit: { requests: permitted, events: permitted }, attributes: { requests: permitted, events: permitted }, rule: { requests: 0, events: 0 },
      users_losing_access: users, devices_losing_access: devices, rules_newly_deciding: rules, requests_newly_decided: { requests: decided, events: decided },
    })
    for (const n of [of(1, 1, 1, 1, 1), of(2, 5, 1234, 2, 21), of(0, 0, 0, 0, 0)]) expect(impactSentence(n, say('en'))).to.equal(impactSentence(n))
    expect(impactSentence(of(1, 1, 1, 1, 1), say('ru'))).to.equal(
      '1 пользователь теряет доступ к 1 устройству; 1 запрос теперь разрешён; 1 запрос получает другие атрибуты; 1 правило теперь решает запросы, которые раньше решали другие правила (1 запрос)',
    )
    expect(impactSentence(of(3, 5, 21, 5, 3), say('ru'))).to.equal(
      '3 пользователя теряют доступ к 5 устройствам; 21 запрос теперь разрешён; 21 запрос получает другие атрибуты; 5 правил теперь решают запросы, которые раньше решали другие правила (3 запроса)',
    )
    const acc = new ImpactAccumulator({ changesLimit: 1, groupLimit: 1, unreplayableWords: 'aaa-policy:impact_unreplayable' })
    acc.unreplayable({ events: 4 }, 'no_address', 'The log holds no device address for the request.')
    expect(acc.result(say('ru')).requests.unreplayable.by_reason[0]).to.deep.include({ reason: 'no_address', description: 'В журнале нет адреса устройства для этого запроса.', events: 4 })
    expect(acc.result(say('en')).requests.unreplayable.by_reason[0].description).to.equal('The log holds no device address for the request.')
  })

  it('says the changes\' reasons kept as phrases in the reader\'s language, phrases within phrases too; a reason in plain text as it is', async () => {
    const tr = await createTranslator()
    tr.addNamespace('aaa-policy', { en: aaaEn, ru: aaaRu })
    const say = (lang: string) => (key: string, vars?: Record<string, unknown>) => tr.t(lang, key, vars)
    const why = PHRASE_SAY('aaa-policy:verdict.login.no_password', { username: 'ann' })
    const kept = PHRASE_SAY('aaa-policy:verdict.login_refused', { method: 'PAP', why }) + ' (' + PHRASE_SAY('aaa-policy:verdict.its_address') + ')'
    const en = say('en')
    expect(sayPhrases(kept, en)).to.equal(`${en('aaa-policy:verdict.login_refused', { method: 'PAP', why: en('aaa-policy:verdict.login.no_password', { username: 'ann' }) })} (its address)`)
    expect(sayPhrases(kept, en)).to.match(/^PAP login: user ann has no network password /)
    expect(sayPhrases(kept, say('ru'))).to.match(/^вход PAP: у пользователя ann /).and.not.contain('\u0001')
    expect(sayPhrases('rule r1 permits with TACACS+ profile p', say('ru')), 'an older English reason').to.equal('rule r1 permits with TACACS+ profile p')
    const acc = new ImpactAccumulator({ changesLimit: 10, groupLimit: 5 })
    acc.add(request('ann', 'd1', 1), { ...permit('a'), reason: PHRASE_SAY('aaa-policy:verdict.tacacs_permit', { rule: 'r1', profile: 'p' }) }, { ...deny(null), reason: 'written before phrases' }, () => ({ path: '', deployed: null, pending: {} }))
    const [c] = acc.result(say('ru')).changes
    expect([c.before.reason, c.after.reason]).to.deep.equal(['правило r1 разрешает с профилем TACACS+ p', 'written before phrases'])
  })
})
