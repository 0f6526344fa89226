/**
 * POST /users/import: a CSV file of new users, each row checked and written
 * by insertUser, the code of POST /users, so that a users.write holder can do
 * through a file exactly what they could do one request at a time: no
 * administrator unless they are one, no group or role that grants a
 * permission they lack, passwords under the same policy and hashed the same
 * way. The import only creates: a username that exists is skipped, never
 * changed (a change has its own guards, sessions and lifecycle; PUT does it).
 */
import type { Knex } from 'knex'
import { CsvImportQuery, csvBoolean, csvImportReport, defineRoute, ErrorBody, ImportErrors, importCounts, readCsvImport, runCsvImport, type CsvImportRow } from '../../../sdk/index.js'
import { UserCreate } from '../schemas/users.js'
import type { IdentityRouteDeps } from './deps.js'
import { insertUser } from './users.js'

const COLUMNS = ['username', 'display_name', 'email', 'source', 'password', 'enabled', 'is_admin', 'network_login', 'chap_enabled', 'must_change_password', 'expires_at', 'groups', 'roles'] as const
type Column = (typeof COLUMNS)[number]
/** The list's read-only fields, accepted so that a saved list imports back. */
const IGNORED = ['id', 'password_set', 'network_verifiers_set', 'password_changed_at', 'lockout_cleared_at', 'group_ids', 'role_ids', 'created_at', 'updated_at']
export const USER_IMPORT_MAX_ROWS = 500
const MAX_BYTES = 512 * 1024

export const UserImportReport = csvImportReport('UserImportReport', 'username', 'USERNAME_TAKEN, ADMIN_REQUIRED, GROUP_EXCEEDS_OWN_PERMISSIONS, ROLE_EXCEEDS_OWN_PERMISSIONS, PASSWORD_POLICY, PASSWORD_NOT_ALLOWED, NETWORK_LOGIN_NOT_ALLOWED, REFERENCE_NOT_FOUND, DUPLICATE_IN_FILE')

const DESCRIPTION = `Creates users from a CSV file (RFC 4180, UTF-8, a byte-order mark allowed, at most ${MAX_BYTES / 1024} KiB and ${USER_IMPORT_MAX_ROWS} data rows: each password is hashed with argon2id). The first line names the columns, in any order and letter case: \`username\` (required), \`display_name\`, \`email\`, \`source\` (\`local\` or \`directory\`), \`password\`, \`enabled\`, \`is_admin\`, \`network_login\`, \`chap_enabled\`, \`must_change_password\` (true/false, yes/no, 1/0; empty: the default), \`expires_at\` (date-time with a time zone), \`groups\` and \`roles\` (names separated by \`;\`). Each row is checked and written by the code of POST /users, so it is refused with the code, column and message that route answers: only an administrator may create an administrator (403 ADMIN_REQUIRED at \`is_admin\`); anyone else only gives groups and roles whose permissions they hold (GROUP_EXCEEDS_OWN_PERMISSIONS at \`groups\`, ROLE_EXCEEDS_OWN_PERMISSIONS at \`roles\`). Passwords: only for \`source: local\` (PASSWORD_NOT_ALLOWED otherwise), under the password policy, hashed (and with \`network_login\`, the verifiers derived) as POST /users does; a password is never repeated in the report, the audit trail or the logs. An empty password cell creates a user who cannot sign in until one is set. The import only creates: a username that exists is \`skipped\` and never changed; one repeated in the file is refused at its second row (DUPLICATE_IN_FILE). The list's read-only fields are accepted and ignored. Any other column, a repeated column, no \`username\` column, a file that is not CSV or UTF-8, or too many rows: 422 IMPORT_INVALID and nothing written. Atomic by default: one refused row and nothing is written (\`applied: false\`); \`atomic=false\` writes the rows that pass; \`dry_run=true\` judges every row (passwords included) and writes nothing. One audit entry (\`user.import\`) lists every user created.`

/** The error's field (`group_ids[2]`), as the file's column (`groups`). */
const columnOf = (field: string | null): string | null => (field === null ? null : field.startsWith('group_ids') ? 'groups' : field.startsWith('role_ids') ? 'roles' : field)

/** Names separated by `;` as ids, each looked up case-insensitively; an unknown name refuses the row at the column. */
async function idsByName(trx: Knex.Transaction, table: 'user_groups' | 'roles', column: 'groups' | 'roles', cell: string): Promise<string[]> {
  const names = [...new Set(cell.split(';').map((n) => n.trim()).filter(Boolean))]
  const ids: string[] = []
  for (const name of names) {
    const row = name.length <= 128 ? await trx(table).whereRaw('lower(name) = lower(?)', [name]).first('id') : undefined
    if (!row) throw ImportErrors.nameNotFound({ field: column, vars: { column, name: name.slice(0, 64) } })
    ids.push(row.id)
  }
  return ids
}

async function rowBody(trx: Knex.Transaction, c: CsvImportRow<Column>['cells']): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = { username: (c.username ?? '').trim() }
  for (const k of ['display_name', 'email', 'source', 'expires_at'] as const) if (c[k] !== undefined && c[k].trim() !== '') body[k] = c[k].trim()
  // The password as typed: spaces are characters of it.
  if (c.password !== undefined && c.password !== '') body.password = c.password
  for (const k of ['enabled', 'is_admin', 'network_login', 'chap_enabled', 'must_change_password'] as const) {
    const v = csvBoolean(c[k], k)
    if (v !== undefined) body[k] = v
  }
  if (c.groups !== undefined) body.group_ids = await idsByName(trx, 'user_groups', 'groups', c.groups)
  if (c.roles !== undefined) body.role_ids = await idsByName(trx, 'roles', 'roles', c.roles)
  return body
}

export function userImportRoutes(d: IdentityRouteDeps) {
  return [
    defineRoute({
      method: 'POST',
      path: '/users/import',
      permission: 'users.write',
      summary: 'Import users from CSV',
      description: DESCRIPTION,
      tags: ['identity'],
      rawBody: { mediaTypes: ['text/csv'], maxBytes: MAX_BYTES, description: 'The CSV file: a header line, then one user a row.' },
      schema: { query: CsvImportQuery, response: { 200: UserImportReport, 422: ErrorBody } },
      handler: async (req) => {
        const file = readCsvImport(req.rawBody ?? Buffer.alloc(0), { columns: COLUMNS, key: 'username', ignored: IGNORED, maxRows: USER_IMPORT_MAX_ROWS })
        const o = { atomic: req.query.atomic ?? true, dryRun: req.query.dry_run ?? false }
        const actor = req.actor!
        return d.identity.actors.change(req.transaction, async (trx) => {
          const firstRow = new Map<string, number>()
          const created: { id: string; username: string; is_admin: boolean; group_ids: string[]; role_ids: string[] }[] = []
          const r = await runCsvImport(trx, file, o, {
            t: req.t,
            key: 'username',
            fieldOf: columnOf,
            judge: async (row, sp) => {
              const username = (row.cells.username ?? '').trim()
              const first = firstRow.get(username.toLowerCase())
              if (first !== undefined) throw ImportErrors.duplicate({ field: 'username', vars: { row: first, key: username.slice(0, 64) } })
              const existing = username ? await sp('users').whereRaw('lower(username) = lower(?)', [username]).first('id') : undefined
              if (existing) return { outcome: 'skipped', id: existing.id }
              const user = await insertUser(sp, actor, req.checkBody(UserCreate, await rowBody(sp, row.cells)), d)
              firstRow.set(username.toLowerCase(), row.row)
              created.push({ id: user.id, username: user.username, is_admin: user.is_admin, group_ids: user.group_ids, role_ids: user.role_ids })
              return { outcome: 'created', id: user.id }
            },
          })
          const counts = importCounts(r.results)
          if (r.applied && counts.created) {
            const kept = new Set(r.results.filter((x) => x.outcome === 'created').map((x) => x.id))
            await req.audit({ action: 'user.import', resourceType: 'user', resourceId: null, after: { atomic: o.atomic, ...counts, created: created.filter((u) => kept.has(u.id)) } }, trx)
          }
          return { applied: r.applied, atomic: o.atomic, dry_run: o.dryRun, ...counts, columns: [...file.columns], ignored_columns: file.ignored, results: r.results }
        })
      },
    }),
  ]
}
