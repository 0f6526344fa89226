/** GET /ncm/search: a term in the latest configuration of every tracked device. */
import { defineRoute, ErrorBody, Nullable, StringEnum, Type, Uuid, type RouteDefinition } from '../../../sdk/index.js'
import { NCM_READ } from '../permissions.js'
import type { NcmContext } from '../services/context.js'
import { SEARCH_LINES_PER_DEVICE, SEARCH_MAX_DEVICES, searchLatest } from '../services/search.js'

const SearchQuery = Type.Object(
  {
    q: Type.String({ minLength: 3, maxLength: 200, pattern: '\\S', description: 'What to look for: at least 3 characters, case-insensitive.' }),
    match: Type.Optional(StringEnum(['contains', 'line'] as const, { default: 'contains', description: '`contains`: anywhere in a line; `line`: the whole line, indentation ignored (`ip http server` does not find `no ip http server`).' })),
    device_group_id: Type.Optional(Uuid({ description: 'Only devices of this group and its descendants.' })),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 1 })),
    per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  },
  { additionalProperties: false },
)
const SearchHit = Type.Object(
  {
    device_id: Uuid(),
    device_name: Nullable(Type.String()),
    version_id: Nullable(Uuid({ description: 'The latest version, whose text was searched.' })),
    match_count: Type.Integer({ minimum: 1, description: 'Matching lines in the device\'s configuration.' }),
    lines: Type.Array(Type.Object({ n: Type.Integer({ minimum: 1, description: 'Line number.' }), line: Type.String() }, { additionalProperties: false }), {
      maxItems: SEARCH_LINES_PER_DEVICE,
      description: `The first ${SEARCH_LINES_PER_DEVICE} matching lines (masked).`,
    }),
  },
  { title: 'NcmSearchHit', additionalProperties: false },
)
const SearchResult = Type.Object(
  {
    items: Type.Array(SearchHit),
    total: Type.Integer({ minimum: 0, description: 'Devices with a match.' }),
    total_capped: Type.Boolean({ description: `More than ${SEARCH_MAX_DEVICES} devices matched: only ${SEARCH_MAX_DEVICES} are listed; narrow the search.` }),
    page: Type.Integer({ minimum: 1 }),
    per_page: Type.Integer({ minimum: 1 }),
    pages: Type.Integer({ minimum: 0 }),
  },
  { title: 'NcmSearchResult', additionalProperties: false },
)

export function searchRoutes(c: NcmContext): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/ncm/search',
      permission: NCM_READ,
      summary: 'Search the latest configurations',
      description: `The devices whose latest configuration has a line matching \`q\`, by device name, each with its number of matching lines and the first ${SEARCH_LINES_PER_DEVICE} of them. Only the masked text is searched: a secret cannot be found by searching for it. At most ${SEARCH_MAX_DEVICES} devices are counted (\`total_capped\`).`,
      tags: ['ncm'],
      schema: { query: SearchQuery, response: { 200: SearchResult, 422: ErrorBody } },
      handler: async ({ query }) => searchLatest(c, query),
    }),
  ] as RouteDefinition[]
}
