/** The supported reply attributes, so a UI can offer names, types and allowed values. */
import { defineRoute, type Static } from '../../../sdk/index.js'
import { RADIUS_READ } from '../permissions.js'
import { RadiusDictionaryResponse } from '../schemas/dictionary.js'
import { dictionaryEntries } from '../services/dictionary.js'

type Body = Static<typeof RadiusDictionaryResponse>

/** Built once: the dictionary ships with the plugin and never changes while it runs. */
const body = (): Body => ({
  attributes: dictionaryEntries().map((e) => ({
    name: e.name,
    vendor: e.vendor,
    type: e.type,
    values: e.values ? [...e.values] : null,
    min: e.min ?? null,
    max: e.max ?? null,
    max_length: e.maxLength ?? null,
    repeatable: e.repeatable,
    format: e.format ?? null,
    description: e.description,
  })),
})

export function dictionaryRoutes() {
  const answer = body()
  return [
    defineRoute({
      method: 'GET',
      path: '/radius/dictionary',
      permission: RADIUS_READ,
      summary: 'Supported RADIUS reply attributes',
      description: 'Every attribute a RADIUS profile may carry: its FreeRADIUS name, vendor, value type, accepted values or bounds, and whether it may repeat.',
      tags: ['radius'],
      schema: { response: { 200: RadiusDictionaryResponse } },
      handler: async () => answer,
    }),
  ]
}
