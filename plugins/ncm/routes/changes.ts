/** GET /ncm/devices/{device_id}/versions/{version_id}/changes: who changed it (TACACS+ records of the change's window). */
import { CommonErrors, defineRoute, ErrorBody, Nullable, StringEnum, Timestamp, Type, Uuid, type RouteDefinition } from '../../../sdk/index.js'
import { NCM_READ } from '../permissions.js'
import { CHANGES_MAX_RECORDS, versionChanges } from '../services/changes.js'
import type { NcmContext } from '../services/context.js'

/** The AAA logs' own read permission: these records are theirs. */
const LOGS_READ = 'aaa-logs.read'

const VersionParams = Type.Object({ device_id: Uuid(), version_id: Uuid() }, { additionalProperties: false })
const ChangeRecord = Type.Object(
  {
    kind: StringEnum(['authorization', 'accounting'] as const),
    timestamp: Timestamp(),
    username: Type.String(),
    action: Type.String({ description: 'permit or deny (authorization); start, stop or watchdog (accounting).' }),
    command: Type.String({ description: 'As the device sent it (IOS ends it with `<cr>`).' }),
    nas_ip: Nullable(Type.String()),
    device_name: Nullable(Type.String()),
    client_address: Nullable(Type.String({ description: 'Where the user connected to the device from.' })),
    session_id: Nullable(Type.String()),
    priv_lvl: Nullable(Type.Integer()),
    matches_diff: Type.Boolean({ description: 'The command is a line this change added or removed (or its `no` form).' }),
  },
  { title: 'NcmChangeRecord', additionalProperties: false },
)
const Changes = Type.Object(
  {
    version_id: Uuid(),
    previous_version_id: Nullable(Uuid()),
    logs_available: Type.Boolean({ description: 'false: the AAA logs plugin does not run, so there are no TACACS+ records to show.' }),
    nas_addresses: Type.Array(Type.String(), { description: "The addresses the device's records are looked up by: its TACACS+ address override, else its host when that is an address." }),
    window_from: Nullable(Timestamp({ description: 'The last fetch that saw the previous version started (minus the slack). Null for the first version.' })),
    window_to: Nullable(Timestamp({ description: 'The first fetch that saw this version finished (plus the slack).' })),
    truncated: Type.Boolean({ description: `More than ${CHANGES_MAX_RECORDS} records: the newest ${CHANGES_MAX_RECORDS} are listed.` }),
    items: Type.Array(ChangeRecord),
  },
  { title: 'NcmChanges', additionalProperties: false },
)

export function changesRoutes(c: NcmContext): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/ncm/devices/{device_id}/versions/{version_id}/changes',
      permission: NCM_READ,
      summary: 'Who changed it: the TACACS+ commands of a change',
      description: `The TACACS+ authorization and accounting records with a command that the device sent between the last fetch that still saw the previous version and the first fetch that saw this one (each widened by the setting \`ncm.change_window_slack_seconds\`), newest first, at most ${CHANGES_MAX_RECORDS}. Needs \`aaa-logs.read\` as well (403 at \`logs\` without it). Without the AAA logs plugin the answer has \`logs_available: false\` and no records.`,
      tags: ['ncm'],
      schema: { params: VersionParams, response: { 200: Changes, 403: ErrorBody, 404: ErrorBody } },
      handler: async (req) => {
        const actor = req.actor
        const mayReadLogs = !c.aaaLogs || (actor !== null && (actor.isAdmin || actor.permissions.has(LOGS_READ)))
        // A version that does not exist is 404 first, as for every ncm.read holder (who may list versions anyway).
        return versionChanges(c, req.params.device_id, req.params.version_id, () => {
          if (!mayReadLogs) throw CommonErrors.forbidden({ field: 'logs' })
        })
      },
    }),
  ] as RouteDefinition[]
}
