import type { Knex } from 'knex'
import type { OwnedReferenceTarget, RouteDefinition } from '../../../sdk/index.js'
import { dictionaryRoutes } from './dictionary.js'
import { profileRoutes } from './profiles.js'

export function radiusRoutes(knex: Knex, profileRefs: OwnedReferenceTarget): RouteDefinition[] {
  return [...profileRoutes(knex, profileRefs), ...dictionaryRoutes()] as RouteDefinition[]
}
