import type { Knex } from 'knex'

/**
 * RADIUS rows say who sent the request and why it was refused (issue 12):
 * - `nas_ip_address` (both kinds): NAS-IP-Address as the NAS claims it. From
 *   here on `nas_ip` and `device_name` hold the client FreeRADIUS verified (the
 *   packet's source address, the device whose secret checked it), as TACACS+
 *   rows always did; rows ingested before keep what they had.
 * - `nas_identifier` on accounting rows too (authentication rows had it).
 * - `reject_reason` (authentication): why a reject happened, as a code
 *   (unknown_user, disabled, network_login_off, no_rule, wrong_password, …).
 * - `reply_attributes_truncated` (authentication): every reply attribute is
 *   logged now, and FreeRADIUS cuts one expansion at 2,047 bytes; true when
 *   `reply_attributes` holds only the attributes before the cut.
 * Accounting's `input_octets`/`output_octets` now fold Acct-*-Gigawords in:
 * same columns (bigint), larger values.
 *
 * Nullable columns, and a constant default: adding them rewrites nothing, at any size.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE aaa_log_radius_auth
    ADD COLUMN nas_ip_address inet,
    ADD COLUMN reject_reason varchar(32),
    ADD COLUMN reply_attributes_truncated boolean NOT NULL DEFAULT false`)
  await knex.raw(`ALTER TABLE aaa_log_radius_acct
    ADD COLUMN nas_ip_address inet,
    ADD COLUMN nas_identifier varchar(253)`)
}

