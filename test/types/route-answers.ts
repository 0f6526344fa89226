import { defineRoute, Type, reply, Nullable, PUBLIC } from '../../sdk/index.js'

const Item = Type.Object({ id: Type.String(), name: Type.String(), tags: Type.Array(Type.Object({ k: Type.String() })), meta: Type.Unknown(), owner: Nullable(Type.Object({ id: Type.String() })) }, { additionalProperties: false })
const base = { method: 'GET', path: '/t', permission: PUBLIC, summary: 't', schema: { response: { 200: Item } } } as const

export const ok = defineRoute({ ...base, handler: async () => ({ id: 'a', name: 'b', tags: [{ k: 'x' }], meta: { anything: 1 }, owner: null }) })
export const okReply = defineRoute({ ...base, handler: async () => reply({ status: 202 }) })
export const extra = defineRoute({
  ...base,
  // @ts-expect-error a field the schema lacks
  handler: async () => ({ id: 'a', name: 'b', tags: [], meta: 1, owner: null, password_hash: 'x' }),
})
export const wrong = defineRoute({
  ...base,
  // @ts-expect-error a field of the wrong type
  handler: async () => ({ id: 1, name: 'b', tags: [], meta: 1, owner: null }),
})
export const deep = defineRoute({
  ...base,
  // @ts-expect-error a nested extra field
  handler: async () => ({ id: 'a', name: 'b', tags: [{ k: 'x', secret: 1 }], meta: 1, owner: { id: 'x', hash: 'y' } }),
})
interface Row { id: string; name: string; tags: { k: string }[]; meta: unknown; owner: null; sealed_key: Buffer }
declare const row: Row
export const fromRow = defineRoute({
  ...base,
  // @ts-expect-error a typed row with a column the schema lacks
  handler: async () => row,
})
