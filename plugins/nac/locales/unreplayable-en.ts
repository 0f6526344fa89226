/** Why a NAC change-impact request is not replayed (services/impact-replay.ts UNREPLAYABLE), spread into locales/en.ts under `impact_unreplayable`. */
export default {
  password_unknown: 'PEAP: the log does not show the password was right (the login never passed the inner tunnel), and the account would be let in: whether the password passes is not known',
  certificate_refused: 'EAP-TLS: the certificate was refused in the TLS exchange (revoked, another CA, expired) or the log does not say: whether it passes now is not known',
  certificate: 'EAP-TLS: a rule reached tests a field of the client certificate (issuer CN, SAN), which the log does not keep',
  time: 'a rule reached has a time window, and the request was seen at several times the grouped log does not keep',
  user_not_logged: 'PEAP: the log has no inner identity for the request',
  mac_not_logged: 'MAB: the log has no readable MAC address (Calling-Station-Id)',
} as const
