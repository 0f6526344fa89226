/**
 * English for the settings screen (pages/Settings.tsx and its parts): en.ts's `settings`. `keys` gives every
 * setting the platform and its plugins register a label and a description in the console's words (the order
 * here is the order on screen); plugins/console/test/settings-words.test.ts fails when a registered key has
 * none. A key not listed (a third-party plugin's) shows its key and the server's description.
 */
export interface SettingWords {
  label: string
  description: string
}

const keys = {
  // Sign-in and sessions
  'identity.session_ttl_seconds': { label: 'Session lifetime (s)', description: 'How long a console or API session lasts after sign-in, in seconds (default 8 hours: one working shift).' },
  'identity.public_url': { label: 'Public address of the platform', description: 'Base URL users reach the platform at, used in mailed links (password reset, MFA setup). Empty: mail carries the token without a link; the Host header of a request never chooses where a link points.' },
  // Account lockout
  'identity.lockout_threshold': { label: 'Failed passwords before lockout', description: 'Wrong network passwords in a row after which FreeRADIUS and tac_plus-ng refuse the user, even with the right password, for the lockout duration; 0 turns lockout off. Applies at the next deploy. While on, tac_plus-ng checks passwords through MAVIS (needs Perl) and cannot take CHAP or MS-CHAP.' },
  'identity.lockout_seconds': { label: 'Lockout duration (s)', description: 'How long a lockout lasts, in seconds, from the failure that caused it (10 to 86400); also how far apart two failures may be and still count together.' },
  // Directory (LDAP)
  'directory.url': { label: 'Directory server', description: 'ldap://host[:port] or ldaps://host[:port] (Active Directory: a domain controller). Empty: no directory, and directory users cannot sign in anywhere.' },
  'directory.start_tls': { label: 'StartTLS', description: 'Upgrade an ldap:// connection with StartTLS before binding (the server certificate is checked).' },
  'directory.ca_certificate': { label: 'Directory CA certificates (PEM)', description: 'Certificates the directory server certificate must chain to (ldaps:// and StartTLS). Empty: the system trusted authorities.' },
  'directory.bind_dn': { label: 'Bind account', description: 'The account that looks users up: its DN, or user@domain for Active Directory. Empty: anonymous lookup.' },
  'directory.bind_password': { label: 'Bind password', description: 'The password of the bind account (sealed at rest).' },
  'directory.user_base_dn': { label: 'User search base', description: 'Where users are searched (subtree), e.g. ou=people,dc=example,dc=org.' },
  'directory.user_attribute': { label: 'User name attribute', description: 'The attribute holding the name the person types: uid (OpenLDAP), sAMAccountName (Active Directory).' },
  'directory.group_base_dn': { label: 'Group search base', description: 'Where the daemons look for the groups of a directory user (subtree), for user groups mapped to a directory group. Empty: the user search base.' },
  'directory.timeout_seconds': { label: 'Directory timeout (s)', description: 'How long a sign-in waits for the directory before it fails (closed).' },
  // Second factor
  'mfa.issuer': { label: 'Issuer name in authenticator apps', description: 'The name authenticator apps show next to the account (otpauth issuer).' },
  'mfa.push_timeout_seconds': { label: 'Push approval timeout (s)', description: 'How long a push approval request lives on the phone (5 to 120 s), and the longest a caller waits for the answer. Daemons wait a little longer.' },
  'mfa.push_admins_number_matching': { label: 'Administrators: push with number matching', description: 'An administrator who has a push device must sign in to the API and console with push (a TOTP code is refused), and every push to an administrator uses number matching where the caller can show the number. TACACS+ has no screen: it still pushes without a number.' },
  'mfa.internal_key': { label: 'Daemon MFA key', description: 'Shared secret the RADIUS and NAC daemons send to check a second factor (POST /api/v1/mfa/internal/verify). Empty: that check is off (404). Sealed at rest.' },
  'radius.mfa_mode': { label: 'RADIUS: how the code is asked', description: 'How FreeRADIUS asks users who have MFA for their code, once the daemon MFA key is set: challenge (an Access-Challenge after the right password), append (password followed by the 6-digit code in one request) or off (password alone). Applies at the next deploy.' },
  'radius.mfa_append_device_groups': { label: 'RADIUS: groups without challenge support', description: 'Device groups (and their subgroups) whose NASes cannot answer an Access-Challenge: in challenge mode they take the password followed by the code, as in append. Ids of existing device groups. Applies at the next deploy.' },
  'tacacs.mfa_mode': { label: 'TACACS+: how the code is asked', description: 'How tac_plus-ng asks users who have MFA for their code, once the daemon MFA key is set: append (password followed by the 6-digit code, at the ASCII prompt and in PAP; CHAP and MS-CHAP are then off for everyone) or off (password alone). Applies at the next deploy.' },
  // Mail
  'mail.smtp_host': { label: 'SMTP server', description: 'Host name of the SMTP server. Empty: no mail is sent.' },
  'mail.smtp_port': { label: 'SMTP port', description: 'Port of the SMTP server (587 with STARTTLS, 465 with TLS).' },
  'mail.smtp_tls': { label: 'SMTP encryption', description: 'starttls (port 587), tls (port 465) or none (a local relay).' },
  'mail.smtp_user': { label: 'SMTP user', description: 'User name, when the SMTP server asks for authentication.' },
  'mail.smtp_password': { label: 'SMTP password', description: 'Password of the SMTP user (sealed at rest).' },
  'mail.from': { label: 'Sender address', description: 'The From address of the mail the platform sends.' },
  // TACACS+
  'tacacs.listen_address': { label: 'Listen address', description: 'The address tac_plus-ng listens on (an IPv4 or IPv6 address of the host; 0.0.0.0 or :: for all).' },
  'tacacs.listen_port': { label: 'TCP port', description: 'The TCP port tac_plus-ng listens on (TACACS+ uses 49).' },
  // RADIUS
  'radius.listen_address': { label: 'Listen address', description: 'The address FreeRADIUS listens on (an IPv4 or IPv6 address of the host; 0.0.0.0 or :: for all).' },
  'radius.auth_port': { label: 'Authentication port (UDP)', description: 'The UDP port FreeRADIUS answers authentication on (RADIUS uses 1812).' },
  'radius.acct_port': { label: 'Accounting port (UDP)', description: 'The UDP port FreeRADIUS answers accounting on (RADIUS uses 1813).' },
  // Network access (NAC)
  'nac.coa_on_change': { label: 'CoA when authorization changes', description: 'What the NAC sends to the NAS when an endpoint authorization may have changed (its group, device type or profile): reauthenticate (a CoA, the new policy applies now) or off (at the next authentication). While not off, a user disabled, deleted or taken off the network also has each live session ended by a Disconnect-Request.' },
  'nac.coa_port': { label: 'CoA port (UDP)', description: 'The UDP port CoA and Disconnect requests go to (RFC 5176: 3799); a device may override it.' },
  'nac.coa_timeout_ms': { label: 'CoA answer timeout (ms)', description: 'How long to wait for the NAS to answer one CoA or Disconnect request, in milliseconds.' },
  'nac.coa_retries': { label: 'CoA retries', description: 'How many times an unanswered CoA or Disconnect request is sent again before it is recorded as a timeout.' },
  // Guest portal
  'portal.codes_per_email_per_hour': { label: 'Self-registration codes per address per hour', description: 'Codes mailed to one e-mail address in an hour; one more is refused (429).' },
  'portal.guest_retention_days': { label: 'Keep ended guests (days)', description: 'Days an ended, expired, denied or revoked guest and its portal sessions are kept before they are purged.' },
  'nac.portal_redirect_key': { label: 'Portal redirection signing key', description: 'The key FreeRADIUS signs captive portal redirections with, and the portal checks them with. Made at random when the first redirecting profile is saved; write a new one (32 to 128 letters, digits, - or _) to change it, then deploy: older redirections are refused. Sealed at rest.' },
  // Certificates and EST
  'pki.crl_validity_hours': { label: 'CRL validity (h)', description: 'How long each CRL is valid, in hours. A new CRL is made at every revocation, and on schedule once less than half of this is left.' },
  'pki.freeradius_ca_id': { label: 'EAP-TLS trusted CA', description: 'The CA FreeRADIUS trusts for EAP-TLS client certificates, exactly (not a CA above or beside it); every FreeRADIUS release carries its chain and CRLs. Empty: EAP-TLS trusts no certificate.' },
  'pki.freeradius_extra_ca_ids': { label: 'More EAP-TLS trusted CAs', description: 'More CAs FreeRADIUS trusts for EAP-TLS client certificates, each like the trusted CA (at most 16); only while that one is set.' },
  'nac.est_enabled': { label: 'EST enrollment', description: 'Serve EST (RFC 7030) at /.well-known/est/: cacerts, csrattrs, simpleenroll. Also needs the EST CA, template and group.' },
  'pki.est_ca_id': { label: 'EST: issuing CA', description: 'The CA that issues EST enrollments (and whose chain cacerts answers).' },
  'pki.est_template_id': { label: 'EST: certificate template', description: 'The template every EST enrollment is held to.' },
  'pki.est_group_id': { label: 'EST: user group allowed to enroll', description: 'The user group whose members may enroll over EST with HTTP Basic (their local password; a directory-only account is refused). Enrolling grants no other permission.' },
  'pki.est_approval_required': { label: 'EST: approval required', description: 'EST enrollments wait for a person: the client gets 202 with Retry-After until the request is approved (mailed one-time link or the API).' },
  'pki.est_approver_email': { label: 'EST: approver address', description: 'Where the approval link of each held EST enrollment is mailed. Empty: decide through the API only.' },
  'nac.est_mtls_proxy_secret': { label: 'EST: mutual-TLS proxy key', description: 'Shared secret the mutual-TLS front end sends in X-Est-Proxy-Key; only then are its client-certificate headers believed. Empty: those headers are ignored. Sealed at rest.' },
  // Logs
  'aaa-logs.ingest_enabled': { label: 'Read daemon logs on this node', description: 'Tail the daemons\' log files into the AAA log tables on this node.' },
  'aaa-logs.poll_ms': { label: 'Log polling interval (ms)', description: 'How often the log folders are checked for new lines, in milliseconds.' },
  'aaa-logs.batch_size': { label: 'Lines per write', description: 'Log lines written per database transaction.' },
  'aaa-logs.retention_months': { label: 'Keep AAA logs (months)', description: 'How many months of AAA log entries to keep; 0 keeps everything. Older monthly partitions are dropped once an hour.' },
  'aaa-logs.count_budget_ms': { label: 'Search count budget (ms)', description: 'How long a log search may spend counting its matches (PostgreSQL); past it the total is shown as capped. The count also stops at 10,000.' },
  'deploy.log_retention_days': { label: 'Keep daemon log files (days)', description: 'Days the daemons\' dated log files are kept on disk; older ones are removed at every deploy and once an hour.' },
  // Deploys
  'deploy.allow_unchecked': { label: 'Deploy without a daemon check', description: 'Activate a release whose daemon check could not run (its binary is absent). Off: such a deploy is refused. A check that ran and failed is never activated.' },
  'deploy.keep_releases': { label: 'Releases kept per daemon', description: 'How many release folders are kept per daemon (the current one always); an older release can no longer be rolled back to.' },
  'deploy.lock_wait_seconds': { label: 'Wait for a running deploy (s)', description: 'How long a deploy or rollback waits for one running on another node to finish before it is refused (409); 0 refuses at once.' },
  // AAA policy
  'policy_impact.max_requests': { label: 'Change impact: requests replayed', description: 'The most distinct logged requests one impact report replays (a report may ask for fewer, or up to 2,000,000); the report says when it reached the limit.' },
  'policy_impact.time_budget_seconds': { label: 'Change impact: time budget (s)', description: 'The longest one impact report may read and replay the logs, in seconds; the report then covers what was replayed and says so.' },
  // Configuration tracking
  'ncm.connect_timeout_seconds': { label: 'SSH connect timeout (s)', description: 'How long a collector waits for a device to accept its SSH connection (2 to 120 s).' },
  'ncm.fetch_timeout_seconds': { label: 'Fetch timeout (s)', description: 'The longest one fetch may take, login to last byte (10 to 1800 s). A job not answered within this plus 60 s is handed out again.' },
  'ncm.max_config_bytes': { label: 'Largest configuration (bytes)', description: 'The largest configuration a collector may send (64 KiB to 32 MiB); a larger one is recorded as too large and not stored.' },
  'ncm.fetch_log_days': { label: 'Keep fetch log (days)', description: 'How many days the per-device fetch log is kept (1 to 3650). Configuration versions stay until their history is deleted.' },
  'ncm.change_window_slack_seconds': { label: 'Who-changed-it window (s)', description: 'How far before the earlier fetch and after the later one TACACS+ accounting records are matched to a change (0 to 3600 s).' },
  'ncm.enrollment_token_minutes': { label: 'Collector enrollment token (min)', description: 'How long a collector enrollment token stays valid (5 to 10080 min). A token works once.' },
  'ncm.compliance_mail_to': { label: 'Mail compliance violations to', description: 'Addresses a new compliance violation is mailed to (at most 20). Empty: no mail.' },
  // Reports
  'reports.row_limit': { label: 'Detail rows per source', description: 'At most this many detail rows per source in one report (100 to 1,000,000); figures and charts still cover the whole range.' },
  'reports.time_budget_seconds': { label: 'Report time budget (s)', description: 'How long one report run may read (10 to 3600 s); a longer run fails: narrow its time range.' },
  'reports.retention_days': { label: 'Keep reports (days)', description: 'How many days report runs and their files are kept (1 to 3650).' },
  // Updates
  'update_feed.enabled': { label: 'Check for updates', description: 'Ask the update feed for new releases and security advisories (off by default). The request carries the edition, the version and, for Pro, the installation id.' },
  'update_feed.url': { label: 'Update feed address', description: 'Address of the signed update manifest: https (plain http only to localhost, for a local mirror), no user name or password. Empty: no check.' },
  'update_feed.interval_hours': { label: 'Check every (h)', description: 'Hours between two scheduled checks (1 to 168), each moved at random by up to a tenth.' },
  'update_feed.timeout_seconds': { label: 'Check timeout (s)', description: 'The longest one check may take, redirects included (1 to 60 s); past it the feed shows as unreachable.' },
  'update_feed.redirect_hosts': { label: 'Allowed redirect hosts', description: 'Host names a redirect of the feed may lead to (a download mirror). Empty: a redirect stays on the feed host. Never from https to http.' },
} satisfies Record<string, SettingWords>

const settings = {
  title: 'Settings',
  search: 'Search settings', searchPlaceholder: 'Name, key or description…', noMatch: 'No setting matches.',
  sections: {
    signIn: 'Sign-in and sessions', lockout: 'Account lockout', directory: 'Directory (LDAP)', mfa: 'Second factor', mail: 'Mail',
    tacacs: 'TACACS+', radius: 'RADIUS', nac: 'Network access (NAC)', guests: 'Guest portal', certificates: 'Certificates and EST',
    logs: 'Logs', deploys: 'Deploys', policy: 'AAA policy', ncm: 'Configuration tracking', reports: 'Reports', updates: 'Updates',
  },
  plugin: (owner: string) => `Plugin ${owner}`,
  count: (n: number) => `${n} ${n === 1 ? 'setting' : 'settings'}`,
  unsaved: (n: number) => `${n} unsaved`,
  changed: 'changed',
  saveSection: (title: string) => `Save ${title}`,
  discard: 'Discard changes',
  saved: (n: number) => `${n} ${n === 1 ? 'setting' : 'settings'} saved.`,
  partly: (ok: number, failed: number) => `${ok} saved, ${failed} refused: see the marked fields.`,
  empty: 'empty', default: (d: string) => `Default: ${d}`, reset: 'Back to the default', resetOf: (label: string) => `Back to the default: ${label}`,
  secret: 'Write-only: leave empty to keep it.', secretSet: 'set', secretUnset: 'not set', invalidJson: 'This is not valid JSON.',
  leaveTitle: 'Leave without saving?',
  leaveMessage: (sections: string) => `Settings changed and not saved: ${sections}. Leaving this page drops these changes.`,
  leave: 'Leave without saving',
  keys,
}

export type SettingsMessages = typeof settings
export default settings
