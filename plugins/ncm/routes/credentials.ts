/** Device credentials: sealed at rest, write-only (a reader sees `has_password`), 409 while a schedule or device uses one. */
import type { Knex } from 'knex'
import { defineRoute, ErrorBody, paginate, reply, uniqueColumn, type RouteDefinition } from '../../../sdk/index.js'
import { NcmErrors } from '../errors.js'
import { NCM_MANAGE, NCM_READ } from '../permissions.js'
import { Credential, CredentialCreate, CredentialList, CredentialListQuery, CredentialParams, CredentialUpdate } from '../schemas/credentials.js'
import type { NcmContext } from '../services/context.js'
import { CREDENTIAL_PURPOSE, credentialView, sealedColumn, SECRET_FIELDS } from '../services/credentials.js'
import type { CredentialRow } from '../tables.js'

type Secrets = Partial<Record<(typeof SECRET_FIELDS)[number], string | null>>

/** A private key ssh2 can read (with its passphrase), else 422 at private_key. */
async function checkPrivateKey(key: string, passphrase: string | null): Promise<void> {
  const { utils } = (await import('ssh2')).default
  let parsed: unknown
  try {
    parsed = utils.parseKey(key, passphrase ?? undefined)
  } catch (e) {
    parsed = e
  }
  if (parsed instanceof Error || (Array.isArray(parsed) && !parsed.length)) throw NcmErrors.privateKeyInvalid({ field: 'private_key' })
}

export function credentialRoutes(c: NcmContext): RouteDefinition[] {
  const knex = c.database.knex
  const names = uniqueColumn({ table: 'ncm_credentials', taken: NcmErrors.credentialNameTaken, index: 'ncm_credentials_name_lower' })
  const get = async (db: Knex | Knex.Transaction, id: string, lock = false): Promise<CredentialRow> => {
    const q = db('ncm_credentials').where({ id })
    const row = await (lock ? q.forUpdate() : q).first()
    if (!row) throw NcmErrors.credentialNotFound({ field: 'credential_id' })
    return row
  }
  /** The sealed columns for the given secrets (null clears). */
  const sealed = (s: Secrets) => {
    const out: Partial<Record<`${(typeof SECRET_FIELDS)[number]}_sealed`, string | null>> = {}
    for (const f of SECRET_FIELDS) if (s[f] !== undefined) out[sealedColumn(f)] = s[f] === null ? null : c.secrets.encrypt(CREDENTIAL_PURPOSE, s[f]!)
    return out
  }
  /** What the login method needs is there; a private key is one ssh2 reads. */
  const check = async (auth: 'password' | 'private_key', r: { password: boolean; private_key: boolean }, given: Secrets, passphrase: string | null) => {
    if (auth === 'password' && !r.password) throw NcmErrors.credentialSecretRequired({ field: 'password', vars: { what: 'password' } })
    if (auth === 'private_key' && !r.private_key) throw NcmErrors.credentialSecretRequired({ field: 'private_key', vars: { what: 'private key' } })
    if (typeof given.private_key === 'string') await checkPrivateKey(given.private_key, passphrase)
  }
  return [
    defineRoute({
      method: 'GET',
      path: '/ncm/credentials',
      permission: NCM_READ,
      summary: 'List device credentials',
      description: 'The secrets are never answered: `has_password`, `has_private_key`, … say which are set.',
      tags: ['ncm'],
      schema: { query: CredentialListQuery, response: { 200: CredentialList } },
      handler: async ({ query }) =>
        paginate(query, { base: () => knex('ncm_credentials'), searchColumns: ['name', 'username'], sortColumns: { name: 'name', created_at: 'created_at' }, defaultSort: 'name', defaultPerPage: 50, tieBreaker: 'id', map: credentialView }),
    }),
    defineRoute({
      method: 'POST',
      path: '/ncm/credentials',
      permission: NCM_MANAGE,
      summary: 'Create a device credential',
      description: 'Sealed with the master key; handed to a collector only sealed to its key, for one job.',
      tags: ['ncm'],
      schema: { body: CredentialCreate, response: { 201: Credential, 409: ErrorBody, 422: ErrorBody } },
      handler: async (req) =>
        req.transaction(async (trx) => {
          const b = req.body
          await check(b.auth, { password: !!b.password, private_key: !!b.private_key }, b, b.passphrase ?? null)
          await names.assertFree(trx, b.name)
          const [row] = await trx('ncm_credentials')
            .insert({ name: b.name, description: b.description ?? null, username: b.username, auth: b.auth, ...sealed(b) })
            .returning('*')
            .catch(names.onViolation(b.name))
          await req.audit({ action: 'ncm_credential.create', resourceType: 'ncm_credential', resourceId: row.id, after: credentialView(row) }, trx)
          return reply({ status: 201, body: credentialView(row) })
        }),
    }),
    defineRoute({
      method: 'GET',
      path: '/ncm/credentials/{credential_id}',
      permission: NCM_READ,
      summary: 'A device credential (without its secrets)',
      tags: ['ncm'],
      schema: { params: CredentialParams, response: { 200: Credential, 404: ErrorBody } },
      handler: async ({ params }) => credentialView(await get(knex, params.credential_id)),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/ncm/credentials/{credential_id}',
      permission: NCM_MANAGE,
      summary: 'Change a device credential',
      description: 'Only the fields given change; a secret given as null is cleared.',
      tags: ['ncm'],
      schema: { params: CredentialParams, body: CredentialUpdate, response: { 200: Credential, 404: ErrorBody, 409: ErrorBody, 422: ErrorBody } },
      handler: async (req) =>
        req.transaction(async (trx) => {
          const before = await get(trx, req.params.credential_id, true)
          const b = req.body
          const has = (f: 'password' | 'private_key') => (b[f] !== undefined ? b[f] !== null : before[sealedColumn(f)] !== null)
          const passphrase = b.passphrase !== undefined ? b.passphrase : before.passphrase_sealed !== null ? c.secrets.decrypt(CREDENTIAL_PURPOSE, before.passphrase_sealed) : null
          await check(b.auth ?? before.auth, { password: has('password'), private_key: has('private_key') }, b, passphrase ?? null)
          if (b.name !== undefined) await names.assertFree(trx, b.name, before.id)
          const cols = { ...(b.name !== undefined ? { name: b.name } : {}), ...(b.description !== undefined ? { description: b.description } : {}), ...(b.username !== undefined ? { username: b.username } : {}), ...(b.auth !== undefined ? { auth: b.auth } : {}) }
          const [row] = await trx('ncm_credentials')
            .where({ id: before.id })
            .update({ ...cols, ...sealed(b), updated_at: new Date() })
            .returning('*')
            .catch(names.onViolation(b.name ?? before.name))
          await req.audit({ action: 'ncm_credential.update', resourceType: 'ncm_credential', resourceId: row.id, before: credentialView(before), after: credentialView(row) }, trx)
          return credentialView(row)
        }),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/ncm/credentials/{credential_id}',
      permission: NCM_MANAGE,
      summary: 'Delete a device credential',
      description: '409 NCM_CREDENTIAL_IN_USE while a schedule or a device override names it.',
      tags: ['ncm'],
      schema: { params: CredentialParams, response: { 204: null, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) =>
        req.transaction(async (trx) => {
          const before = await get(trx, req.params.credential_id, true)
          const schedules = await trx('ncm_schedules').where({ credential_id: before.id }).select('id')
          const devices = await trx('ncm_devices').where({ credential_id: before.id }).select('device_id')
          if (schedules.length || devices.length) {
            const list = [...schedules.map((s) => `schedule ${s.id}`), ...devices.map((d) => `device ${d.device_id}`)].slice(0, 20).join(', ')
            throw NcmErrors.credentialInUse({ field: 'credential_id', vars: { referrers: list } })
          }
          await trx('ncm_credentials').where({ id: before.id }).delete()
          await req.audit({ action: 'ncm_credential.delete', resourceType: 'ncm_credential', resourceId: before.id, before: credentialView(before) }, trx)
        }),
    }),
  ] as RouteDefinition[]
}
