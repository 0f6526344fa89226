/** A tracked device's stored configuration versions, and one version's text (masked, or raw with ncm.reveal). */
import { CommonErrors, defineRoute, ErrorBody, listQuery, mayReveal, Nullable, paginate, Paginated, reply, Timestamp, Type, Uuid, type RouteDefinition } from '../../../sdk/index.js'
import { NCM_READ, NCM_REVEAL } from '../permissions.js'
import type { NcmContext } from '../services/context.js'
import { deviceVersion, trackedDevice, versionsWithBlobs, versionText, versionView, type StoredVersion } from '../services/versions.js'

const DeviceParams = Type.Object({ device_id: Uuid() }, { additionalProperties: false })
const VersionParams = Type.Object({ device_id: Uuid(), version_id: Uuid() }, { additionalProperties: false })
const ConfigQuery = Type.Object(
  { reveal: Type.Optional(Type.Boolean({ default: false, description: 'The text with its secrets; needs ncm.reveal (403 at `reveal` without it).' })) },
  { additionalProperties: false },
)

export const NcmVersion = Type.Object(
  {
    id: Uuid(),
    device_id: Uuid(),
    previous_id: Nullable(Uuid({ description: 'The version the device had before this one (null: the first).' })),
    collector_id: Nullable(Uuid()),
    latest: Type.Boolean({ description: "The device's current configuration." }),
    first_started_at: Timestamp({ description: 'When the fetch that first saw this text started.' }),
    first_finished_at: Timestamp({ description: 'When the fetch that first saw this text finished.' }),
    last_seen_started_at: Timestamp(),
    last_seen_at: Timestamp({ description: 'The last fetch that still saw this text.' }),
    seen_count: Type.Integer({ minimum: 1, description: 'Fetches that saw this text while it was current.' }),
    fetch_ms: Type.Integer({ minimum: 0 }),
    added: Type.Integer({ minimum: 0, description: 'Lines added since the previous version (masked texts).' }),
    removed: Type.Integer({ minimum: 0 }),
    secrets_only: Type.Boolean({ description: 'Only a secret changed: the masked texts are equal.' }),
    masked_size: Type.Integer({ minimum: 0, description: 'Bytes of the masked text (the raw size is never shown).' }),
    masked_sha256: Type.String({ description: 'SHA-256 of the masked text (the raw hash is never shown).' }),
  },
  { title: 'NcmVersion', additionalProperties: false },
)
const VersionList = Paginated(NcmVersion, 'NcmVersionList')
const VersionListQuery = listQuery({ maxPerPage: 500, defaultPerPage: 50, sortBy: ['first_finished_at'] as const, defaultSortOrder: 'desc' })

export function versionRoutes(c: NcmContext): RouteDefinition[] {
  const knex = c.database.knex
  return [
    defineRoute({
      method: 'GET',
      path: '/ncm/devices/{device_id}/versions',
      permission: NCM_READ,
      summary: "A device's configuration versions",
      description:
        'Every distinct configuration the device had, newest first by default. A version is made when a fetch sees a text different from the current one (a return to an earlier text is a new version). Sizes and hashes are of the masked text. `search` is accepted, as on every list, and ignored (a version has no text fields to match).',
      tags: ['ncm'],
      schema: { params: DeviceParams, query: VersionListQuery, response: { 200: VersionList, 404: ErrorBody } },
      handler: async ({ params, query }) => {
        const device = await trackedDevice(knex, params.device_id)
        return paginate<StoredVersion, ReturnType<typeof versionView>>(query, {
          base: () => versionsWithBlobs(knex).where('v.device_id', params.device_id),
          searchColumns: [],
          sortColumns: { first_finished_at: 'v.first_finished_at' },
          defaultSort: 'first_finished_at',
          defaultPerPage: 50,
          tieBreaker: 'v.id',
          map: (v) => versionView(v, device.latest_version_id),
        })
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/ncm/devices/{device_id}/versions/{version_id}/config',
      permission: NCM_READ,
      summary: 'One configuration version as text',
      description:
        'The configuration as stored (after the profile\'s strip lines), as text/plain. Secrets are masked (`<secret hidden>` after a secret line\'s keyword, and every known secret value wherever it appears) unless `reveal=true` is given by a caller holding `ncm.reveal` (403 at `reveal` without it).',
      tags: ['ncm'],
      download: { mediaTypes: ['text/plain'], headers: { 'Cache-Control': { description: '`no-store`.', schema: Type.String(), required: true } } },
      schema: { params: VersionParams, query: ConfigQuery, response: { 200: 'file', 403: ErrorBody, 404: ErrorBody } },
      handler: async (req) => {
        const reveal = mayReveal(req.actor, req.query.reveal, NCM_REVEAL)
        if (req.query.reveal && !reveal) throw CommonErrors.forbidden({ field: 'reveal' })
        await trackedDevice(knex, req.params.device_id)
        const v = await deviceVersion(knex, req.params.device_id, req.params.version_id, 'version_id')
        const text = await versionText(c, knex, v, reveal)
        return reply({ status: 200, body: Buffer.from(text, 'utf8'), contentType: 'text/plain; charset=utf-8', headers: { 'Cache-Control': 'no-store' } })
      },
    }),
  ] as RouteDefinition[]
}
