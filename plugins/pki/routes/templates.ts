/** Certificate templates: what a certificate issued under each may name and do. */
import { defineRoute, ErrorBody, jsonText, orNotFound, reply, uniqueColumn, type RowOf } from '../../../sdk/index.js'
import { PkiErrors } from '../errors.js'
import { PKI_MANAGE, PKI_VIEW } from '../permissions.js'
import { TemplateCreate, TemplateListResponse, TemplateParams, TemplateResponse } from '../schemas/pki.js'
import { validNamePattern, type Template } from '../services/issue.js'
import type { TemplateTable } from '../tables.js'
import type { PkiContext } from './context.js'

const names = uniqueColumn({ table: 'pki_templates', taken: PkiErrors.templateNameTaken })

export const toTemplate = (r: RowOf<typeof TemplateTable>): Template => ({ ...r, created_at: r.created_at.toISOString() })

export async function loadTemplate(db: PkiContext['knex'], id: string): Promise<Template | null> {
  const row = await db('pki_templates').where({ id }).first()
  return row ? toTemplate(row) : null
}

export function templateRoutes(c: PkiContext) {
  return [
    defineRoute({
      method: 'GET',
      path: '/pki/templates',
      permission: PKI_VIEW,
      summary: 'List certificate templates',
      description: '`freeradius-eap-server` and `eap-tls-client` are there from the start: the FreeRADIUS EAP server certificate (serverAuth) and the EAP-TLS client certificate (clientAuth; docs/pki.md).',
      tags: ['pki'],
      schema: { response: { 200: TemplateListResponse } },
      handler: async () => (await c.knex('pki_templates').orderBy('name')).map(toTemplate),
    }),
    defineRoute({
      method: 'GET',
      path: '/pki/templates/{template_id}',
      permission: PKI_VIEW,
      summary: 'Get a certificate template',
      tags: ['pki'],
      schema: { params: TemplateParams, response: { 200: TemplateResponse, 404: ErrorBody } },
      handler: async ({ params }) => orNotFound(await loadTemplate(c.knex, params.template_id), 'template_id'),
    }),
    defineRoute({
      method: 'POST',
      path: '/pki/templates',
      permission: PKI_MANAGE,
      summary: 'Create a certificate template',
      description: 'A bad name pattern answers 422 PKI_NAME_PATTERN_INVALID at `name_patterns[i]`; a name taken 409 PKI_TEMPLATE_NAME_TAKEN. Audited as `pki_template.create`.',
      tags: ['pki'],
      schema: { body: TemplateCreate, response: { 201: TemplateResponse, 409: ErrorBody } },
      handler: async (req) => {
        const b = req.body
        b.name_patterns.forEach((p, i) => {
          if (!validNamePattern(p)) throw PkiErrors.namePatternInvalid({ field: `name_patterns[${i}]` })
        })
        return req.transaction(async (trx) => {
          await names.assertFree(trx, b.name)
          const [row] = await trx('pki_templates')
            .insert({
              name: b.name,
              description: b.description ?? null,
              key_usage: jsonText(b.key_usage),
              extended_key_usage: jsonText(b.extended_key_usage),
              validity_days: b.validity_days,
              name_patterns: jsonText(b.name_patterns),
              subject_attributes: jsonText(b.subject_attributes),
              san_types: jsonText(b.san_types),
              min_rsa_bits: b.min_rsa_bits,
              min_ec_bits: b.min_ec_bits,
            })
            .returning('*')
            .catch(names.onViolation(b.name))
          const created = toTemplate(row)
          await req.audit({ action: 'pki_template.create', resourceType: 'pki_template', resourceId: created.id, after: created }, trx)
          return created
        })
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/pki/templates/{template_id}',
      permission: PKI_MANAGE,
      summary: 'Delete a certificate template',
      description: 'Only while no certificate was issued under it (else 409 PKI_TEMPLATE_IN_USE). Audited as `pki_template.delete`.',
      tags: ['pki'],
      schema: { params: TemplateParams, response: { 204: null, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) =>
        req.transaction(async (trx) => {
          const before = orNotFound(await trx('pki_templates').where({ id: req.params.template_id }).forUpdate().first(), 'template_id')
          if (await trx('pki_certificates').where({ template_id: before.id }).first('id')) throw PkiErrors.templateInUse({ field: 'template_id' })
          await trx('pki_templates').where({ id: before.id }).delete()
          await req.audit({ action: 'pki_template.delete', resourceType: 'pki_template', resourceId: before.id, before: toTemplate(before) }, trx)
          return reply({ status: 204 })
        }),
    }),
  ]
}
