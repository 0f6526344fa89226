/** Command profiles: the built-in ones (code) and the custom ones (ncm_profiles), read alike. */
import type { Knex } from 'knex'
import type { CollectorProfile } from '../../../../sdk/collector-protocol.js'
import { checkSafeRegex } from '../../../../sdk/safe-regex.js'
import { phrase } from '../../../../sdk/say.js'
import { NcmErrors } from '../../errors.js'
import type { ProfileRow } from '../../tables.js'
import { BUILTIN_PROFILES, builtinProfile } from './builtin.js'
import type { Profile } from './types.js'

type Db = Knex | Knex.Transaction

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export const profileOfRow = (r: ProfileRow): Profile => ({
  id: r.id,
  name: r.name,
  description: r.description,
  builtin: false,
  mode: r.mode,
  prompt: r.prompt,
  login_prompt: r.login_prompt,
  login_answer: r.login_answer,
  pre_commands: r.pre_commands,
  enable_command: r.enable_command,
  enable_prompt: r.enable_prompt,
  command: r.command,
  pager_pattern: r.pager_pattern,
  pager_answer: r.pager_answer,
  command_timeout_seconds: r.command_timeout_seconds,
  legacy_algorithms: r.legacy_algorithms,
  strip_lines: r.strip_lines,
  secret_lines: r.secret_lines,
})

export async function getProfile(db: Db, id: string): Promise<Profile | null> {
  const b = builtinProfile(id.toLowerCase())
  if (b) return b
  if (!UUID.test(id)) return null
  const row = await db('ncm_profiles').where({ id }).first()
  return row ? profileOfRow(row) : null
}

export async function allProfiles(db: Db): Promise<Profile[]> {
  const custom = (await db('ncm_profiles').orderBy('name')).map(profileOfRow)
  return [...BUILTIN_PROFILES, ...custom]
}

/** What the collector is sent: no strip or secret lines (the core applies them). */
export const collectorProfile = (p: Profile): CollectorProfile => ({
  id: p.id,
  name: p.name,
  mode: p.mode,
  prompt: p.prompt,
  login_prompt: p.login_prompt,
  login_answer: p.login_answer,
  pre_commands: p.pre_commands,
  enable_command: p.enable_command,
  enable_prompt: p.enable_prompt,
  command: p.command,
  pager_pattern: p.pager_pattern,
  pager_answer: p.pager_answer,
  command_timeout_seconds: p.command_timeout_seconds,
  legacy_algorithms: p.legacy_algorithms,
})

/** 422 NCM_REGEX_UNSAFE at the first field (`strip_lines[2]`) whose pattern the safe-regex dialect refuses, saying why in the caller's language (the compliance rules' words). */
export function checkProfilePatterns(p: Partial<Pick<Profile, 'prompt' | 'login_prompt' | 'enable_prompt' | 'pager_pattern' | 'strip_lines' | 'secret_lines'>>): void {
  const one = (field: string, pattern: string | null | undefined) => {
    if (pattern === null || pattern === undefined) return
    const problem = checkSafeRegex(pattern, { allowSlash: true })
    if (problem) throw NcmErrors.regexUnsafe({ field, vars: { reason: phrase(`ncm:errors.rule_regex.${problem}`) } })
  }
  one('prompt', p.prompt)
  one('login_prompt', p.login_prompt)
  one('enable_prompt', p.enable_prompt)
  one('pager_pattern', p.pager_pattern)
  p.strip_lines?.forEach((x, i) => one(`strip_lines[${i}]`, x))
  p.secret_lines?.forEach((x, i) => one(`secret_lines[${i}]`, x))
}
