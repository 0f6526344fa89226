/**
 * The policy test's secondary sentences (services/evaluate.ts, verdict-parts.ts): login and enable
 * refusals, the RADIUS wider client, expiry and the directory, a service not answered, a mandatory
 * NAS attribute. Spread into locales/en.ts under `verdict` beside verdict-en.ts.
 */
export default {
  wider_client_no_secret: 'device {{device}} has no RADIUS secret, so FreeRADIUS answers {{address}} as the wider client {{client}}',
  wider_client_disabled: 'device {{device}} is disabled, so FreeRADIUS answers {{address}} as the wider client {{client}}',
  its_address: 'its address',
  expired_radius: 'user {{username}} expired at {{at}}: FreeRADIUS (Expiration) rejects the login from then on',
  expired_tacacs: 'user {{username}} expired at {{at}}: tac_plus-ng (valid until) refuses the login from then on',
  expired_session: 'user {{username}} expired at {{at}}, but tac_plus-ng checks expiry at login only, not on the authorizations of a session',
  no_directory_radius: 'user {{username}} is a directory user, and no directory is set (setting directory.url): FreeRADIUS rejects them before any rule (directory_not_configured)',
  no_directory_tacacs: 'user {{username}} is a directory user, and no directory is set (setting directory.url): tac_plus-ng is not given directory users then, so it does not know the account',
  login_refused: '{{method}} login: {{why}}',
  enable_refused: 'enable login: rule {{rule}} gives TACACS+ profile {{profile}}, {{why}}',
  service_not_answered: 'rule {{rule}} gives TACACS+ profile {{profile}}, which answers service {{services}} only: the daemon denies service {{service}}',
  mandatory_attribute: '{{permitted}}, but the NAS sent the mandatory attribute {{pair}}, which the profile does not set to that value: tac_plus-ng fails the authorization (a mandatory pair the daemon cannot match is refused)',
  login: {
    no_password: 'user {{username}} has no network password (none set since network login was turned on: network_verifiers_set is false), so the daemon holds no verifier and rejects the login',
    directory_method: '{{method}} is not supported for directory user {{username}}: the directory checks the password by an LDAP bind, which needs the password itself (PAP, ASCII); MS-CHAPv2 against Active Directory (ntlm_auth) is the domain sidecar\'s job, not built',
    lockout: 'account lockout is on: tac_plus-ng would check CHAP outside the failure count, so user {{username}} is given no CHAP or MS-CHAP password and {{method}} is rejected (identity.lockout_threshold > 0; PAP, ASCII and enable are counted)',
    no_cleartext: '{{method}} is not supported for user {{username}}: tac_plus-ng needs the cleartext password, which the platform keeps only with chap_enabled, from a password set while it was on (and not holding "${"), so it rejects the login (its log says "{{log}}")',
    mschap_plane: 'MS-CHAPv2 is not supported for user {{username}}: the password holds a character outside the Basic Multilingual Plane, which tac_plus-ng hashes wrongly for MS-CHAP, so it is not given one and rejects the login (CHAP works)',
    radius_chap: 'CHAP is not supported for user {{username}}: it needs the cleartext password, which the platform keeps only with chap_enabled, from a password set while it was on (and holding no control character); FreeRADIUS rejects',
  },
  enable: {
    none: 'whose enable_mode is none: tac_plus-ng holds no enable password for it and rejects enable',
    level: 'which grants enable up to level {{level}} only: enable asks for level 15, which tac_plus-ng rejects',
    no_password: 'whose enable takes the login password, and user {{username}} has no network password (network_verifiers_set is false): tac_plus-ng rejects enable',
  },
}
