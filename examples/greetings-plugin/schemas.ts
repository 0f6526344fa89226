import { Type, Name, OptionalText, Uuid, Timestamp, Nullable, type Static } from '@portcullis/sdk'

export const GreetingCreate = Type.Object(
  {
    name: Name({ maxLength: 64, description: 'Who is greeted; unique.' }),
    message: Type.String({ minLength: 1, maxLength: 200 }),
    note: OptionalText({ maxLength: 500 }),
  },
  { title: 'GreetingCreate', additionalProperties: false },
)

export const GreetingResponse = Type.Object(
  {
    id: Uuid(),
    name: Type.String(),
    message: Type.String(),
    note: Nullable(Type.String()),
    created_at: Timestamp(),
    updated_at: Timestamp(),
  },
  { title: 'GreetingResponse', additionalProperties: false },
)

export const GreetingParams = Type.Object({ greeting_id: Uuid() }, { additionalProperties: false })

export const HelloQuery = Type.Object({ name: Type.String({ minLength: 1, maxLength: 64 }), times: Type.Optional(Type.Integer({ minimum: 1, maximum: 5, default: 1 })) }, { additionalProperties: false })
export const HelloResponse = Type.Object({ message: Type.String() }, { title: 'HelloResponse', additionalProperties: false })

export type GreetingCreate = Static<typeof GreetingCreate>
export type Greeting = Static<typeof GreetingResponse>
