/** GET /ncm/devices/{device_id}/diff: two stored versions compared, as a unified diff. */
import { CommonErrors, defineRoute, ErrorBody, mayReveal, Nullable, Type, Uuid, type RouteDefinition } from '../../../sdk/index.js'
import { NCM_READ, NCM_REVEAL } from '../permissions.js'
import type { NcmContext } from '../services/context.js'
import { DIFF_MAX_BYTES, versionsDiff } from '../services/diff.js'

const DeviceParams = Type.Object({ device_id: Uuid() }, { additionalProperties: false })
const DiffQuery = Type.Object(
  {
    from: Type.Optional(Uuid({ description: "The earlier side (default: the `to` version's previous one; none for the first version)." })),
    to: Type.Optional(Uuid({ description: 'The later side (default: the latest version).' })),
    context: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, default: 3, description: 'Unchanged lines around each change.' })),
    reveal: Type.Optional(Type.Boolean({ default: false, description: 'Compare the texts with their secrets; needs ncm.reveal (403 at `reveal` without it).' })),
  },
  { additionalProperties: false },
)
const NcmDiff = Type.Object(
  {
    from: Nullable(Uuid()),
    to: Uuid(),
    revealed: Type.Boolean(),
    unified: Type.String({ description: `A unified diff (\`---\`/\`+++\` headers, \`@@\` hunks); empty when the texts are equal. At most ${DIFF_MAX_BYTES / 1024 / 1024} MiB.` }),
    added: Type.Integer({ minimum: 0, description: 'Lines added (of the whole diff, also when `unified` is truncated).' }),
    removed: Type.Integer({ minimum: 0 }),
    truncated: Type.Boolean({ description: '`unified` was cut at the size limit: it shows the beginning of the changes (its last hunk header counts only the lines shown).' }),
    minimal: Type.Boolean({ description: 'false: a part of the files was too different to compare line by line and is shown as replaced whole (correct, not the shortest).' }),
    secrets_only: Type.Boolean({ description: 'Only a secret differs: the masked texts are equal.' }),
  },
  { title: 'NcmDiff', additionalProperties: false },
)

export function diffRoutes(c: NcmContext): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/ncm/devices/{device_id}/diff',
      permission: NCM_READ,
      summary: 'Compare two configuration versions of a device',
      description:
        'A unified diff between two stored versions of the device: by default the latest against the one before it. Masked texts, unless `reveal=true` by a caller holding `ncm.reveal`. A version of another device is not found (404 at `from` or `to`).',
      tags: ['ncm'],
      schema: { params: DeviceParams, query: DiffQuery, response: { 200: NcmDiff, 403: ErrorBody, 404: ErrorBody } },
      handler: async (req) => {
        const reveal = mayReveal(req.actor, req.query.reveal, NCM_REVEAL)
        if (req.query.reveal && !reveal) throw CommonErrors.forbidden({ field: 'reveal' })
        return versionsDiff(c, req.params.device_id, { from: req.query.from, to: req.query.to, context: req.query.context, reveal })
      },
    }),
  ] as RouteDefinition[]
}
