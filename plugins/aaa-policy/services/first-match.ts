/**
 * The rules tried in order for the policy test, with the trace the contract asks for: one step per
 * rule tried, up to the one that decides. At 5,000 rules a deep match writes 4,500 steps, so the
 * walk is built for that (issue 12: a deep match was ~6 ms of JavaScript and garbage here alone):
 *
 * - what a rule's step says without knowing the request (its id, name, position, and the reasons
 *   "disabled" and "user is not NAME") is worked out once per list of rules, and those steps are
 *   shared, frozen, between answers: most steps of a long trace are one of them;
 * - the reasons naming the request ("user U is not a member of group G", "device D is not …")
 *   are the request's part joined to the rule's, one string concatenation each.
 *
 * The list is the cache's frozen array (services/cache.ts), the same object while the policy's
 * version is unchanged, so the prepared form is kept beside it in a WeakMap and goes with it.
 * Answers are exactly those of the plain walk (test/policy-test.test.ts, cache.test.ts).
 */
import { sayFrom, type Say, type Static } from '../../../sdk/index.js'
import type { Device } from '../../inventory/api.js'
import type { PolicyRuleView } from '../api.js'
import en from '../locales/en.js'
import type { PolicyTraceStep } from '../schemas/test.js'
import { inTimeWindow, parseClientPrefix, prefixContains, type Prefix } from './conditions.js'

type Step = Static<typeof PolicyTraceStep>

/**
 * The request's part of the conditions (services/conditions.ts): when it is asked about, and the
 * source address the daemon sees (a NAS address, or a device's prefix when no address was given:
 * then a client condition holds only if the whole prefix is inside it).
 */
export interface WalkRequest {
  at: Date
  source: Prefix | null
  sourceText: string
  /**
   * The policy test's `trace: relevant`: leave out the steps of rules whose WHO is another user or a
   * group the user is not in (disabled or not). At 5,000 rules those are nearly all of a deep
   * match's steps, and they say nothing about this user; the walk itself is the same.
   */
  relevantOnly?: boolean
  /**
   * The words of the reasons (the caller's language: the route passes `req.t` once per language,
   * traceWords). The same object for the same language, so the prepared steps are kept per language.
   */
  words?: TraceWords
}

/** A language's trace reasons: `say` keeps the prepared steps of a rule list apart per language. */
export interface TraceWords {
  readonly say: Say
}

/** English from the plugin's own catalogue: the default for tests, the bench and the impact check. */
export const ENGLISH_TRACE: TraceWords = Object.freeze({ say: sayFrom(en) })

const wordsByLang = new Map<string, TraceWords>()

/** One TraceWords a language (two languages: the map stays tiny), so a rule list is prepared once per language. */
export function traceWords(lang: string, say: Say): TraceWords {
  if (lang === 'en') return ENGLISH_TRACE
  let w = wordsByLang.get(lang)
  if (!w) wordsByLang.set(lang, (w = Object.freeze({ say })))
  return w
}

/** A request part's hole in a prepared reason: the reason is split there once, then joined around the part. */
const HOLE = '\u0000'

/** `[before, after]` the request's part in a prepared reason. */
function around(say: Say, key: string, hole: string, vars: Record<string, unknown>): readonly [string, string] {
  const text = say(`aaa-policy:trace.${key}`, { ...vars, [hole]: HOLE })
  const at = text.indexOf(HOLE)
  return at < 0 ? [text, ''] : [text.slice(0, at), text.slice(at + HOLE.length)]
}

/** The user as the walk needs it. */
export interface WalkUser {
  id: string
  username: string
}

interface Prepared {
  readonly rule: PolicyRuleView
  /** The whole step when the request does not change it: a disabled rule, or a user rule for someone else. */
  readonly disabled: Step | null
  readonly whoUserId: string | null
  readonly notThisUser: Step | null
  readonly whoGroupId: string | null
  /** Around "user U": "… is not a member of group G". */
  readonly notInGroup: readonly [string, string]
  readonly whereDeviceId: string | null
  /** Around "device D": "… is not NAME" or "… is not in group G". */
  readonly notHere: readonly [string, string]
  readonly whereGroupId: string | null
  /** A time window, and the whole step for a request outside it (nothing in it depends on the request). */
  readonly window: PolicyRuleView['time_window']
  readonly outsideWindow: Step | null
  /** The NAS address prefixes (the API's `client_prefixes`), parsed; null for none. Around "NAS address A": "… is not in P, Q". */
  readonly prefixes: Prefix[] | null
  readonly notFromHere: readonly [string, string]
}

/** A stored prefix (canonical, checked when written) as a prefix to test against. */
const storedPrefix = (text: string): Prefix[] => {
  const p = parseClientPrefix(text)
  return p.ok ? [p.prefix] : []
}

const step = (rule: PolicyRuleView, matched: boolean, reason: string): Step => ({ rule_id: rule.id, name: rule.name, position: rule.position, enabled: rule.enabled, matched, reason })

const NONE: readonly [string, string] = ['', '']

function prepare(rule: PolicyRuleView, say: Say): Prepared {
  const who = rule.who
  const where = rule.where
  const tr = (key: string, vars?: Record<string, unknown>) => say(`aaa-policy:trace.${key}`, vars)
  return {
    rule,
    disabled: rule.enabled ? null : Object.freeze(step(rule, false, tr('disabled'))),
    whoUserId: who.type === 'user' ? who.user_id : null,
    notThisUser: who.type === 'user' ? Object.freeze(step(rule, false, tr('not_user', { username: who.username }))) : null,
    whoGroupId: who.type === 'group' ? who.group_id : null,
    notInGroup: who.type === 'group' ? around(say, 'not_in_group', 'user', { group: who.group_name }) : NONE,
    whereDeviceId: where.type === 'device' ? where.device_id : null,
    whereGroupId: where.type === 'device_group' ? where.device_group_id : null,
    notHere:
      where.type === 'device'
        ? around(say, 'not_device', 'device', { name: where.device_name })
        : where.type === 'device_group'
          ? around(say, 'not_in_device_group', 'device', { group: where.device_group_name })
          : NONE,
    window: rule.time_window ?? null,
    outsideWindow: rule.time_window ? Object.freeze(step(rule, false, tr('outside_window', { window: rule.time_window.label }))) : null,
    prefixes: rule.client_prefixes?.length ? rule.client_prefixes.flatMap(storedPrefix) : null,
    notFromHere: rule.client_prefixes?.length ? around(say, 'not_from', 'nas', { prefixes: rule.client_prefixes.join(', ') }) : NONE,
  }
}

/** A frozen rule list's prepared steps, per language (the words object). */
const preparedLists = new WeakMap<readonly PolicyRuleView[], Map<TraceWords, readonly Prepared[]>>()

function preparedOf(rules: readonly PolicyRuleView[], words: TraceWords): readonly Prepared[] {
  let byWords = preparedLists.get(rules)
  let out = byWords?.get(words)
  if (!out) {
    out = rules.map((r) => prepare(r, words.say))
    // Only a list nobody can change may be kept: a mutable one could be edited after this.
    if (Object.isFrozen(rules)) {
      if (!byWords) preparedLists.set(rules, (byWords = new Map()))
      byWords.set(words, out)
    }
  }
  return out
}

function matchedReason(rule: PolicyRuleView, user: WalkUser, device: Device, request: WalkRequest, say: Say): string {
  const tr = (key: string, vars?: Record<string, unknown>) => say(`aaa-policy:trace.${key}`, vars)
  if (rule.is_default) return tr('matched_default')
  const username = user.username
  const who = rule.who.type === 'group' ? tr('who_group', { username, group: rule.who.group_name }) : rule.who.type === 'user' ? tr('who_user', { username }) : tr('any_user')
  const where =
    rule.where.type === 'device_group'
      ? tr('where_group', { device: device.name, group: rule.where.device_group_name })
      : rule.where.type === 'device'
        ? tr('where_device', { device: device.name })
        : tr('any_device')
  // "NAS address", not "client": a TACACS+ engineer reads client as the user's terminal; this is the device's (NAS's) address.
  const client = rule.client_prefixes?.length ? tr('client', { address: request.sourceText, prefixes: rule.client_prefixes.join(', ') }) : ''
  const when = rule.time_window ? tr('when', { window: rule.time_window.label }) : ''
  return tr('matched', { who, where, client, when })
}

/**
 * Every rule tried, in order, into `trace`; the first one that matches, or null. A disabled rule is
 * skipped; WHO is checked before WHERE, then the NAS address, then the time window, so a rule
 * failing several gives the first one's reason. A rule whose conditions do not hold does not match
 * and the walk goes on, as in both daemons (the rendered condition is false, so no verdict).
 */
export function firstMatch(
  rules: readonly PolicyRuleView[],
  user: WalkUser,
  device: Device,
  groupIds: ReadonlySet<string>,
  deviceGroups: ReadonlySet<string>,
  trace: Step[],
  request: WalkRequest = { at: new Date(), source: null, sourceText: device.address },
): PolicyRuleView | null {
  const words = request.words ?? ENGLISH_TRACE
  const say = words.say
  const userPart = say('aaa-policy:trace.user', { username: user.username })
  const devicePart = say('aaa-policy:trace.device', { device: device.name })
  const clientPart = say('aaa-policy:trace.nas', { address: request.sourceText })
  const all = !request.relevantOnly
  // WHO: the rule's user is this one, or its group one of the user's, or it names nobody (the default rule).
  const concernsUser = (p: Prepared) => (p.whoUserId === null ? p.whoGroupId === null || groupIds.has(p.whoGroupId) : p.whoUserId === user.id)
  for (const p of preparedOf(rules, words)) {
    if (p.disabled) {
      if (all || concernsUser(p)) trace.push(p.disabled)
      continue
    }
    if (p.notThisUser && p.whoUserId !== user.id) {
      if (all) trace.push(p.notThisUser)
      continue
    }
    const rule = p.rule
    if (p.whoGroupId !== null && !groupIds.has(p.whoGroupId)) {
      if (all) trace.push(step(rule, false, p.notInGroup[0] + userPart + p.notInGroup[1]))
      continue
    }
    if ((p.whereDeviceId !== null && p.whereDeviceId !== device.id) || (p.whereGroupId !== null && !deviceGroups.has(p.whereGroupId))) {
      trace.push(step(rule, false, p.notHere[0] + devicePart + p.notHere[1]))
      continue
    }
    if (p.prefixes !== null && !(request.source && p.prefixes.some((q) => prefixContains(q, request.source!)))) {
      trace.push(step(rule, false, p.notFromHere[0] + clientPart + p.notFromHere[1]))
      continue
    }
    if (p.outsideWindow && !inTimeWindow(p.window!, request.at)) {
      trace.push(p.outsideWindow)
      continue
    }
    trace.push(step(rule, true, matchedReason(rule, user, device, request, say)))
    return rule
  }
  return null
}
