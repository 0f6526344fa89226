import { defineRoute, CommonErrors, Type } from '../../sdk/index.js'
import type { KernelContext } from './context.js'

const SettingKey = Type.Object({ key: Type.String({ minLength: 3, maxLength: 128, pattern: '^[a-z][a-z0-9_-]*\\.[a-z0-9_.]+$' }) }, { additionalProperties: false })

const Setting = Type.Object(
  {
    key: Type.String(),
    owner: Type.String({ description: '`kernel` or the plugin that declares the key.' }),
    description: Type.String(),
    value: Type.Unknown(),
    default: Type.Unknown(),
    schema: Type.Unknown({ description: 'JSON Schema the value must match.' }),
    secret: Type.Boolean({ description: 'Write-only: `value` is `"***"` when set (null when not), never the value itself.' }),
  },
  { title: 'SettingResponse', additionalProperties: false },
)

const SettingUpdate = Type.Object({ value: Type.Unknown() }, { title: 'SettingUpdate', additionalProperties: false, required: ['value'] })

export const settingsRoutes = (k: KernelContext) => {
  const describe = async (key: string) => {
    const ref = k.settings.find(key)
    if (!ref) throw CommonErrors.notFound({ field: 'key' })
    const owner = k.settings.list().find((s) => s.key === key)!.owner
    const value = await k.settings.get(ref)
    // A secret setting is write-only: the API says whether it is set, never what it is.
    const shown = ref.secret ? (value === null ? null : '***') : value
    return { key, owner, description: ref.description, value: shown, default: ref.default, schema: JSON.parse(JSON.stringify(ref.schema)) as unknown, secret: !!ref.secret }
  }
  return [
    defineRoute({
      method: 'GET',
      path: '/settings',
      permission: 'settings.read',
      summary: 'List settings',
      description: 'Every typed setting of the kernel and the loaded plugins, with its current value.',
      tags: ['system'],
      schema: { response: { 200: Type.Array(Setting) } },
      handler: async () => Promise.all(k.settings.list().map((s) => describe(s.key))),
    }),
    defineRoute({
      method: 'GET',
      path: '/settings/{key}',
      permission: 'settings.read',
      summary: 'Get a setting',
      tags: ['system'],
      schema: { params: SettingKey, response: { 200: Setting } },
      handler: async ({ params }) => describe(params.key),
    }),
    defineRoute({
      method: 'PUT',
      path: '/settings/{key}',
      permission: 'settings.write',
      summary: 'Change a setting',
      description: 'The value is validated against the setting\'s schema (422 with `field: "value"` otherwise) and the change is audited.',
      tags: ['system'],
      schema: { params: SettingKey, body: SettingUpdate, response: { 200: Setting } },
      handler: async (req) => {
        const ref = k.settings.find(req.params.key)
        if (!ref) throw CommonErrors.notFound({ field: 'key' })
        await k.settings.set(ref, req.body.value, { actor: req.actor, requestId: req.requestId })
        return describe(req.params.key)
      },
    }),
  ]
}
