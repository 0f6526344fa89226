/**
 * The eap module (`mods-enabled/portcullis_eap`) and the inner tunnel (`sites-enabled/portcullis-inner`)
 * of 802.1X, written only when the server options radius.eap_certificate_file and
 * radius.eap_private_key_file are set (files on the server; the key never goes through the database).
 *
 * - PEAP (version 0) with EAP-MSCHAPv2 inside, in the virtual server `portcullis-inner`: the inner
 *   identity is looked up in portcullis/verifiers (the NT hash the tree already has for MS-CHAP); the
 *   users who may not sign in are refused there as on device administration, expiry too. The inner
 *   server hands the user to the outer one through session-state (nac-site.ts reads it in post-auth).
 * - EAP-TLS: the client certificate must chain to the CA the pki plugin writes
 *   (certs/portcullis/ca-crl.pem, its chain followed by the CRLs, setting pki.freeradius_ca_id):
 *   OpenSSL loads certificates and CRLs from one `ca_file`, and `check_crl` then
 *   refuse a certificate revoked by the CRL of the deploy. The pki plugin writes that file and
 *   certs/portcullis/eap-trust.conf (ca_file, check_crl) that this module includes with `$-INCLUDE`:
 *   without a CA set, EAP-TLS trusts nothing (PEAP still works). Its certs/portcullis/eap-issuer
 *   (nac-site.ts includes it in post-auth) refuses a certificate the CA did not sign itself.
 * - TLS 1.2 to 1.3 (tls_min_version / tls_max_version, as FreeRADIUS 3.2.1 reads them).
 * - The keys (MS-MPPE-*) go to the switch in the Access-Accept, as 802.1X needs (the log leaves them out).
 * - Not enforced inside the tunnel: the account lockout (identity.lockout_*) and the second factor
 *   (radius.mfa_mode) of device administration; expiry and the refusals are.
 */
import { CONTROL_ATTRIBUTES } from '../../../sdk/logs/freeradius.js'
import type { FreeradiusNac } from './nac-input.js'
import { NAC_ATTRIBUTES as N } from './nac-attributes.js'
import { DIRECTORY, REFUSED } from './users.js'
import { FreeradiusRenderError, HEADER, refusal, T } from './syntax.js'

export const INNER_SERVER = 'portcullis-inner'

/** An absolute path as FreeRADIUS reads it inside double quotes (the server option's own pattern, checked again). */
function qfile(p: string, what: string): string {
  if (!/^\/[^\u0000-\u001f"\\%${}]*$/.test(p)) throw new FreeradiusRenderError(`${what} must be an absolute path without control characters, quotes, backslashes, "%", "$" or braces`)
  return `"${p}"`
}

export function eapModule(eap: NonNullable<FreeradiusNac['eap']>): string {
  return `${HEADER}
# 802.1X (renderers/nac-eap.ts): PEAP with MSCHAPv2 inside (virtual server ${INNER_SERVER}), EAP-TLS
# against the platform CA (certs/portcullis/, written by the pki plugin). Server certificate and key:
# server options radius.eap_certificate_file and radius.eap_private_key_file.
eap {
${T}default_eap_type = peap
${T}timer_expire = 60
${T}ignore_unknown_eap_types = no
${T}max_sessions = \${max_requests}

${T}tls-config tls-common {
${T}${T}certificate_file = ${qfile(eap.certificateFile, 'server option radius.eap_certificate_file')}
${T}${T}private_key_file = ${qfile(eap.privateKeyFile, 'server option radius.eap_private_key_file')}
${T}${T}# The platform CA and its CRLs (pki.freeradius_ca_id): ca_file and check_crl (not check_all_crl: FreeRADIUS 3.2.1 then refuses every certificate).
${T}${T}$-INCLUDE \${confdir}/certs/portcullis/eap-trust.conf
${T}${T}random_file = /dev/urandom
${T}${T}fragment_size = 1024
${T}${T}include_length = yes
${T}${T}auto_chain = yes
${T}${T}cipher_list = "HIGH"
${T}${T}cipher_server_preference = yes
${T}${T}tls_min_version = "1.2"
${T}${T}tls_max_version = "1.3"
${T}${T}ecdh_curve = ""
${T}${T}cache {
${T}${T}${T}enable = no
${T}${T}}
${T}${T}verify {
${T}${T}}
${T}}

${T}tls {
${T}${T}tls = tls-common
${T}}

${T}peap {
${T}${T}tls = tls-common
${T}${T}default_eap_type = mschapv2
${T}${T}copy_request_to_tunnel = yes
${T}${T}use_tunneled_reply = no
${T}${T}virtual_server = "${INNER_SERVER}"
${T}${T}require_client_cert = no
${T}}
}

# Inside the PEAP tunnel: EAP-MSCHAPv2 only.
eap portcullis_inner_eap {
${T}default_eap_type = mschapv2
${T}timer_expire = 60
${T}ignore_unknown_eap_types = no
${T}max_sessions = \${max_requests}
${T}mschapv2 {
${T}${T}send_error = no
${T}}
}
`
}

/** `sites-enabled/portcullis-inner`: the PEAP inner tunnel (radiusd.conf includes it with $-INCLUDE). */
export function innerServer(nac: FreeradiusNac | null): string {
  if (!nac?.eap) return `${HEADER}\n# No PEAP inner tunnel: 802.1X is not served (no NAC policy source, or the EAP server options are unset).\n`
  return `${HEADER}
# The PEAP inner tunnel (renderers/nac-eap.ts): EAP-MSCHAPv2 against the platform's NT hashes.
server ${INNER_SERVER} {
authorize {
${T}# The inner identity: its verifiers, expiry, or why it may not sign in (portcullis/verifiers).
${T}portcullis_users
${T}if (&control:${REFUSED}) {
${T}${T}update outer.session-state {
${T}${T}${T}&${CONTROL_ATTRIBUTES.rejectReason} := "%{control:${REFUSED}}"
${T}${T}}
${T}${T}reject
${T}}
${T}if (!&control:NT-Password) {
${T}${T}if (&control:${DIRECTORY}) {
${T}${T}${T}# A directory user: the directory checks a password by an LDAP bind, never an MS-CHAPv2 answer.
${T}${T}${T}update outer.session-state {
${T}${T}${T}${T}&${CONTROL_ATTRIBUTES.rejectReason} := "directory_pap_only"
${T}${T}${T}}
${T}${T}}
${T}${T}else {
${T}${T}${T}update outer.session-state {
${T}${T}${T}${T}&${CONTROL_ATTRIBUTES.rejectReason} := "unknown_user"
${T}${T}${T}}
${T}${T}}
${T}${T}reject
${T}}
${T}# userlock = 1: go on to the test below (the module's userlock would leave the section, unnamed: "wrong_password").
${T}expiration {
${T}${T}userlock = 1
${T}}
${T}if (userlock) {
${T}${T}update outer.session-state {
${T}${T}${T}&${CONTROL_ATTRIBUTES.rejectReason} := "expired"
${T}${T}}
${T}${T}reject
${T}}
${T}portcullis_inner_eap {
${T}${T}ok = return
${T}}
${T}mschap
}

authenticate {
${T}Auth-Type portcullis_inner_eap {
${T}${T}portcullis_inner_eap
${T}}
${T}Auth-Type MS-CHAP {
${T}${T}mschap
${T}}
}

post-auth {
${T}# The user and their groups, for the NAC policy in the outer server's post-auth.
${T}update control {
${T}${T}&${N.user} := &User-Name
${T}}
${T}portcullis_nac_users.authorize
${T}update outer.session-state {
${T}${T}&${N.user} := &User-Name
${T}${T}&${N.userGroup} += &control:${N.userGroup}[*]
${T}}
${T}Post-Auth-Type REJECT {
${T}${T}if (!&outer.session-state:${CONTROL_ATTRIBUTES.rejectReason}) {
${T}${T}${T}update outer.session-state {
${T}${T}${T}${T}&${CONTROL_ATTRIBUTES.rejectReason} := "wrong_password"
${T}${T}${T}}
${T}${T}}
${T}${T}update outer.session-state {
${T}${T}${T}&${N.user} := &User-Name
${T}${T}}
${T}}
}
}
`
}

/** What the outer server does with an EAP request when no eap module is written. */
export const EAP_OFF = [
  `${T}# No eap module: server options radius.eap_certificate_file and radius.eap_private_key_file are unset.`,
  ...refusal('eap_not_configured', '802.1X is not served: set server options radius.eap_certificate_file and radius.eap_private_key_file', T),
  `${T}reject`,
]
