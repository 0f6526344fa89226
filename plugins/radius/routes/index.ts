import type { Knex } from 'knex'
import type { RouteDefinition } from '../../../sdk/index.js'
import { dictionaryRoutes } from './dictionary.js'
import { profileRoutes } from './profiles.js'

export function radiusRoutes(knex: Knex): RouteDefinition[] {
  return [...profileRoutes(knex), ...dictionaryRoutes()] as RouteDefinition[]
}
