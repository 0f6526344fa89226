/** /tacacs/profiles: CRUD of TACACS+ profiles (privilege level, shell attributes, ordered command sets) and their references. */
import { CommonErrors, defineRoute, sha512Crypt, ErrorBody, givenFields, jsonText, paginate, PortcullisError, reply, uniqueColumn, type UpdateOf, lockForChange, orNotFound } from '../../../sdk/index.js'
import type { EnableMode, ProfileService, ShellAttribute } from '../api.js'
import { TacacsErrors } from '../errors.js'
import { TACACS_READ, TACACS_WRITE } from '../permissions.js'
import { ReferenceReport } from '../schemas/common.js'
import { MAX_AV_PAIR_BYTES, TacacsProfileCreate, TacacsProfileListQuery, TacacsProfilePage, TacacsProfileParams, TacacsProfileResponse, TacacsProfileUpdate } from '../schemas/profiles.js'
import { checkCommandSetIds, getProfile, selectProfiles, toProfile, writeProfileSets } from '../services/profile-store.js'
import type { ProfileTable } from '../tables.js'
import type { TacacsRouteDeps } from './deps.js'

/** Attributes of the request itself, which a profile cannot set. */
const REQUEST_ATTRIBUTES = new Set(['service', 'cmd', 'cmd-arg', 'protocol'])

/** Reserved names, and every pair within the 255 bytes of one TACACS+ argument. `at`: the list's field. */
function checkAttributes(attrs: readonly ShellAttribute[] | undefined, at: string, shell: boolean) {
  for (const [i, a] of (attrs ?? []).entries()) {
    const name = a.name.toLowerCase()
    const field = `${at}[${i}].name`
    if (shell && name === 'priv-lvl') throw TacacsErrors.shellAttributePrivLvl({ field })
    if (REQUEST_ATTRIBUTES.has(name)) throw TacacsErrors.shellAttributeReserved({ field, vars: { name: a.name } })
    const bytes = Buffer.byteLength(a.name) + 1 + Buffer.byteLength(a.value)
    if (bytes > MAX_AV_PAIR_BYTES) throw TacacsErrors.attributeTooLong({ field: `${at}[${i}].value`, vars: { bytes, max: MAX_AV_PAIR_BYTES } })
  }
}

function checkServices(services: readonly ProfileService[] | undefined) {
  const seen = new Set<string>()
  for (const [i, s] of (services ?? []).entries()) {
    const field = `services[${i}].service`
    if (s.service === 'shell') throw TacacsErrors.serviceShell({ field })
    if (seen.has(s.service)) throw TacacsErrors.serviceDuplicate({ field, vars: { service: s.service } })
    seen.add(s.service)
    checkAttributes(s.attributes, `services[${i}].attributes`, false)
  }
}

function checkBody(b: TacacsProfileUpdate) {
  checkAttributes(b.shell_attributes, 'shell_attributes', true)
  checkServices(b.services)
}

/**
 * The enable columns a write stores: the secret only as its SHA-512 crypt verifier, kept exactly
 * while the mode is `secret` (a mode away from it drops the verifier; the table's CHECK agrees).
 */
function enableColumns(b: TacacsProfileUpdate, stored: { mode: EnableMode; hasSecret: boolean }): { enable_mode?: EnableMode; enable_secret?: string | null } {
  const mode = b.enable_mode ?? stored.mode
  if (b.enable_secret !== undefined && mode !== 'secret') throw TacacsErrors.enableSecretUnused({ field: 'enable_secret' })
  if (mode === 'secret' && b.enable_secret === undefined && !stored.hasSecret) throw TacacsErrors.enableSecretRequired({ field: 'enable_secret' })
  const out: { enable_mode?: EnableMode; enable_secret?: string | null } = {}
  if (b.enable_mode !== undefined) out.enable_mode = b.enable_mode
  if (b.enable_secret !== undefined) out.enable_secret = sha512Crypt(b.enable_secret)
  else if (mode !== 'secret') out.enable_secret = null
  return out
}

/** Ids as PostgreSQL returns them, so that `A…` and `a…` are one id (and, given both, a duplicate: 422). */
function lowerIds(ids: string[] | undefined): string[] | undefined {
  const out = ids?.map((id) => id.toLowerCase())
  if (out && new Set(out).size !== out.length) throw new PortcullisError(422, 'VALIDATION_FAILED', 'core:validation.uniqueItems', { field: 'command_set_ids' })
  return out
}

/** Case-insensitive; the unique index is the last word when two requests race past the check. */
const names = uniqueColumn({ table: 'tacacs_profiles', taken: TacacsErrors.profileNameTaken })

const REFS = 'Every id in `command_set_ids` must name a command set (422 REFERENCE_NOT_FOUND at `command_set_ids[i]`); a name taken (case-insensitively) answers 409 TACACS_PROFILE_NAME_TAKEN.'

export function profileRoutes(d: TacacsRouteDeps) {
  const { knex, service } = d
  return [
    defineRoute({
      method: 'GET',
      path: '/tacacs/profiles',
      permission: TACACS_READ,
      summary: 'List TACACS+ profiles',
      description: '`search` matches name and description (case-insensitive substring).',
      tags: ['tacacs'],
      schema: { query: TacacsProfileListQuery, response: { 200: TacacsProfilePage } },
      handler: async ({ query }) =>
        paginate(query, {
          base: () => selectProfiles(knex),
          searchColumns: ['tacacs_profiles.name', 'tacacs_profiles.description'],
          sortColumns: { name: 'tacacs_profiles.name', created_at: 'tacacs_profiles.created_at', updated_at: 'tacacs_profiles.updated_at' },
          defaultSort: 'name',
          defaultPerPage: 20,
          tieBreaker: 'tacacs_profiles.id',
          map: toProfile,
        }),
    }),
    defineRoute({
      method: 'POST',
      path: '/tacacs/profiles',
      permission: TACACS_WRITE,
      summary: 'Create a TACACS+ profile',
      description: `Defaults: \`privilege_level\` 1, \`default_action\` deny, no shell attributes, no other services, no command sets, \`enable_mode\` none (enable refused), \`enable_privilege_level\` 15. ${REFS}`,
      tags: ['tacacs'],
      schema: { body: TacacsProfileCreate, response: { 201: TacacsProfileResponse, 409: ErrorBody } },
      handler: async (req) => {
        const b = req.body
        checkBody(b)
        const enable = enableColumns(b, { mode: 'none', hasSecret: false })
        const setIds = lowerIds(b.command_set_ids) ?? []
        return req.transaction(async (trx) => {
          await names.assertFree(trx, b.name)
          await checkCommandSetIds(trx, setIds)
          const [{ id }] = await trx('tacacs_profiles')
            .insert({
              name: b.name,
              description: b.description ?? null,
              privilege_level: b.privilege_level ?? 1,
              shell_attributes: jsonText(b.shell_attributes ?? []),
              services: jsonText(b.services ?? []),
              default_action: b.default_action ?? 'deny',
              enable_privilege_level: b.enable_privilege_level ?? 15,
              ...enable,
            })
            .returning('id')
            .catch(names.onViolation(b.name))
          await writeProfileSets(trx, id, setIds)
          const created = (await getProfile(trx, id))!
          await req.audit({ action: 'tacacs.profile.create', resourceType: 'tacacs_profile', resourceId: id, after: created }, trx)
          return created
        })
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/tacacs/profiles/{profile_id}',
      permission: TACACS_READ,
      summary: 'Get a TACACS+ profile',
      tags: ['tacacs'],
      schema: { params: TacacsProfileParams, response: { 200: TacacsProfileResponse, 404: ErrorBody } },
      handler: async ({ params }) => {
        return orNotFound(await getProfile(knex, params.profile_id), 'profile_id')
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/tacacs/profiles/{profile_id}',
      permission: TACACS_WRITE,
      summary: 'Change a TACACS+ profile',
      description: `Partial: only the fields given change; \`shell_attributes\`, \`services\` and \`command_set_ids\` replace the whole list. ${REFS}`,
      tags: ['tacacs'],
      schema: { params: TacacsProfileParams, body: TacacsProfileUpdate, response: { 200: TacacsProfileResponse, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        const b = req.body
        checkBody(b)
        const setIds = lowerIds(b.command_set_ids)
        return req.transaction(async (trx) => {
          const before = await lockForChange(trx, 'tacacs_profiles', req.params.profile_id, 'profile_id', getProfile)
          if (b.name !== undefined) await names.assertFree(trx, b.name, before.id)
          if (setIds) await checkCommandSetIds(trx, setIds)
          const enable = enableColumns(b, { mode: before.enable_mode, hasSecret: before.has_enable_secret })
          const cols: UpdateOf<typeof ProfileTable> = { updated_at: new Date(), ...givenFields(b, ['name', 'description', 'privilege_level', 'default_action', 'enable_privilege_level']), ...enable }
          if (b.shell_attributes !== undefined) cols.shell_attributes = jsonText(b.shell_attributes)
          if (b.services !== undefined) cols.services = jsonText(b.services)
          await trx('tacacs_profiles').where({ id: before.id }).update(cols).catch(names.onViolation(b.name ?? before.name))
          if (b.name !== undefined && b.name !== before.name) await service.references.tacacs_profile.renamed([before.id], trx)
          if (setIds) await writeProfileSets(trx, before.id, setIds)
          const after = (await getProfile(trx, before.id))!
          await req.audit({ action: 'tacacs.profile.update', resourceType: 'tacacs_profile', resourceId: before.id, before, after }, trx)
          return after
        })
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/tacacs/profiles/{profile_id}',
      permission: TACACS_WRITE,
      summary: 'Delete a TACACS+ profile',
      description:
        'Always allowed: AAA policy rules that assign the profile lose it (their TACACS+ profile becomes null, see GET …/references), and its command sets stay. A rule without a TACACS+ profile denies TACACS+ access.',
      tags: ['tacacs'],
      schema: { params: TacacsProfileParams, response: { 204: null, 404: ErrorBody } },
      handler: async (req) => {
        await req.transaction(async (trx) => {
          const before = await lockForChange(trx, 'tacacs_profiles', req.params.profile_id, 'profile_id', getProfile)
          // The referring plugins' guards clear their references here (sdk/references.ts); the target admits no refusing guard.
          await service.references.tacacs_profile.beforeDelete([before.id], trx)
          await trx('tacacs_profiles').where({ id: before.id }).delete()
          await req.audit({ action: 'tacacs.profile.delete', resourceType: 'tacacs_profile', resourceId: before.id, before }, trx)
        })
        return reply({ status: 204 })
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/tacacs/profiles/{profile_id}/references',
      permission: TACACS_READ,
      summary: 'What refers to a TACACS+ profile',
      description:
        '`blocking` is always empty: nothing keeps a profile from being deleted. `auto_clearing`: the AAA policy rules that assign the profile (`type: aaa_policy_rule`); deleting the profile sets their TACACS+ profile to null. Empty while no AAA policy is loaded.',
      tags: ['tacacs'],
      schema: { params: TacacsProfileParams, response: { 200: ReferenceReport, 404: ErrorBody } },
      handler: async ({ params }) => {
        if (!(await knex('tacacs_profiles').where({ id: params.profile_id }).first('id'))) throw CommonErrors.notFound({ field: 'profile_id' })
        return service.references.tacacs_profile.report([params.profile_id], knex)
      },
    }),
  ]
}
