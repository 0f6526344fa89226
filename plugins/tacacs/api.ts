/**
 * The tacacs plugin's contract: TACACS+ profiles, command sets, the command
 * decision (identical to what the rendered tac_plus-ng profile decides), and
 * the rendering of one policy rule. The AAA policy depends on this plugin and
 * hands it its rules through `registerPolicySource`, so the tac_plus-ng
 * renderer can write the ruleset without this plugin depending on the policy.
 */
import type { Knex } from 'knex'
import { createServiceRef, type ReferenceTarget, type Say } from '../../sdk/index.js'

export interface ArgumentRule {
  /** exact: the arguments equal `value`; prefix: they start with it; regex: the pattern matches them whole. */
  match_type: 'exact' | 'prefix' | 'regex'
  value: string
}

export interface Command {
  /** The command word(s) as typed on the device: `show`, `configure terminal`. */
  command: string
  action: 'permit' | 'deny'
  /** The entry applies only at this request privilege level or above; absent: any level. */
  min_privilege_level?: number
  /** Empty: any arguments. Otherwise the entry matches when any rule matches. */
  arguments: ArgumentRule[]
}

export interface CommandSet {
  id: string
  name: string
  description: string | null
  commands: Command[]
  created_at: string
  updated_at: string
}

export interface ShellAttribute {
  /** A TACACS+ attribute of service shell (`idletime`, `timeout`, `autocmd`, or a vendor AV pair name such as `shell:roles`). */
  name: string
  value: string
  /** true: sent as an optional AV pair (`name*value`, tac_plus-ng `add`); absent or false: mandatory (`name=value`, `set`). */
  optional?: boolean
}

/** A service other than shell that the profile authorizes, with the attributes it returns. */
export interface ProfileService {
  /** As the NAS sends it (`junos-exec`, `fortigate`, `PaloAlto`, `ciscowlc`); compared case-sensitively. */
  service: string
  attributes: ShellAttribute[]
}

/** How the profile's users enable: refused, with their login password, or with the profile's enable secret. */
export type EnableMode = 'none' | 'login' | 'secret'

export interface TacacsProfile {
  id: string
  name: string
  description: string | null
  /** Privilege level 0–15 given at the start of an exec shell. */
  privilege_level: number
  shell_attributes: ShellAttribute[]
  /** Applied in this order; the first matching command of the first set that has one decides. */
  command_set_ids: string[]
  /** For a command no set matches. */
  default_action: 'permit' | 'deny'
  /** Services other than shell, permitted with their attributes; any other service is denied. */
  services: ProfileService[]
  /** TACACS+ enable (authentication service enable): none refuses it. */
  enable_mode: EnableMode
  /** The level enable grants up to (default 15); a NAS asking for a higher one is refused. */
  enable_privilege_level: number
  /** An enable secret is stored (its SHA-512 crypt verifier only; never returned). */
  has_enable_secret: boolean
  created_at: string
  updated_at: string
}

/** One AV pair as the NAS sends or receives it: `name=value` (mandatory) or `name*value` (optional). */
export interface AvPair {
  name: string
  value: string
  optional?: boolean
}

export type AuthorizationReply =
  | { status: 'pass_add' | 'pass_repl'; attributes: AvPair[] }
  | { status: 'fail'; attributes: AvPair[]; /** The NAS pair the profile does not set. */ refused: AvPair }

/**
 * What tac_plus-ng can be given of a kept (CHAP) password, exactly: no NUL (ends the C string), no
 * `${` (replaced from the daemon's environment in a quoted value). The renderer and the policy test
 * both decide by these.
 */
export const tacacsChapWritable = (password: string): boolean => !password.includes('\0') && !password.includes('${')

/** …and that its MS-CHAP computes the NT hash of correctly: only characters of the Basic Multilingual Plane (misc/utf16.c). */
export const tacacsMschapWritable = (password: string): boolean => tacacsChapWritable(password) && !/[\u{10000}-\u{10FFFF}]/u.test(password)

export interface CommandDecision {
  decision: 'permit' | 'deny'
  /** The command entry that decided, or null when the default action did. */
  matched: { command_set_id: string; command_set_name: string; index: number; command: string } | null
  /** A sentence for the policy test's explanation. */
  reason: string
}

import type { PolicyRuleView, PolicySource } from '../../sdk/index.js'
/** The policy's rules as the renderers see them: defined once in the SDK, shared with the radius plugin. */
export type { PolicyRuleView, PolicySource }

type Db = Knex | Knex.Transaction

export interface TacacsService {
  getProfile(id: string, db?: Db): Promise<TacacsProfile | null>
  listProfiles(db?: Db): Promise<TacacsProfile[]>
  getCommandSet(id: string, db?: Db): Promise<CommandSet | null>
  listCommandSets(db?: Db): Promise<CommandSet[]>
  /**
   * Decide a command line (`show running-config`) as the rendered profile does in tac_plus-ng:
   * the profile's command sets in order, each set's commands in order, first match wins,
   * otherwise the profile's default action. `privLvl`: the request's privilege level (default the
   * profile's own, what the NAS sends after the exec start); entries with a higher
   * `min_privilege_level` are skipped. `say`: the reason's language (a route's `req.t`); English without.
   */
  authorizeCommand(profile: TacacsProfile, commandLine: string, db?: Db, privLvl?: number, say?: Say): Promise<CommandDecision>
  /** `authorizeCommand` with the command sets given (the profile's, in its order): the policy test of a deployed release passes the sets it was rendered from. */
  decideCommand(profile: TacacsProfile, sets: readonly CommandSet[], commandLine: string, privLvl?: number, say?: Say): CommandDecision
  /**
   * The AV pairs of the authorization REPLY tac_plus-ng sends for `service` (no command) under this
   * profile, when the NAS sent `service=<service>` then `nasPairs`: PASS_ADD with the additions,
   * PASS_REPL with the whole list, or FAIL on a mandatory NAS pair the profile does not set
   * (services/author-reply.ts). Null when the profile does not answer the service (denied).
   */
  authorizationReply(profile: TacacsProfile, service: string, nasPairs: readonly AvPair[]): AuthorizationReply | null
  /** The tac_plus-ng text of one ruleset rule: the very code the full configuration uses. */
  renderRule(rule: PolicyRuleView, profileName: string | null): string
  /** The tac_plus-ng text of one profile (with its command sets compiled): the very code the full configuration uses. */
  renderProfile(profile: TacacsProfile, db?: Db): Promise<string>
  /** The secret values `renderProfile` writes into the text (the enable secret's verifier): the renderer declares them (RenderedFile.secrets), a preview masks them. */
  profileSecrets(profile: TacacsProfile, db?: Db): Promise<string[]>
  registerPolicySource(source: PolicySource): void
  /**
   * TACACS+ profiles as other plugins reference them (sdk/references.ts): ids checked and locked,
   * names, and guards consulted when a profile is deleted or renamed. A profile delete is always
   * allowed: only `clear` guards are accepted.
   */
  references: { tacacs_profile: ReferenceTarget }
}

export const tacacsServiceRef = createServiceRef<TacacsService>({ id: 'tacacs.service' })
