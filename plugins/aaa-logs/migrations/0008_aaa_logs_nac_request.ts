import type { Knex } from 'knex'

/**
 * RADIUS authentication rows keep what an 802.1X or MAB request was (issue 33: the change-impact
 * replay groups the distinct requests of a window and evaluates them again):
 * - `nac_method`: peap, eap-tls or mab (the control attribute Portcullis-NAC-Method); null on
 *   device administration. Older rows have none: the readers take it from `auth_type` (PEAP,
 *   EAP-TLS, MAB) there.
 * - `nac_user`: the authenticated user (PEAP's inner identity, the certificate's Common-Name).
 * - `outer_identity`: User-Name as the supplicant sent it (`anonymous`), where `username` holds
 *   the authenticated user; null where they are the same.
 * - `nas_port_type`: NAS-Port-Type as the NAS sent it (Ethernet, Wireless-802.11 …).
 *
 * Nullable columns without a default: adding them rewrites nothing, at any size.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE aaa_log_radius_auth
    ADD COLUMN nac_method varchar(16),
    ADD COLUMN nac_user varchar(253),
    ADD COLUMN outer_identity varchar(253),
    ADD COLUMN nas_port_type varchar(64)`)
}
