/**
 * The change impact's in-memory evaluator (services/batch-evaluate.ts) answers exactly what the policy
 * test's `evaluateWith` answers over the same inputs (`against: deployed` reads them the same way):
 * random policies (users and groups, refused users, devices with nested prefixes and groups, rules
 * with every WHO/WHERE, disabled rules, client prefixes, time windows, profiles with services,
 * command sets and enable modes) and random requests, every field compared but the trace.
 * (A helper, not a test file: impact.test.ts runs it on its own app.)
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { identityServices } from '../../../sdk/index.js'
import type { TestApp } from '../../../test/kit/app.js'
import { tacacsServiceRef, type TacacsProfile } from '../../tacacs/api.js'
import type { PolicyRuleView } from '../api.js'
import { batchEvaluator, batchShared } from '../services/batch-evaluate.js'
import { snapshotPolicyData, type PolicyInputs } from '../services/deployed-inputs.js'
import { outcomeOf, sameAnswer } from '../services/impact.js'
import { changeOf, PHRASE_SAY, sayPhrases, type Say } from '../../../sdk/index.js'
import { createTranslator } from '../../../kernel/i18n.js'
import tacacsEn from '../../tacacs/locales/en.js'
import tacacsRu from '../../tacacs/locales/ru.js'
import policyEn from '../locales/en.js'
import policyRu from '../locales/ru.js'
import { traceWords } from '../services/first-match.js'
import { evaluateWith, type PolicyTestInput } from '../services/evaluate.js'

/** A small seeded generator (mulberry32): a failure names its seed and replays. */
export function rng(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]
  const chance = (p: number) => next() < p
  const some = <T>(xs: readonly T[], p = 0.4): T[] => xs.filter(() => chance(p))
  return { int, pick, chance, some }
}

const ADDRESSES = ['10.0.0.0/8', '10.1.0.0/16', '10.1.2.0/24', '10.1.2.3/32', '10.1.2.4/32', '192.0.2.0/24', '192.0.2.9/32', '2001:db8::/32', '2001:db8::1/128', '198.51.100.0/24']
const NAS_IPS = ['10.1.2.3', '10.1.2.4', '10.1.2.77', '10.1.9.9', '10.200.0.1', '192.0.2.9', '192.0.2.10', '2001:db8::1', '2001:db8::2', '198.51.100.7', '203.0.113.5', '::ffff:10.1.2.3']
const PREFIXES = ['10.1.0.0/16', '10.1.2.0/24', '192.0.2.0/24', '2001:db8::/32', '203.0.113.0/24', '0.0.0.0/0']
const WINDOWS = [
  { label: 'Mon-Fri 08:00-18:00', spans: [{ days: [1, 2, 3, 4, 5], from: 480, to: 1080 }] },
  { label: 'Sat-Sun 22:00-06:00', spans: [{ days: [6, 0], from: 1320, to: 1440 }, { days: [0, 1], from: 0, to: 360 }] },
]
const LOGINS = [null, { chap: true, tacacs_chap: true, tacacs_mschap: true }, { chap: false, tacacs_chap: false, tacacs_mschap: false }, { chap: true, tacacs_chap: true, tacacs_mschap: false }, { chap: true, tacacs_chap: true, tacacs_mschap: true, tacacs_lockout: true as const }, { chap: false, directory: true as const }, { chap: false, directory: true as const, no_directory: true as const }]
const COMMANDS = ['show version <cr>', 'show running-config', 'configure terminal <cr>', 'reload', 'ping 10.0.0.1 <cr>', 'write memory']

export function randomInputs(r: ReturnType<typeof rng>, protocol: 'tacacs' | 'radius', refusedName: string): PolicyInputs {
  const ugroups = Array.from({ length: 4 }, () => randomUUID())
  const dgroups: { id: string; parent_id: string | null }[] = []
  for (let i = 0; i < 5; i++) dgroups.push({ id: randomUUID(), parent_id: i && r.chance(0.6) ? r.pick(dgroups).id : null })
  const users = ['u0', 'u1', 'u2', 'u3', 'u4', 'u5'].map((username) => ({
    id: randomUUID(),
    username,
    group_ids: r.some(ugroups).sort(),
    login: r.pick(LOGINS),
    ...(r.chance(0.2) ? { expires_at: new Date(Date.UTC(2026, 10, 20 + r.int(10))).toISOString() } : {}),
  }))
  const devices = r.some(ADDRESSES, 0.7).map((address, i) => ({
    id: randomUUID(),
    name: `dev${i}`,
    address,
    enabled: r.chance(0.85),
    device_group_id: r.chance(0.7) ? r.pick(dgroups).id : null,
    has_tacacs_key: r.chance(0.8),
    has_radius_secret: r.chance(0.8),
  }))
  const commandSets = Array.from({ length: 3 }, (_, i) => ({
    id: randomUUID(),
    name: `set${i}`,
    description: null,
    commands: r.some(['show', 'configure', 'reload', 'ping', 'write'], 0.5).map((command) => ({ command, action: r.pick(['permit', 'deny'] as const), arguments: [], ...(r.chance(0.3) ? { min_privilege_level: r.pick([1, 7, 15]) } : {}) })),
  }))
  const tacacsProfiles = Array.from({ length: 3 }, (_, i) => ({
    id: randomUUID(),
    name: `tp${i}`,
    description: null,
    privilege_level: r.pick([1, 7, 15]),
    shell_attributes: r.some([{ name: 'idletime', value: '10' }, { name: 'shell:roles', value: 'admin', optional: true }, { name: 'autocmd', value: 'show' }]),
    command_set_ids: r.some(commandSets.map((s) => s.id), 0.5),
    default_action: r.pick(['permit', 'deny'] as const),
    services: r.some([{ service: 'ppp', attributes: [{ name: 'protocol', value: 'ip' }] }, { service: 'junos-exec', attributes: [{ name: 'local-user-name', value: 'ro' }] }]),
    enable_mode: r.pick(['none', 'login', 'secret'] as const),
    enable_privilege_level: r.pick([7, 15]),
    has_enable_secret: r.chance(0.5),
  }))
  const radiusProfiles = Array.from({ length: 2 }, (_, i) => ({ id: randomUUID(), name: `rp${i}`, description: null, attributes: [{ name: 'Service-Type', value: 'Administrative-User' }, ...(i ? [{ name: 'Filter-Id', value: 'ro' }] : [])], allow_mschapv1: false }))
  const who = (): PolicyRuleView['who'] => {
    const k = r.int(3)
    if (k === 0) return { type: 'any' }
    if (k === 1) {
      const u = r.pick(users)
      return { type: 'user', user_id: u.id, username: u.username }
    }
    return { type: 'group', group_id: r.pick(ugroups), group_name: 'g' }
  }
  const where = (): PolicyRuleView['where'] => {
    const k = r.int(3)
    if (k === 0 || !devices.length) return { type: 'any' }
    if (k === 1) {
      const dv = r.pick(devices)
      return { type: 'device', device_id: dv.id, device_name: dv.name }
    }
    return { type: 'device_group', device_group_id: r.pick(dgroups).id, device_group_name: 'dg' }
  }
  const count = 3 + r.int(12)
  const rules: PolicyInputs['rules'] = Array.from({ length: count }, (_, i) => ({
    id: randomUUID(),
    name: `r${i}`,
    position: i + 1,
    enabled: r.chance(0.85),
    is_default: false,
    who: who(),
    where: where(),
    tacacs_profile_id: r.chance(0.8) ? r.pick(tacacsProfiles).id : null,
    radius_profile_id: r.chance(0.8) ? r.pick(radiusProfiles).id : null,
    ...(r.chance(0.2) ? { time_window: r.pick(WINDOWS) } : {}),
    ...(r.chance(0.25) ? { client_prefixes: r.some(PREFIXES, 0.5) } : {}),
  }))
  rules.push({ id: randomUUID(), name: 'default', position: count + 1, enabled: r.chance(0.8), is_default: true, who: { type: 'any' }, where: { type: 'any' }, tacacs_profile_id: r.chance(0.5) ? r.pick(tacacsProfiles).id : null, radius_profile_id: r.chance(0.5) ? r.pick(radiusProfiles).id : null })
  return {
    format: 1,
    protocol,
    users,
    refused: protocol === 'radius' ? [{ username: refusedName, reason: r.pick(['disabled', 'network_login_off'] as const) }, { username: 'gone', reason: 'disabled' }] : [],
    devices,
    device_groups: dgroups,
    rules,
    tacacs_profiles: tacacsProfiles as Omit<TacacsProfile, 'created_at' | 'updated_at'>[],
    command_sets: commandSets,
    radius_profiles: radiusProfiles,
  }
}

export function randomRequest(r: ReturnType<typeof rng>, inputs: PolicyInputs, refusedName: string): PolicyTestInput {
  const username = r.pick(['u0', 'u1', 'u2', 'u3', 'u4', 'u5', 'U1', 'nobody', refusedName, 'gone'])
  const at = new Date(Date.UTC(2026, 10, 18 + r.int(14), r.int(24), r.int(60))).toISOString()
  const target = r.chance(0.15) && inputs.devices.length ? { device_id: r.pick(inputs.devices).id } : { nas_ip: r.pick(NAS_IPS) }
  if (inputs.protocol === 'radius') return { username, protocol: 'radius', at, ...target, ...(r.chance(0.7) ? { method: r.pick(['pap', 'chap', 'mschapv2'] as const) } : {}) }
  const k = r.int(4)
  const method = k === 0 ? { method: r.pick(['pap', 'chap', 'mschapv2', 'ascii', 'enable'] as const) } : {}
  if (k === 1) return { username, protocol: 'tacacs', at, ...target, command: r.pick(COMMANDS), ...(r.chance(0.5) ? { priv_lvl: r.pick([1, 7, 15]) } : {}) }
  const service = r.chance(0.5) ? { service: r.pick(['shell', 'ppp', 'junos-exec', 'raccess']) } : {}
  const nas = r.chance(0.3) ? { nas_attributes: r.some([{ name: 'protocol', value: 'ip' }, { name: 'idletime', value: '10' }, { name: 'shell:roles', value: 'x', optional: true }, { name: 'autocmd', value: 'other' }]) } : {}
  return { username, protocol: 'tacacs', at, ...target, ...method, ...service, ...nas }
}

/**
 * The check itself, run by impact.test.ts on its app (one boot for both): for 12 random policies and an
 * edited twin of each, 120 random requests, every field of the two evaluators' answers but the trace.
 */
export async function batchEqualsPolicyTest(t: TestApp): Promise<void> {
  const { identity, tacacs } = t.app.resolveDeps('tacacs', { identity: identityServices.identity, tacacs: tacacsServiceRef })
  // A refused user whose account exists (FreeRADIUS refuses it by name), and one whose account is gone.
  const admin = (await t.app.db.knex('users').first('id', 'username')) as { id: string; username: string }
  const i18n = await createTranslator()
  i18n.addNamespace('aaa-policy', { en: policyEn, ru: policyRu })
  i18n.addNamespace('tacacs', { en: tacacsEn, ru: tacacsRu })
  const say: Record<'en' | 'ru', Say> = { en: (k, v) => i18n.t('en', k, v), ru: (k, v) => i18n.t('ru', k, v) }
  let compared = 0
  let alike = 0
  for (let seed = 1; seed <= 12; seed++) {
    const r = rng(seed * 7919)
    const inputs = randomInputs(r, seed % 3 === 0 ? 'radius' : 'tacacs', admin.username)
    // The pending side of a report: the same profiles (same ids), their command sets' actions flipped;
    // both evaluators share the command decisions of profiles alike, as the report's do.
    const edited: PolicyInputs = { ...inputs, command_sets: inputs.command_sets.map((x, k) => (k % 2 ? x : { ...x, commands: x.commands.map((c) => ({ ...c, action: c.action === 'permit' ? ('deny' as const) : ('permit' as const) })) })) }
    const shared = batchShared()
    const refusedIds = new Map([[admin.username.toLowerCase(), admin.id]])
    const sides = [inputs, edited].map((x) => ({ x, batch: batchEvaluator(x, { tacacs }, refusedIds, shared) }))
    // The impact report's evaluators: reasons kept as phrases, said in the reader's language afterwards.
    const phrased = batchShared()
    const phrasedSides = [inputs, edited].map((x) => batchEvaluator(x, { tacacs }, refusedIds, phrased, PHRASE_SAY))
    await t.app.db.transaction(async (trx) => {
      const data = sides.map((s) => snapshotPolicyData(s.x, { identity, tacacs }, trx))
      for (let i = 0; i < 120; i++) {
        const req = randomRequest(r, inputs, admin.username)
        const answers = []
        for (const k of [0, 1]) {
          const { trace: _a, ...want } = await evaluateWith({ identity, inventory: undefined as never, tacacs, radius: undefined, listRules: async () => [] }, data[k], req)
          const got = sides[k].batch.evaluate(req)
          const { trace: _b, ...rest } = got
          expect(rest, `seed ${seed * 7919} request ${i} side ${k}: ${JSON.stringify(req)}`).to.deep.equal(want)
          answers.push(got)
          // Said afterwards, the phrases read as the policy test's words: in English, and in Russian for a
          // Russian reader (every fourth request: the Russian policy test is a second walk of each).
          const later = phrasedSides[k].evaluate(req)
          for (const lang of i % 4 ? (['en'] as const) : (['en', 'ru'] as const)) {
            const words = traceWords(lang, say[lang])
            const { trace: _c, ...inLang } = lang === 'en' ? { ...want, trace: [] } : await evaluateWith({ identity, inventory: undefined as never, tacacs, radius: undefined, listRules: async () => [] }, data[k], req, words)
            const { trace: _d, ...said } = { ...later, reason: sayPhrases(later.reason, say[lang]), command_decision: later.command_decision && { ...later.command_decision, reason: sayPhrases(later.command_decision.reason, say[lang]) } }
            expect(said, `${lang}: seed ${seed * 7919} request ${i} side ${k}: ${JSON.stringify(req)}`).to.deep.equal(inLang)
          }
        }
        // The report's shortcut for a request answered alike never hides a change.
        const kind = req.protocol === 'radius' ? 'radius_authentication' : req.command !== undefined ? 'tacacs_command' : req.method ? 'tacacs_authentication' : 'tacacs_session'
        const change = changeOf(outcomeOf(kind, answers[0]), outcomeOf(kind, answers[1]))
        if (sameAnswer(kind, answers[0], answers[1])) expect(change, JSON.stringify(req)).to.equal(null)
        if (change === null) alike++
        compared++
      }
    })
  }
  expect(compared).to.equal(12 * 120)
  // Both kinds were seen: requests the edit changes and requests it does not.
  expect(alike).to.be.within(1, compared - 1)
}
