/** Certificate authorities: made here (root or issuing) or imported; their keys sealed, never answered. */
import { defineRoute, ErrorBody, orNotFound, uniqueColumn, type InsertOf, type RouteRequest, type RowOf } from '../../../sdk/index.js'
import { PkiErrors } from '../errors.js'
import { PKI_MANAGE, PKI_VIEW } from '../permissions.js'
import { CaCreate, CaImport, CaListResponse, CaParams, CaResponse } from '../schemas/pki.js'
import { importCa, makeCa } from '../services/ca.js'
import { regenerateCrl } from '../services/crl.js'
import { fingerprint256 } from '../services/der.js'
import { crlValidityHours } from '../settings.js'
import type { CaTable } from '../tables.js'
import type { PkiContext } from './context.js'

const names = uniqueColumn({ table: 'pki_cas', taken: PkiErrors.caNameTaken })
const COLUMNS = ['id', 'name', 'kind', 'parent_id', 'key_algorithm', 'subject', 'serial', 'not_before', 'not_after', 'imported', 'certificate', 'chain', 'crl_number', 'crl_next_update', 'created_at'] as const
type CaView = Pick<RowOf<typeof CaTable>, (typeof COLUMNS)[number]>

export const toCa = (r: CaView) => ({
  ...r,
  fingerprint_sha256: fingerprint256(r.certificate),
  not_before: r.not_before.toISOString(),
  not_after: r.not_after.toISOString(),
  crl_number: Number(r.crl_number),
  crl_next_update: r.crl_next_update?.toISOString() ?? null,
  created_at: r.created_at.toISOString(),
})

export function caRoutes(c: PkiContext) {
  const load = async (db: PkiContext['knex'], id: string) => {
    const row = await db('pki_cas').where({ id }).first(...COLUMNS)
    return row ? toCa(row) : null
  }
  /** Stores the CA, audits it and makes its first CRL, in one transaction. */
  const store = async (req: Pick<RouteRequest<unknown, unknown, unknown>, 'transaction' | 'audit'>, row: InsertOf<typeof CaTable>, action: string) =>
    req.transaction(async (trx) => {
      await names.assertFree(trx, row.name)
      const [{ id }] = await trx('pki_cas').insert(row).returning('id').catch(names.onViolation(row.name))
      const signer = await c.signers.get(id, trx)
      await regenerateCrl(trx, signer!, await c.settings.get(crlValidityHours, trx))
      const created = (await load(trx, id))!
      // `after` has no key: the sealed key is not among the columns answered.
      await req.audit({ action, resourceType: 'pki_ca', resourceId: id, after: { ...created, certificate: undefined, chain: undefined } }, trx)
      c.ocsp.forget()
      return created
    })

  return [
    defineRoute({
      method: 'GET',
      path: '/pki/cas',
      permission: PKI_VIEW,
      summary: 'List certificate authorities',
      tags: ['pki'],
      schema: { response: { 200: CaListResponse } },
      handler: async () => (await c.knex('pki_cas').orderBy('created_at').select(...COLUMNS)).map(toCa),
    }),
    defineRoute({
      method: 'GET',
      path: '/pki/cas/{ca_id}',
      permission: PKI_VIEW,
      summary: 'Get a certificate authority',
      description: 'Its certificate and chain (PEM) and the state of its CRL. The private key is never answered.',
      tags: ['pki'],
      schema: { params: CaParams, response: { 200: CaResponse, 404: ErrorBody } },
      handler: async ({ params }) => orNotFound(await load(c.knex, params.ca_id), 'ca_id'),
    }),
    defineRoute({
      method: 'POST',
      path: '/pki/cas',
      permission: PKI_MANAGE,
      summary: 'Create a certificate authority',
      description:
        'Generates the key on the server (sealed at once with the master key) and signs the CA certificate: self-signed for a root, by the root `parent_id` for an issuing CA (pathLen 0, ending no later than the root). The first CRL (number 1) is made with it. Audited as `pki_ca.create`. 422 PKI_CA_NOT_FOUND / PKI_PARENT_NOT_ROOT / PKI_CA_EXPIRED at `parent_id`; 409 PKI_CA_NAME_TAKEN.',
      tags: ['pki'],
      schema: { body: CaCreate, response: { 201: CaResponse, 409: ErrorBody } },
      handler: async (req) => {
        const b = req.body
        let parent = null
        if (b.parent_id) {
          const row = await c.knex('pki_cas').where({ id: b.parent_id }).first('id', 'kind', 'certificate', 'sealed_key', 'not_after')
          if (!row) throw PkiErrors.caNotFound({ field: 'parent_id' })
          if (row.kind !== 'root') throw PkiErrors.parentNotRoot({ field: 'parent_id' })
          parent = c.signers.fromRow(row)
          if (parent.notAfter < new Date()) throw PkiErrors.caExpired({ field: 'parent_id', vars: { from: parent.notBefore.toISOString(), to: parent.notAfter.toISOString() } })
        }
        await names.assertFree(c.knex, b.name)
        const row = await makeCa({ name: b.name, subject: b.subject, keyAlgorithm: b.key_algorithm, validityDays: b.validity_days, parent }, c.secrets)
        return store(req, row, 'pki_ca.create')
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/pki/cas/import',
      permission: PKI_MANAGE,
      summary: 'Import a certificate authority',
      description:
        'An existing CA: its PEM chain (the CA first, up to a self-signed root) and its unencrypted PEM private key. Checked before anything is stored: the key is the first certificate\'s (422 PKI_KEY_MISMATCH at `private_key`), each certificate is a CA valid now and signed by the next, the last self-signed (422 PKI_CHAIN_INVALID at `certificate_chain`); RSA of 2048 bits or more, or ECDSA P-256/P-384. The key is sealed at once and never answered. Audited as `pki_ca.import`.',
      tags: ['pki'],
      schema: { body: CaImport, response: { 201: CaResponse, 409: ErrorBody } },
      handler: async (req) => {
        const row = importCa(req.body.name, req.body.certificate_chain, req.body.private_key, c.secrets)
        return store(req, row, 'pki_ca.import')
      },
    }),
  ]
}
