/** /nac/authorization-profiles: what an accepted endpoint gets (VLAN, ACLs, vendor attributes, timers), or a deny. */
import { CommonErrors, defineRoute, ErrorBody, givenFields, lockForChange, orNotFound, paginate, referrerList, reply, uniqueColumn } from '../../../sdk/index.js'
import { NacErrors as E } from '../errors.js'
import { NAC_POLICY_READ, NAC_POLICY_WRITE } from '../permissions.js'
import { NacReferenceReport } from '../schemas/common.js'
import {
  AuthorizationProfileCreate,
  AuthorizationProfileListQuery,
  AuthorizationProfileListResponse,
  AuthorizationProfileParams,
  AuthorizationProfileResponse,
  AuthorizationProfileUpdate,
} from '../schemas/profiles.js'
import { RULES } from '../services/policy-order.js'
import { ensurePortalKey } from '../services/portal-redirect.js'
import { loadProfile, profileColumns, PROFILES, toProfile } from '../services/profiles.js'
import type { NacRouteDeps } from './deps.js'

const RESOURCE = 'nac_authorization_profile'

const names = uniqueColumn({ table: PROFILES, taken: E.profileNameTaken, index: 'nac_authorization_profiles_name_unique' })

const CHECKS =
  'Checked as a whole: a VLAN out of 1–4094 or malformed answers 422 VLAN_INVALID; a value with a quote, backslash, control character, `%`, `${` or brace 422 VALIDATION_FAILED at its field (`cisco_acl[i]` for an ACL line); a deny with attributes, a redirect without its ACL (or the reverse), `reauthenticate` without `session_timeout`: 422 at the field. Nothing is written then.'

export function profileRoutes(d: NacRouteDeps) {
  const { knex } = d
  return [
    defineRoute({
      method: 'GET',
      path: '/nac/authorization-profiles',
      permission: NAC_POLICY_READ,
      summary: 'List authorization profiles',
      description: '`search` matches name and description; `deny` filters deny profiles in or out.',
      tags: ['nac'],
      schema: { query: AuthorizationProfileListQuery, response: { 200: AuthorizationProfileListResponse } },
      handler: async ({ query }) =>
        paginate(query, {
          base: () => knex(PROFILES).select('*'),
          equals: { deny: `${PROFILES}.deny` },
          searchColumns: [`${PROFILES}.name`, `${PROFILES}.description`],
          sortColumns: { name: `${PROFILES}.name`, created_at: `${PROFILES}.created_at`, updated_at: `${PROFILES}.updated_at` },
          defaultSort: 'name',
          defaultPerPage: 20,
          tieBreaker: `${PROFILES}.id`,
          map: toProfile,
        }),
    }),
    defineRoute({
      method: 'POST',
      path: '/nac/authorization-profiles',
      permission: NAC_POLICY_WRITE,
      summary: 'Create an authorization profile',
      description: `Name taken (case-insensitively): 409 AUTHORIZATION_PROFILE_NAME_TAKEN. ${CHECKS}`,
      tags: ['nac'],
      schema: { body: AuthorizationProfileCreate, response: { 201: AuthorizationProfileResponse, 409: ErrorBody } },
      handler: async (req) => {
        const b = req.body
        const cols = profileColumns(b, null)
        return req.transaction(async (trx) => {
          await names.assertFree(trx, b.name)
          if (cols.portal_redirect) await ensurePortalKey(d.settings, trx)
          const [{ id }] = await trx(PROFILES)
            .insert({ name: b.name, description: b.description ?? null, ...cols, cisco_acl: [...cols.cisco_acl] })
            .returning('id')
            .catch(names.onViolation(b.name))
          const created = (await loadProfile(trx, id))!
          await req.audit({ action: `${RESOURCE}.create`, resourceType: RESOURCE, resourceId: id, after: created }, trx)
          return created
        })
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/nac/authorization-profiles/{profile_id}',
      permission: NAC_POLICY_READ,
      summary: 'Get an authorization profile',
      tags: ['nac'],
      schema: { params: AuthorizationProfileParams, response: { 200: AuthorizationProfileResponse, 404: ErrorBody } },
      handler: async ({ params }) => orNotFound(await loadProfile(knex, params.profile_id), 'profile_id'),
    }),
    defineRoute({
      method: 'PUT',
      path: '/nac/authorization-profiles/{profile_id}',
      permission: NAC_POLICY_WRITE,
      summary: 'Change an authorization profile',
      description: `Partial: only the fields given change; \`null\` clears a field. The rules giving the profile give the change from the next deploy. ${CHECKS}`,
      tags: ['nac'],
      schema: { params: AuthorizationProfileParams, body: AuthorizationProfileUpdate, response: { 200: AuthorizationProfileResponse, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        const b = req.body
        const id = req.params.profile_id
        return req.transaction(async (trx) => {
          const before = await lockForChange(trx, PROFILES, id, 'profile_id', loadProfile)
          const cols = profileColumns(b, before)
          if (b.name !== undefined) await names.assertFree(trx, b.name, id)
          if (cols.portal_redirect) await ensurePortalKey(d.settings, trx)
          await trx(PROFILES)
            .where({ id })
            .update({ ...givenFields(b, ['name', 'description']), ...cols, cisco_acl: [...cols.cisco_acl], updated_at: new Date() })
            .catch(names.onViolation(b.name ?? before.name))
          const after = (await loadProfile(trx, id))!
          await req.audit({ action: `${RESOURCE}.update`, resourceType: RESOURCE, resourceId: id, before, after }, trx)
          return after
        })
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/nac/authorization-profiles/{profile_id}',
      permission: NAC_POLICY_WRITE,
      summary: 'Delete an authorization profile',
      description: 'A profile that NAC policy rules give (the default rule included) answers 409 PROFILE_IN_USE naming the rules: give them another profile first.',
      tags: ['nac'],
      schema: { params: AuthorizationProfileParams, response: { 204: null, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        const id = req.params.profile_id
        await req.transaction(async (trx) => {
          const before = await lockForChange(trx, PROFILES, id, 'profile_id', loadProfile)
          // The profile's row is locked: a rule taking it now waits (its foreign key check), and the foreign key stops what slips past.
          const rules = await trx(RULES).where({ authorization_profile_id: id }).orderBy('name').select('id', 'name')
          if (rules.length) {
            throw E.profileInUse({ field: 'profile_id', vars: { referrers: referrerList(rules.map((r) => ({ type: 'nac_policy_rule', id: r.id, name: r.name }))) } })
          }
          await trx(PROFILES).where({ id }).delete()
          await req.audit({ action: `${RESOURCE}.delete`, resourceType: RESOURCE, resourceId: id, before }, trx)
        })
        return reply({ status: 204 })
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/nac/authorization-profiles/{profile_id}/references',
      permission: NAC_POLICY_READ,
      summary: 'What refers to an authorization profile',
      description:
        '`blocking`: the NAC policy rules that give the profile (the default rule included), type `nac_policy_rule`, ordered by name; while there is one, DELETE answers 409 PROFILE_IN_USE. `auto_clearing`: always empty (nothing is cleared by a delete).',
      tags: ['nac'],
      schema: { params: AuthorizationProfileParams, response: { 200: NacReferenceReport, 404: ErrorBody } },
      handler: async ({ params }) => {
        if (!(await knex(PROFILES).where({ id: params.profile_id }).first('id'))) throw CommonErrors.notFound({ field: 'profile_id' })
        const rules = (await knex(RULES).where({ authorization_profile_id: params.profile_id }).orderBy('name').select('id', 'name')) as { id: string; name: string }[]
        return { blocking: rules.map((r) => ({ type: 'nac_policy_rule', id: r.id, name: r.name })), auto_clearing: [] }
      },
    }),
  ]
}
