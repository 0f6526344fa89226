/** /tacacs/command-sets: CRUD of command sets, their commands nested and replaced whole. */
import { defineRoute, ErrorBody, givenFields, isReferenceViolation, jsonText, paginate, reply, uniqueColumn, type RowOf, type UpdateOf, lockForChange, orNotFound } from '../../../sdk/index.js'
import { TacacsErrors } from '../errors.js'
import { TACACS_READ, TACACS_WRITE } from '../permissions.js'
import {
  CommandSetCreate,
  CommandSetListQuery,
  CommandSetPage,
  CommandSetParams,
  CommandSetResponse,
  CommandSetUpdate,
} from '../schemas/command-sets.js'
import { getCommandSet, iso, prepareCommands } from '../services/command-set-store.js'
import { profilesUsingSet } from '../services/references.js'
import type { CommandSetTable } from '../tables.js'
import type { TacacsRouteDeps } from './deps.js'

/** A list item's columns: all but the commands. */
type ListRow = Omit<RowOf<typeof CommandSetTable>, 'commands'>

/** Case-insensitive; the unique index is the last word when two requests race past the check. */
const names = uniqueColumn({ table: 'tacacs_command_sets', taken: TacacsErrors.commandSetNameTaken })

/** 409 COMMAND_SET_IN_USE naming (up to 20 of) the profiles. */
function inUse(profiles: { name: string }[]) {
  const listed = profiles.slice(0, 20).map((p) => `"${p.name}"`).join(', ') + (profiles.length > 20 ? ', …' : '')
  return TacacsErrors.commandSetInUse({ field: 'command_set_id', vars: { count: profiles.length, profiles: listed } })
}

/** The same, when the foreign key caught a profile that took the set after the check (the transaction is aborted: no names). */
const inUseRaced = () => TacacsErrors.commandSetInUse({ field: 'command_set_id', vars: { count: '1+', profiles: '…' } })

export function commandSetRoutes(d: TacacsRouteDeps) {
  const { knex } = d
  return [
    defineRoute({
      method: 'GET',
      path: '/tacacs/command-sets',
      permission: TACACS_READ,
      summary: 'List command sets',
      description: '`search` matches name and description (case-insensitive substring). Items carry `command_count`, not the commands: GET one set for those.',
      tags: ['tacacs'],
      schema: { query: CommandSetListQuery, response: { 200: CommandSetPage } },
      handler: async ({ query }) =>
        paginate(query, {
          base: () => knex('tacacs_command_sets').select('id', 'name', 'description', 'command_count', 'created_at', 'updated_at'),
          searchColumns: ['name', 'description'],
          sortColumns: { name: 'name', created_at: 'created_at', updated_at: 'updated_at' },
          defaultSort: 'name',
          defaultPerPage: 20,
          tieBreaker: 'id',
          map: (r: ListRow) => ({ ...r, created_at: iso(r.created_at), updated_at: iso(r.updated_at) }),
        }),
    }),
    defineRoute({
      method: 'POST',
      path: '/tacacs/command-sets',
      permission: TACACS_WRITE,
      summary: 'Create a command set',
      description:
        'Commands are matched in the order given; each may carry argument rules (exact, prefix, regex). A name taken (case-insensitively) answers 409 COMMAND_SET_NAME_TAKEN; a regex outside the allowed subset, 422 REGEX_INVALID at `commands[i].arguments[j].value`.',
      tags: ['tacacs'],
      schema: { body: CommandSetCreate, response: { 201: CommandSetResponse, 409: ErrorBody } },
      handler: async (req) => {
        const b = req.body
        const commands = prepareCommands(b.commands ?? [])
        return req.transaction(async (trx) => {
          await names.assertFree(trx, b.name)
          const [{ id }] = await trx('tacacs_command_sets')
            .insert({ name: b.name, description: b.description ?? null, commands: jsonText(commands), command_count: commands.length })
            .returning('id')
            .catch(names.onViolation(b.name))
          const created = (await getCommandSet(trx, id))!
          await req.audit({ action: 'tacacs.command_set.create', resourceType: 'tacacs_command_set', resourceId: id, after: created }, trx)
          return created
        })
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/tacacs/command-sets/{command_set_id}',
      permission: TACACS_READ,
      summary: 'Get a command set',
      description: 'With all its commands and their argument rules, in matching order.',
      tags: ['tacacs'],
      schema: { params: CommandSetParams, response: { 200: CommandSetResponse, 404: ErrorBody } },
      handler: async ({ params }) => {
        return orNotFound(await getCommandSet(knex, params.command_set_id), 'command_set_id')
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/tacacs/command-sets/{command_set_id}',
      permission: TACACS_WRITE,
      summary: 'Change a command set',
      description:
        'Partial: only the fields given change. `commands` replaces the entire list in one transaction; a request that fails (422, 409) changes nothing. Profiles using the set use the new commands from the next deployment.',
      tags: ['tacacs'],
      schema: { params: CommandSetParams, body: CommandSetUpdate, response: { 200: CommandSetResponse, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        const b = req.body
        const commands = b.commands ? prepareCommands(b.commands) : undefined
        return req.transaction(async (trx) => {
          const before = await lockForChange(trx, 'tacacs_command_sets', req.params.command_set_id, 'command_set_id', getCommandSet)
          if (b.name !== undefined) await names.assertFree(trx, b.name, before.id)
          const cols: UpdateOf<typeof CommandSetTable> = { updated_at: new Date(), ...givenFields(b, ['name', 'description']) }
          if (commands) {
            cols.commands = jsonText(commands)
            cols.command_count = commands.length
          }
          await trx('tacacs_command_sets').where({ id: before.id }).update(cols).catch(names.onViolation(b.name ?? before.name))
          const after = (await getCommandSet(trx, before.id))!
          await req.audit({ action: 'tacacs.command_set.update', resourceType: 'tacacs_command_set', resourceId: before.id, before, after }, trx)
          return after
        })
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/tacacs/command-sets/{command_set_id}',
      permission: TACACS_WRITE,
      summary: 'Delete a command set',
      description:
        'Refused while any TACACS+ profile uses the set: 409 COMMAND_SET_IN_USE, whose detail names the profiles (see GET …/references). Remove the set from those profiles, then delete it.',
      tags: ['tacacs'],
      schema: { params: CommandSetParams, response: { 204: null, 404: ErrorBody, 409: ErrorBody } },
      handler: async (req) => {
        await req.transaction(async (trx) => {
          const before = await lockForChange(trx, 'tacacs_command_sets', req.params.command_set_id, 'command_set_id', getCommandSet)
          const users = await profilesUsingSet(trx, before.id)
          if (users.length) throw inUse(users)
          // The foreign key (ON DELETE RESTRICT) is the last word if a profile took the set meanwhile.
          await trx('tacacs_command_sets')
            .where({ id: before.id })
            .delete()
            .catch((e: unknown) => {
              throw isReferenceViolation(e) ? inUseRaced() : e
            })
          await req.audit({ action: 'tacacs.command_set.delete', resourceType: 'tacacs_command_set', resourceId: before.id, before }, trx)
        })
        return reply({ status: 204 })
      },
    }),
  ]
}
