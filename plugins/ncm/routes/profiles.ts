/** Command profiles: the built-in ones (read only) and custom ones. Every pattern is checked as a safe regex. */
import type { Knex } from 'knex'
import { defineRoute, ErrorBody, jsonText, reply, uniqueColumn, type RouteDefinition } from '../../../sdk/index.js'
import { NcmErrors } from '../errors.js'
import { NCM_MANAGE, NCM_READ } from '../permissions.js'
import { Profile, ProfileCreate, ProfileList, ProfileParams, ProfileUpdate } from '../schemas/profiles.js'
import type { NcmContext } from '../services/context.js'
import { builtinProfile } from '../services/profiles/builtin.js'
import { allProfiles, checkProfilePatterns, getProfile, profileOfRow } from '../services/profiles/store.js'
import type { ProfileRow } from '../tables.js'

export function profileRoutes(c: NcmContext): RouteDefinition[] {
  const knex = c.database.knex
  const names = uniqueColumn({ table: 'ncm_profiles', taken: NcmErrors.profileNameTaken, index: 'ncm_profiles_name_lower' })
  const builtinName = (name: string) => {
    if (['cisco_ios', 'cisco_nxos', 'juniper_junos', 'arista_eos', 'aruba_aoscx', 'hpe_procurve', 'mikrotik_routeros'].includes(name.toLowerCase())) throw NcmErrors.profileNameTaken({ field: 'name', vars: { name } })
  }
  const custom = async (trx: Knex.Transaction, id: string): Promise<ProfileRow> => {
    if (builtinProfile(id)) throw NcmErrors.profileBuiltin({ field: 'profile_id' })
    const row = await trx('ncm_profiles').where({ id }).forUpdate().first()
    if (!row) throw NcmErrors.profileNotFound({ field: 'profile_id' })
    return row
  }
  const columns = (b: Partial<ReturnType<typeof profileOfRow>>) => {
    const out: Record<string, unknown> = {}
    for (const k of ['name', 'description', 'mode', 'prompt', 'login_prompt', 'login_answer', 'enable_command', 'enable_prompt', 'command', 'pager_pattern', 'pager_answer', 'command_timeout_seconds', 'legacy_algorithms'] as const) if (b[k] !== undefined) out[k] = b[k]
    for (const k of ['pre_commands', 'strip_lines', 'secret_lines'] as const) if (b[k] !== undefined) out[k] = jsonText(b[k])
    return out
  }
  return [
    defineRoute({
      method: 'GET',
      path: '/ncm/profiles',
      permission: NCM_READ,
      summary: 'List command profiles (built-in, then custom)',
      tags: ['ncm'],
      schema: { response: { 200: ProfileList } },
      handler: async () => ({ items: await allProfiles(knex) }),
    }),
    defineRoute({
      method: 'GET',
      path: '/ncm/profiles/{profile_id}',
      permission: NCM_READ,
      summary: 'A command profile',
      tags: ['ncm'],
      schema: { params: ProfileParams, response: { 200: Profile, 404: ErrorBody } },
      handler: async ({ params }) => {
        const p = await getProfile(knex, params.profile_id)
        if (!p) throw NcmErrors.profileNotFound({ field: 'profile_id' })
        return p
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/ncm/profiles',
      permission: NCM_MANAGE,
      summary: 'Create a custom command profile',
      description: '422 NCM_REGEX_UNSAFE at the pattern the safe-regex dialect refuses (e.g. `strip_lines[2]`).',
      tags: ['ncm'],
      schema: { body: ProfileCreate, response: { 201: Profile, 409: ErrorBody, 422: ErrorBody } },
      handler: async (req) =>
        req.transaction(async (trx) => {
          const b = req.body
          checkProfilePatterns(b)
          builtinName(b.name)
          await names.assertFree(trx, b.name)
          const [row] = await trx('ncm_profiles')
            .insert({ ...columns(b), name: b.name, prompt: b.prompt, command: b.command, pre_commands: jsonText(b.pre_commands ?? []), strip_lines: jsonText(b.strip_lines ?? []), secret_lines: jsonText(b.secret_lines ?? []) } as never)
            .returning('*')
            .catch(names.onViolation(b.name))
          const view = profileOfRow(row)
          await req.audit({ action: 'ncm_profile.create', resourceType: 'ncm_profile', resourceId: row.id, after: view }, trx)
          return reply({ status: 201, body: view })
        }),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/ncm/profiles/{profile_id}',
      permission: NCM_MANAGE,
      summary: 'Change a custom command profile',
      description: '409 NCM_PROFILE_BUILTIN for a built-in one.',
      tags: ['ncm'],
      schema: { params: ProfileParams, body: ProfileUpdate, response: { 200: Profile, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody } },
      handler: async (req) =>
        req.transaction(async (trx) => {
          const before = await custom(trx, req.params.profile_id)
          const b = req.body
          checkProfilePatterns(b)
          if (b.name !== undefined) {
            builtinName(b.name)
            await names.assertFree(trx, b.name, before.id)
          }
          const [row] = await trx('ncm_profiles')
            .where({ id: before.id })
            .update({ ...columns(b), updated_at: new Date() } as never)
            .returning('*')
            .catch(names.onViolation(b.name ?? before.name))
          await req.audit({ action: 'ncm_profile.update', resourceType: 'ncm_profile', resourceId: row.id, before: profileOfRow(before), after: profileOfRow(row) }, trx)
          return profileOfRow(row)
        }),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/ncm/profiles/{profile_id}',
      permission: NCM_MANAGE,
      summary: 'Delete a custom command profile',
      description: '409 NCM_PROFILE_BUILTIN for a built-in one; 409 NCM_PROFILE_IN_USE while a schedule or device override names it.',
      tags: ['ncm'],
      schema: { params: ProfileParams, response: { 204: null, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) =>
        req.transaction(async (trx) => {
          const before = await custom(trx, req.params.profile_id)
          const schedules = await trx('ncm_schedules').where({ profile_id: before.id }).select('id')
          const devices = await trx('ncm_devices').where({ profile_id: before.id }).select('device_id')
          if (schedules.length || devices.length) {
            const list = [...schedules.map((s) => `schedule ${s.id}`), ...devices.map((d) => `device ${d.device_id}`)].slice(0, 20).join(', ')
            throw NcmErrors.profileInUse({ field: 'profile_id', vars: { referrers: list } })
          }
          await trx('ncm_profiles').where({ id: before.id }).delete()
          await req.audit({ action: 'ncm_profile.delete', resourceType: 'ncm_profile', resourceId: before.id, before: profileOfRow(before) }, trx)
        }),
    }),
  ] as RouteDefinition[]
}
