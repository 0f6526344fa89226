import { defineRoute, Type } from '../../sdk/index.js'
import type { KernelContext } from './context.js'

const RbacSchema = Type.Object(
  {
    groups: Type.Array(
      Type.Object(
        {
          plugin: Type.String({ description: '`kernel` or a plugin id.' }),
          permissions: Type.Array(Type.Object({ name: Type.String(), description: Type.String() }, { additionalProperties: false })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { title: 'RbacSchemaResponse', additionalProperties: false },
)

export const rbacRoutes = (k: KernelContext) => [
  defineRoute({
    method: 'GET',
    path: '/rbac/schema',
    permission: 'rbac.read',
    summary: 'RBAC permissions',
    description: 'Every permission that gates a route, grouped by the plugin that declares it, described in the caller\'s language.',
    tags: ['system'],
    schema: { response: { 200: RbacSchema } },
    handler: async (req) => {
      const groups = new Map<string, { name: string; description: string }[]>()
      for (const p of [...k.registry.permissions.values()].sort((a, b) => a.name.localeCompare(b.name))) {
        const list = groups.get(p.owner) ?? []
        list.push({ name: p.name, description: (req.lang === 'ru' && p.description.ru) || p.description.en })
        groups.set(p.owner, list)
      }
      return { groups: [...groups.entries()].map(([plugin, permissions]) => ({ plugin, permissions })) }
    },
  }),
]
