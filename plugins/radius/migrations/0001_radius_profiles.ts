import type { Knex } from 'knex'

export async function up(knex: Knex): Promise<void> {
  // The plugin's own table: other plugins reference profiles through the service's `references` (api.ts), never here.
  await knex.schema.createTable('radius_profiles', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.string('name', 64).notNullable()
    t.string('description', 500)
    // The ordered reply list, [{ name, value }, …]: order is what FreeRADIUS sends, so it is kept as given.
    t.jsonb('attributes').notNullable().defaultTo(knex.raw(`'[]'::jsonb`))
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
  })
  // Names are unique case-insensitively; the index also catches two requests racing past the check.
  await knex.raw('CREATE UNIQUE INDEX radius_profiles_name_lower ON radius_profiles (lower(name))')
  await knex.raw(`ALTER TABLE radius_profiles ADD CONSTRAINT radius_profiles_attributes_array CHECK (jsonb_typeof(attributes) = 'array')`)
}
