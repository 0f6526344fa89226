import type { Knex } from 'knex'

/**
 * The captive portal's tables: portals (what a guest sees and what each method
 * grants), guest accounts, portal sessions (a device passing through a portal:
 * the endpoint it registers), e-mailed codes and sponsor requests.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('portal_portals', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.text('name').notNullable()
    // The URL's path segment: /portal/{slug}.
    t.text('slug').notNullable()
    t.text('description')
    t.boolean('enabled').notNullable().defaultTo(true)
    // Of hotspot, self_registration, sponsored, byod: the ways in this portal offers, in the order shown.
    t.jsonb('methods').notNullable().defaultTo('[]')
    // Chosen by the NAS (its address) or the SSID (Called-Station-Id's text after the colon) when the redirect names no slug.
    t.jsonb('nas_ips').notNullable().defaultTo('[]')
    t.jsonb('ssids').notNullable().defaultTo('[]')
    // Aruba's own redirect parameters are unsigned: accepted only when the portal says so.
    t.boolean('accept_unsigned_redirect').notNullable().defaultTo(false)
    // The NAC endpoint groups registered guests and employees' devices join (the policy gives them their VLAN).
    t.uuid('guest_endpoint_group_id')
    t.uuid('byod_endpoint_group_id')
    t.integer('guest_minutes').notNullable().defaultTo(480)
    t.integer('byod_days')
    t.integer('byod_device_limit').notNullable().defaultTo(3)
    // 'none' or 'certificate' (an EAP-TLS certificate through the PKI, so the device moves to 802.1X).
    t.text('byod_onboarding').notNullable().defaultTo('none')
    // Extra self-registration fields: [{ name, label: { en, ru }, required }].
    t.jsonb('self_registration_fields').notNullable().defaultTo('[]')
    t.jsonb('sponsor_domains').notNullable().defaultTo('[]')
    t.uuid('sponsor_group_id')
    t.integer('sponsor_link_minutes').notNullable().defaultTo(60)
    // { primary_colour, background_colour, texts: { en: { title, welcome, terms }, ru: {...} } }
    t.jsonb('branding').notNullable().defaultTo('{}')
    t.binary('logo')
    t.text('logo_type')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
  })
  await knex.raw('CREATE UNIQUE INDEX portal_portals_name_ci ON portal_portals (lower(name))')
  await knex.raw('CREATE UNIQUE INDEX portal_portals_slug ON portal_portals (slug)')

  // A guest: someone who registered (hotspot, self-registration, sponsored) or an account an
  // administrator created for an event. Not a platform user: it never signs in to the API.
  await knex.schema.createTable('portal_guests', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.uuid('portal_id').notNullable().references('portal_portals.id').onDelete('CASCADE')
    // hotspot, self_registration, sponsored, account
    t.text('kind').notNullable()
    t.text('name')
    t.text('email')
    t.jsonb('fields').notNullable().defaultTo('{}')
    // An event's account: the credentials a guest types on the portal (argon2id hash).
    t.text('username')
    t.text('password_hash')
    t.text('event')
    t.text('sponsor_email')
    t.uuid('sponsor_user_id')
    // pending_code, pending_approval, active, denied, revoked, expired
    t.text('status').notNullable()
    t.timestamp('valid_from', { useTz: true })
    t.timestamp('valid_until', { useTz: true })
    t.uuid('created_by')
    t.timestamp('ended_at', { useTz: true })
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.index(['status', 'valid_until'])
  })
  await knex.raw('CREATE UNIQUE INDEX portal_guests_username ON portal_guests (lower(username)) WHERE username IS NOT NULL')

  // A device passing through a portal: from the redirect (started) to registered (active) and its end.
  await knex.schema.createTable('portal_sessions', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.uuid('portal_id').notNullable().references('portal_portals.id').onDelete('CASCADE')
    t.uuid('guest_id').references('portal_guests.id').onDelete('SET NULL')
    // An employee's own device (byod): the platform user it is registered to.
    t.uuid('user_id')
    // hotspot, self_registration, sponsored, account, byod; null until the guest chose.
    t.text('method')
    t.text('mac').notNullable()
    t.uuid('endpoint_id')
    // The endpoint group the registration put it in (what expiry takes it out of).
    t.uuid('endpoint_group_id')
    t.text('nas_ip')
    t.text('ssid')
    t.boolean('redirect_signed').notNullable().defaultTo(false)
    t.text('client_ip')
    t.text('language')
    // sha256 (hex) of the guest session token: the token itself is never stored.
    t.text('token_hash').notNullable()
    // started, pending_code, pending_approval, active, denied, ended, expired
    t.text('state').notNullable()
    t.timestamp('registered_at', { useTz: true })
    t.timestamp('expires_at', { useTz: true })
    t.timestamp('ended_at', { useTz: true })
    // admin, expired, revoked, replaced, user_access_ended
    t.text('end_reason')
    t.uuid('coa_request_id')
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.index(['state', 'expires_at'])
    t.index(['mac'])
    t.index(['user_id'])
  })
  await knex.raw('CREATE UNIQUE INDEX portal_sessions_token ON portal_sessions (token_hash)')

  // Self-registration codes sent by mail: a hash, a budget of tries, a short life.
  await knex.schema.createTable('portal_codes', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.uuid('session_id').notNullable().references('portal_sessions.id').onDelete('CASCADE')
    t.text('email').notNullable()
    t.text('code_hash').notNullable()
    t.integer('failures').notNullable().defaultTo(0)
    t.timestamp('expires_at', { useTz: true }).notNullable()
    t.timestamp('spent_at', { useTz: true })
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.index(['email', 'created_at'])
  })

  // A guest asking a sponsor: the mailed link (its token hashed), decided once.
  await knex.schema.createTable('portal_sponsor_requests', (t) => {
    t.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'))
    t.uuid('session_id').notNullable().references('portal_sessions.id').onDelete('CASCADE')
    t.uuid('guest_id').notNullable().references('portal_guests.id').onDelete('CASCADE')
    t.text('sponsor_email').notNullable()
    t.uuid('sponsor_user_id')
    t.text('token_hash').notNullable()
    // pending, approved, denied, expired
    t.text('status').notNullable().defaultTo('pending')
    t.timestamp('expires_at', { useTz: true }).notNullable()
    // link, api
    t.text('decided_via')
    t.uuid('decided_by')
    t.timestamp('decided_at', { useTz: true })
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now())
    t.index(['status'])
  })
  await knex.raw('CREATE UNIQUE INDEX portal_sponsor_requests_token ON portal_sponsor_requests (token_hash)')
}
