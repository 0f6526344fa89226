/**
 * The AV pairs of a TACACS+ authorization REPLY, computed as tac_plus-ng computes them
 * (author.c `do_author`, the algorithm it inherits from Cisco's tac_plus) from what the NAS sent
 * and what the rendered profile gives:
 *
 * - the profile's `set` pairs are the daemon's mandatory list (`name=value`), its `add` pairs the
 *   unrequested optional list (`name*value`); the renderer writes no `optional` pairs, so the
 *   daemon's "requested optional" list is always empty;
 * - `service`, `protocol` and `cmd` from the NAS pass through unchanged;
 * - a mandatory NAS pair passes when the profile sets exactly that pair; otherwise the
 *   authorization fails (no `attr default = permit` is rendered);
 * - an optional NAS pair is replaced by the profile's mandatory pair of the same name, or deleted
 *   when there is none: either way the reply becomes PASS_REPL and carries the whole list;
 * - then every mandatory pair not yet in the list is added, then every `add` pair;
 * - nothing replaced or deleted: PASS_ADD with the additions only.
 *
 * A command authorization under service shell short-cuts all of this: PASS_ADD, no pairs.
 */
import type { AuthorizationReply, AvPair, ShellAttribute, TacacsProfile } from '../api.js'

const wire = (p: AvPair): string => `${p.name}${p.optional ? '*' : '='}${p.value}`
const isSeparator = (c: string | undefined) => c === '=' || c === '*'

/** `name=value` / `name*value` back to a pair: split at the first separator, as the daemon's lookups do. */
function parse(arg: string): AvPair {
  const at = arg.search(/[=*]/)
  return at < 0 ? { name: arg, value: '' } : { name: arg.slice(0, at), value: arg.slice(at + 1), ...(arg[at] === '*' ? { optional: true } : {}) }
}

/** author.c strcmp_a(na, "service=") and friends: the names equal, either separator. */
const passesThrough = (arg: string) => /^(service|protocol|cmd)[=*]/.test(arg)

/** author.c lookup_attr: a daemon pair with the NAS pair's name (compared byte for byte), whatever its value. */
function sameName(list: (string | null)[], arg: string): string | null {
  const len = arg.search(/[=*]/)
  if (len < 0) return null
  return list.find((d) => d !== null && d.length > len && isSeparator(d[len]) && d.startsWith(arg.slice(0, len))) ?? null
}

/** author.c clear_attrval: the first daemon pair equal to `arg` is used up. */
function useUp(list: (string | null)[], arg: string): void {
  const i = list.indexOf(arg)
  if (i >= 0) list[i] = null
}

/** The daemon's lists for the service asked: shell gets `set priv-lvl` first, then its attributes in order. */
export function profilePairs(profile: Pick<TacacsProfile, 'privilege_level' | 'shell_attributes' | 'services'>, service: string): { mandatory: string[]; added: string[] } | null {
  let attrs: readonly ShellAttribute[]
  let mandatory: string[] = []
  if (service === 'shell') {
    attrs = profile.shell_attributes
    mandatory = [`priv-lvl=${profile.privilege_level}`]
  } else {
    const svc = profile.services.find((s) => s.service === service)
    if (!svc) return null
    attrs = svc.attributes
  }
  for (const a of attrs) if (!a.optional) mandatory.push(wire(a))
  return { mandatory, added: attrs.filter((a) => a.optional).map(wire) }
}

/**
 * The REPLY to an authorization of `service` (no command, or a service other than shell) whose
 * request carried `service=<service>` followed by `nasPairs`, under a profile whose script permits it.
 */
export function authorizationReply(lists: { mandatory: readonly string[]; added: readonly string[] }, service: string, nasPairs: readonly AvPair[]): AuthorizationReply {
  const inArgs = [`service=${service}`, ...nasPairs.map(wire)]
  const mandatory: (string | null)[] = [...lists.mandatory]
  const added: (string | null)[] = [...lists.added]
  const out: string[] = []
  let replaced = 0
  for (const na of inArgs) {
    if (passesThrough(na)) {
      out.push(na)
      continue
    }
    if (na[na.search(/[=*]/)] === '=') {
      // Mandatory from the NAS: the daemon must set exactly this pair (its optional list is empty).
      if (mandatory.includes(na)) out.push(na)
      else return { status: 'fail', attributes: [], refused: parse(na) }
      continue
    }
    // Optional from the NAS: the daemon's mandatory pair of that name replaces it, or it is deleted.
    const da = mandatory.includes(na) ? na : sameName(mandatory, na)
    if (da !== null) out.push(da)
    replaced++
  }
  const inCount = out.length
  for (const a of out) useUp(mandatory, a)
  for (const m of mandatory) if (m !== null) out.push(m)
  for (const a of out) useUp(added, a)
  for (const a of added) if (a !== null) out.push(a)
  if (replaced) return { status: 'pass_repl', attributes: out.map(parse) }
  return { status: 'pass_add', attributes: out.slice(inCount).map(parse) }
}
