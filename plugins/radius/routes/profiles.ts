/** RADIUS profiles: named, ordered lists of reply attributes that AAA policy rules hand to devices. */
import type { Knex } from 'knex'
import { defineRoute, ErrorBody, givenFields, jsonText, paginate, reply, uniqueColumn, type OwnedReferenceTarget, type UpdateOf, lockForChange, orNotFound } from '../../../sdk/index.js'
import type { RadiusAttribute } from '../api.js'
import { attributeError, RadiusErrors } from '../errors.js'
import { RADIUS_READ, RADIUS_WRITE } from '../permissions.js'
import {
  RadiusProfileCreate,
  RadiusProfileListQuery,
  RadiusProfileListResponse,
  RadiusProfileParams,
  RadiusProfileResponse,
  RadiusProfileUpdate,
} from '../schemas/profiles.js'
import { loadProfile, PROFILES, toProfile } from '../services/profiles.js'
import { attributesProblem } from '../services/values.js'
import type { ProfileTable } from '../tables.js'

/** Case-insensitive; the unique index is the last word when two requests race past the check. */
const names = uniqueColumn({ table: PROFILES, taken: RadiusErrors.profileNameTaken })

/** Checked before any transaction opens: a bad list costs no database work. */
function checkAttributes(list: readonly RadiusAttribute[] | undefined) {
  const problem = list && attributesProblem(list)
  if (problem) throw attributeError(problem)
}

/** Only `name` and `value`, in the order given: the stored JSON is exactly what the API shows. */
const attributesJson = (list: readonly RadiusAttribute[]) => jsonText(list.map((a) => ({ name: a.name, value: a.value })))

const VALUE_RULES =
  'Each attribute must be in the dictionary (GET /api/v1/radius/dictionary; else 422 RADIUS_ATTRIBUTE_UNKNOWN at `attributes[i].name`), have a value of its type (else 422 RADIUS_ATTRIBUTE_VALUE_INVALID at `attributes[i].value`), and appear once unless repeatable (else 422 RADIUS_ATTRIBUTE_REPEATED at `attributes[i].name`). A name taken (case-insensitively) answers 409 PROFILE_NAME_TAKEN.'

/** `refs`: the radius side of the references other plugins hold to profiles (sdk/references.ts). */
export function profileRoutes(knex: Knex, refs: OwnedReferenceTarget) {
  return [
    defineRoute({
      method: 'GET',
      path: '/radius/profiles',
      permission: RADIUS_READ,
      summary: 'List RADIUS profiles',
      description: '`search` matches name and description.',
      tags: ['radius'],
      schema: { query: RadiusProfileListQuery, response: { 200: RadiusProfileListResponse } },
      handler: async ({ query }) =>
        paginate(query, {
          base: () => knex(PROFILES),
          searchColumns: ['name', 'description'],
          sortColumns: { name: 'name', created_at: 'created_at', updated_at: 'updated_at' },
          defaultSort: 'name',
          defaultPerPage: 20,
          tieBreaker: 'id',
          map: toProfile,
        }),
    }),
    defineRoute({
      method: 'POST',
      path: '/radius/profiles',
      permission: RADIUS_WRITE,
      summary: 'Create a RADIUS profile',
      description: VALUE_RULES,
      tags: ['radius'],
      schema: { body: RadiusProfileCreate, response: { 201: RadiusProfileResponse, 409: ErrorBody } },
      handler: async (req) => {
        const b = req.body
        checkAttributes(b.attributes)
        return req.transaction(async (trx) => {
          await names.assertFree(trx, b.name)
          const [{ id }] = await trx(PROFILES)
            .insert({ name: b.name, description: b.description ?? null, attributes: attributesJson(b.attributes ?? []), allow_mschapv1: b.allow_mschapv1 ?? false })
            .returning('id')
            .catch(names.onViolation(b.name))
          const created = (await loadProfile(trx, id))!
          await req.audit({ action: 'radius_profile.create', resourceType: 'radius_profile', resourceId: id, after: created }, trx)
          return created
        })
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/radius/profiles/{profile_id}',
      permission: RADIUS_READ,
      summary: 'Get a RADIUS profile',
      tags: ['radius'],
      schema: { params: RadiusProfileParams, response: { 200: RadiusProfileResponse, 404: ErrorBody } },
      handler: async ({ params }) => {
        return orNotFound(await loadProfile(knex, params.profile_id), 'profile_id')
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/radius/profiles/{profile_id}',
      permission: RADIUS_WRITE,
      summary: 'Change a RADIUS profile',
      description: `Partial: only the fields given change; \`attributes\` replaces the whole list. ${VALUE_RULES}`,
      tags: ['radius'],
      schema: { params: RadiusProfileParams, body: RadiusProfileUpdate, response: { 200: RadiusProfileResponse, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        const b = req.body
        checkAttributes(b.attributes)
        return req.transaction(async (trx) => {
          // The row lock orders concurrent changes, so each audit `before` is what the change replaced.
          const before = await lockForChange(trx, PROFILES, req.params.profile_id, 'profile_id', loadProfile)
          if (b.name !== undefined) await names.assertFree(trx, b.name, before.id)
          const cols: UpdateOf<typeof ProfileTable> = { updated_at: new Date(), ...givenFields(b, ['name', 'description', 'allow_mschapv1']) }
          if (b.attributes !== undefined) cols.attributes = attributesJson(b.attributes)
          await trx(PROFILES).where({ id: before.id }).update(cols).catch(names.onViolation(b.name ?? before.name))
          if (b.name !== undefined && b.name !== before.name) await refs.renamed([before.id], trx)
          const after = (await loadProfile(trx, before.id))!
          await req.audit({ action: 'radius_profile.update', resourceType: 'radius_profile', resourceId: before.id, before, after }, trx)
          return after
        })
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/radius/profiles/{profile_id}',
      permission: RADIUS_WRITE,
      summary: 'Delete a RADIUS profile',
      description: 'Allowed while AAA policy rules use the profile: their reference is cleared in the same transaction (the policy registers a clearing reference guard), so those rules send no RADIUS reply attributes until given another profile.',
      tags: ['radius'],
      schema: { params: RadiusProfileParams, response: { 204: null, 404: ErrorBody } },
      handler: async (req) => {
        await req.transaction(async (trx) => {
          const before = await lockForChange(trx, PROFILES, req.params.profile_id, 'profile_id', loadProfile)
          // The referring plugins' guards clear their references here (sdk/references.ts); the target admits no refusing guard.
          await refs.beforeDelete([before.id], trx)
          await trx(PROFILES).where({ id: before.id }).delete()
          await req.audit({ action: 'radius_profile.delete', resourceType: 'radius_profile', resourceId: before.id, before }, trx)
        })
        return reply({ status: 204 })
      },
    }),
  ]
}
