/** The greetings service: what other plugins may use, through `greetingsServiceRef`. */
import type { Knex } from 'knex'
import { createServiceRef, type DatabaseService } from '@portcullis/sdk'
import type { Greeting } from './schemas.js'

export interface GreetingsService {
  list(db?: Knex | Knex.Transaction): Promise<Greeting[]>
  greet(name: string, suffix: string): string
}

export const greetingsServiceRef = createServiceRef<GreetingsService>({ id: 'greetings.service' })

export interface GreetingRow {
  id: string
  name: string
  message: string
  note: string | null
  created_at: Date
  updated_at: Date
}

export const toGreeting = (r: GreetingRow): Greeting => ({
  id: r.id,
  name: r.name,
  message: r.message,
  note: r.note,
  created_at: new Date(r.created_at).toISOString(),
  updated_at: new Date(r.updated_at).toISOString(),
})

export function createGreetingsService(database: DatabaseService): GreetingsService {
  return {
    async list(db = database.knex) {
      return ((await db('greetings_greeting').orderBy('name')) as GreetingRow[]).map(toGreeting)
    },
    greet: (name, suffix) => `Hello, ${name}${suffix}`,
  }
}
