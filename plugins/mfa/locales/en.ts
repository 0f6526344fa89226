export default {
  errors: {
    code_invalid: 'The code is wrong or was already used. Attempts left with this sign-in: {{remaining}}.',
    enrollment_code_invalid: 'The code does not match the new authenticator. Check the phone clock and try the current code.',
    token_invalid: 'This sign-in step is not valid, has expired or was already completed. Sign in again.',
    token_burnt: 'Too many wrong codes for this sign-in. Sign in again.',
    already_enrolled: 'An authenticator is already active for this account. An administrator must reset it before a new one can be set up.',
    enrollment_not_started: 'No authenticator setup is in progress. Start it first.',
    email_missing: 'The account has no email address to send the setup link to.',
    mail_failed: 'The setup link could not be sent. Try again later.',
    internal_disabled: 'The internal MFA surface is disabled (setting mfa.internal_key is not set).',
    internal_key_invalid: 'The X-Internal-Key header is missing or wrong.',
  },
  enrollment: {
    link_sent: 'The setup link is on its way.',
  },
  mail: {
    subject: 'Set up two-factor sign-in for Portcullis',
    body:
      'Hello {{username}},\n\nSet up your authenticator app for two-factor sign-in within $t(mfa:count.minutes, {"count": {{minutes}} }). Your setup token:\n\n{{token}}\n\nSend it as `Authorization: Bearer <token>` to POST {{api}}/mfa/enrollment (it answers the QR code and the secret for your app), then send the first code from the app to POST {{api}}/mfa/enrollment/confirm.\n\nIf you did not expect this message, tell your administrator.\n',
    body_page:
      'Hello {{username}},\n\nSet up your authenticator app for two-factor sign-in within $t(mfa:count.minutes, {"count": {{minutes}} }). Open this page in a browser and follow it:\n\n{{page}}\n\nWithout a browser, use your setup token:\n\n{{token}}\n\nSend it as `Authorization: Bearer <token>` to POST {{api}}/mfa/enrollment (it answers the QR code and the secret for your app), then send the first code from the app to POST {{api}}/mfa/enrollment/confirm.\n\nIf you did not expect this message, tell your administrator.\n',
  },
  count: {
    minutes_one: '{{count}} minute',
    minutes_other: '{{count}} minutes',
  },
}
