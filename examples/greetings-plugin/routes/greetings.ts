import { CommonErrors, defineError, defineRoute, listQuery, paginate, Paginated, reply, type DatabaseService, type SettingsService } from '@portcullis/sdk'
import { GreetingCreate, GreetingParams, GreetingResponse, HelloQuery, HelloResponse } from '../schemas.js'
import { toGreeting, type GreetingRow, type GreetingsService } from '../service.js'
import { greetingSuffix } from '../settings.js'

const nameTaken = defineError(409, 'GREETING_NAME_TAKEN', 'greetings:errors.name_taken')

const ListQuery = listQuery({ maxPerPage: 100, defaultPerPage: 20, sortBy: ['name', 'created_at', 'updated_at'] as const })

export function greetingRoutes(d: { database: DatabaseService; settings: SettingsService; greetings: GreetingsService }) {
  const knex = d.database.knex
  return [
    defineRoute({
      method: 'GET',
      path: '/greetings',
      permission: 'greetings.read',
      summary: 'List greetings',
      schema: { query: ListQuery, response: { 200: Paginated(GreetingResponse, 'GreetingListResponse') } },
      handler: async ({ query }) =>
        paginate(query, {
          base: () => knex('greetings_greeting'),
          searchColumns: ['name', 'message', 'note'],
          sortColumns: { name: 'name', created_at: 'created_at', updated_at: 'updated_at' },
          defaultSort: 'name',
          defaultPerPage: 20,
          tieBreaker: 'id',
          map: toGreeting,
        }),
    }),
    defineRoute({
      method: 'POST',
      path: '/greetings',
      permission: 'greetings.write',
      summary: 'Create a greeting',
      schema: { body: GreetingCreate, response: { 201: GreetingResponse, 409: null } },
      handler: async (req) =>
        req.transaction(async (trx) => {
          const exists = await trx('greetings_greeting').where({ name: req.body.name }).first('id')
          if (exists) throw nameTaken({ field: 'name', vars: { name: req.body.name } })
          const [row] = (await trx('greetings_greeting').insert({ name: req.body.name, message: req.body.message, note: req.body.note ?? null }).returning('*')) as GreetingRow[]
          const created = toGreeting(row)
          await req.audit({ action: 'greeting.create', resourceType: 'greeting', resourceId: created.id, after: created }, trx)
          return created
        }),
    }),
    defineRoute({
      method: 'GET',
      path: '/greetings/hello',
      permission: 'greetings.read',
      summary: 'Say hello',
      description: 'A small validated JSON route (also used by the framework benchmark).',
      schema: { query: HelloQuery, response: { 200: HelloResponse } },
      handler: async ({ query }) => ({ message: Array(query.times ?? 1).fill(d.greetings.greet(query.name, '!')).join(' ') }),
    }),
    defineRoute({
      method: 'GET',
      path: '/greetings/{greeting_id}',
      permission: 'greetings.read',
      summary: 'Get a greeting',
      schema: { params: GreetingParams, response: { 200: GreetingResponse, 404: null } },
      handler: async ({ params }) => {
        const row = (await knex('greetings_greeting').where({ id: params.greeting_id }).first()) as GreetingRow | undefined
        if (!row) throw CommonErrors.notFound({ field: 'greeting_id' })
        const g = toGreeting(row)
        return { ...g, message: g.message + (await d.settings.get(greetingSuffix)) }
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/greetings/{greeting_id}',
      permission: 'greetings.write',
      summary: 'Delete a greeting',
      schema: { params: GreetingParams, response: { 204: null, 404: null } },
      handler: async (req) =>
        req.transaction(async (trx) => {
          const row = (await trx('greetings_greeting').where({ id: req.params.greeting_id }).first()) as GreetingRow | undefined
          if (!row) throw CommonErrors.notFound({ field: 'greeting_id' })
          await trx('greetings_greeting').where({ id: row.id }).delete()
          await req.audit({ action: 'greeting.delete', resourceType: 'greeting', resourceId: row.id, before: toGreeting(row) }, trx)
          return reply({ status: 204 })
        }),
    }),
  ]
}

