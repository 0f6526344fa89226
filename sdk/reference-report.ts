/**
 * The answer of a `GET …/{id}/references` route: what refers to a record, as the referring plugins'
 * guards report it (references.ts), split by what a delete does with each. One shape for every owner
 * of referenced records (users and user groups, devices and device groups, endpoint groups, TACACS+
 * profiles and command sets…); each names its own schema and says which kinds may refer to it.
 */
import { Type } from './schema.js'

export interface ReferenceReportWords {
  /** The report's schema title (an OpenAPI component name), e.g. `InventoryReferenceReport`. */
  title: string
  /** The title of one reference's schema, e.g. `InventoryReference`. */
  referenceTitle: string
  /** What may refer, for `type`'s description: "`aaa_policy_rule` (an AAA policy rule whose WHERE names it), …". */
  types: string
  /** What a delete does with the references it clears (default: the referring record stays, without it). */
  clears?: string
}

export function referenceReportSchema(w: ReferenceReportWords) {
  const reference = Type.Object(
    {
      type: Type.String({ description: `What refers, as a resource type: ${w.types}` }),
      id: Type.String({ format: 'uuid' }),
      name: Type.String(),
    },
    { title: w.referenceTitle, additionalProperties: false },
  )
  return Type.Object(
    {
      blocking: Type.Array(reference, { description: 'References that make a delete fail (409) while they exist. Ordered by type, then name.' }),
      auto_clearing: Type.Array(reference, { description: `References a delete removes by itself (${w.clears ?? 'the referring record stays, without the reference'}). Ordered by type, then name.` }),
    },
    { title: w.title, additionalProperties: false },
  )
}
