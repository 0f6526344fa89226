/** Reading and checking command sets; the routes write them, the service and renderers read them. */
import type { Knex } from 'knex'
import type { RowOf } from '../../../sdk/index.js'
import type { Command, CommandSet } from '../api.js'
import { regexInvalid } from '../errors.js'
import type { CommandInput } from '../schemas/command-sets.js'
import type { CommandSetTable } from '../tables.js'
import { checkSafeRegex } from '../../../sdk/index.js'

type Db = Knex | Knex.Transaction

type CommandSetRow = RowOf<typeof CommandSetTable>

export const iso = (d: Date | string) => new Date(d).toISOString()

export const toCommandSet = (r: CommandSetRow): CommandSet => ({
  id: r.id,
  name: r.name,
  description: r.description,
  commands: r.commands,
  created_at: iso(r.created_at),
  updated_at: iso(r.updated_at),
})

export async function getCommandSet(db: Db, id: string): Promise<CommandSet | null> {
  const row = await db('tacacs_command_sets').where({ id }).first()
  return row ? toCommandSet(row) : null
}

/** Every command set, by name. */
export async function listCommandSets(db: Db): Promise<CommandSet[]> {
  return (await db('tacacs_command_sets').orderBy([{ column: 'name' }, { column: 'id' }])).map(toCommandSet)
}

/** The sets with these ids, in the order of `ids`; ids naming no set are left out. */
export async function commandSetsByIds(db: Db, ids: readonly string[]): Promise<CommandSet[]> {
  if (!ids.length) return []
  const rows = await db('tacacs_command_sets').whereIn('id', ids)
  const byId = new Map(rows.map((r) => [r.id, toCommandSet(r)]))
  return ids.flatMap((id) => byId.get(id) ?? [])
}

/**
 * The commands as stored: `arguments` always present. Every regex rule is
 * checked first: 422 REGEX_INVALID at `commands[i].arguments[j].value`.
 */
export function prepareCommands(input: readonly CommandInput[]): Command[] {
  return input.map((c, i) => {
    const args = (c.arguments ?? []).map((a, j) => {
      if (a.match_type === 'regex') {
        const problem = checkSafeRegex(a.value)
        if (problem) throw regexInvalid(problem, `commands[${i}].arguments[${j}].value`)
      }
      return { match_type: a.match_type, value: a.value }
    })
    return { command: c.command, action: c.action, ...(c.min_privilege_level !== undefined ? { min_privilege_level: c.min_privilege_level } : {}), arguments: args }
  })
}
