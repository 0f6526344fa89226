/**
 * The NAC policy test's words, spread into locales/en.ts: `trace` the reasons a condition did not
 * hold (services/evaluate.ts conditionFailure), `refused` why the daemon refuses an account before
 * the policy (services/account.ts accountRefusal).
 */
export default {
  trace: {
    or: 'or',
    method: 'method is {{method}}, not {{methods}}',
    no_user: 'no user ({{method}}), so in no user group of {{groups}}',
    user_groups: 'user {{username}} is in none of the user groups {{groups}}',
    no_mac: 'no MAC address given, so in no endpoint group of {{groups}}',
    endpoint_groups: 'endpoint {{mac}} is in none of the endpoint groups {{groups}}',
    no_device_type: 'the endpoint has no device type (not {{types}})',
    device_type: 'device type is {{type}}, not {{types}}',
    device_groups: 'the switch is in none of the device groups {{groups}}',
    no_certificate: 'no client certificate ({{method}}), so no {{field}}',
    certificate: 'certificate {{field}} is {{have}}, not {{values}}',
    certificate_lacks: 'the certificate has no {{field}}',
    no_nas_port_type: 'no NAS-Port-Type (not {{values}})',
    nas_port_type: 'NAS-Port-Type is {{type}}, not {{values}}',
    outside_window: '{{day}} {{time}} is outside {{window}}',
    days: { '0': 'Sun', '1': 'Mon', '2': 'Tue', '3': 'Wed', '4': 'Thu', '5': 'Fri', '6': 'Sat' },
  },
  refused: {
    cert_disabled: 'the certificate names user {{username}}, who is disabled',
    cert_network_login_off: 'the certificate names user {{username}}, whose network login is off',
    cert_expired: 'the certificate names user {{username}}, who expired at {{at}}',
    no_identity: 'no inner identity given: PEAP always has one, and only a user can pass it',
    unknown_user: 'no user is named {{username}} (compared exactly)',
    disabled: 'user {{username}} is disabled',
    network_login_off: 'network login is off for user {{username}}',
    directory_pap_only: 'user {{username}} is a directory user: the directory checks a password by an LDAP bind, which PEAP-MSCHAPv2 cannot give',
    no_network_password: 'no network password is set for user {{username}}',
    expired: 'user {{username}} expired at {{at}}',
  },
  test_reason: {
    mab_username: 'MAB has no user: the User-Name is the MAC address. Leave username out.',
    mab_mac: 'MAB authenticates the MAC address: give mac.',
    certificate: 'Only EAP-TLS presents a client certificate, not {{method}}.',
  },
  condition_reason: {
    needs: 'a {{type}} condition needs {{fields}}',
    takes_only: 'a {{type}} condition takes only {{fields}}',
    nas_port_type: '{{value}} is not a NAS-Port-Type FreeRADIUS names ({{examples}}, …)',
    duplicate: '{{first}} is already a {{type}} condition: list every value in that one',
  },
}
