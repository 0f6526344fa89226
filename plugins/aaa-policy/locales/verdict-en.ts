/** The policy test's decision sentences (services/evaluate.ts `reason`), spread into locales/en.ts under `verdict`. */
export default {
  unknown_user: 'user {{username}} is unknown: the daemon refuses a user it does not know',
  unknown_case: 'user {{username}} is unknown: the daemon compares user names exactly, and the account is {{account}}',
  user_disabled: 'user {{username}} is disabled',
  network_login_off: 'user {{username}} has network login turned off, so the daemons do not know the account',
  no_device_id: 'no device has the id {{id}}',
  no_device_address: 'no enabled device\'s address contains {{address}}: the daemon refuses a client it does not know',
  device_disabled: 'device {{device}} is disabled: the daemon does not know it as a client',
  no_tacacs_key: 'device {{device}} has no TACACS+ key: the daemon refuses its requests',
  no_radius_secret: 'device {{device}} has no RADIUS secret, and no wider device with one contains its address: FreeRADIUS refuses its requests',
  no_rule: 'no enabled rule matched (the default rule is disabled): the daemon denies when no rule decides',
  no_profile: 'rule {{rule}} has no {{protocol}} profile, so it denies',
  tacacs_permit: 'rule {{rule}} permits with TACACS+ profile {{profile}}',
  tacacs_permit_service: 'rule {{rule}} permits service {{service}} with TACACS+ profile {{profile}}',
  radius_accept: 'rule {{rule}} accepts with RADIUS profile {{profile}}',
  directory_user: '{{username}} is a directory user: the test used the local user groups only, while the daemons add, at each login, the user groups mapped to the directory groups the directory lists the user in (directory_group_dn), which the test cannot know',
  nothing_deployed: 'nothing is deployed to this daemon: every request is refused',
}
