/** English: the reference; ru.ts must have every key (its type is this object's). */
const en = {
  lang: { en: 'English', ru: 'Русский', label: 'Language' },
  app: { title: 'Portcullis', skip: 'Skip to content', signOut: 'Sign out', version: (v: string) => `Portcullis ${v}`, menu: 'Menu' },
  nav: { account: 'My account', dashboard: 'Dashboard', devices: 'Devices', deviceGroups: 'Device groups', plugins: 'Plugins' },
  common: {
    save: 'Save', cancel: 'Cancel', create: 'Create', delete: 'Delete', edit: 'Edit', loading: 'Loading…', retry: 'Retry',
    none: '—', yes: 'Yes', no: 'No', search: 'Search', previous: 'Previous', next: 'Next',
    page: (p: number, n: number) => `Page ${p} of ${n}`, total: (n: number) => `${n} in all`,
    rateLimited: (s: number) => `Too many attempts: try again in ${s} s.`,
    network: 'The server cannot be reached. Check the connection and retry.',
    forbidden: 'You do not have the permission for this.',
    notFound: 'There is no such page.',
  },
  signIn: {
    title: 'Sign in', username: 'Username', password: 'Password', submit: 'Sign in',
    changeTitle: 'Choose a new password', changeHint: 'Your password must be changed before you continue.',
    current: 'Current password', newPassword: 'New password', repeat: 'Repeat the new password', mismatch: 'The two passwords differ.', change: 'Change password',
    mfaTitle: 'Second factor', mfaHint: 'Enter the 6-digit code from your authenticator app.', code: 'Code', verify: 'Verify',
    restart: 'Start again',
  },
  dashboard: {
    title: 'Dashboard', system: 'System', readiness: 'Readiness', deploy: 'Daemons and deploys', failures: 'Recent failures',
    version: 'Version', node: 'Node', role: 'Role', engine: 'Database', uptime: 'Uptime', timezone: 'Time zone', plugins: 'Plugins',
    database: 'Database', masterKey: 'Master key', healthy: 'Healthy', degraded: 'Degraded',
    pending: 'Changes not deployed', upToDate: 'Up to date', neverDeployed: 'Never deployed', renderError: (c: string) => `The configuration cannot be rendered (${c}).`,
    noDaemons: 'No daemon plugin is loaded.', daemon: 'Daemon', release: 'Active release', deployedAt: 'Deployed', status: 'Status',
    noFailures: 'No failures recently.', failedDeploy: (d: string) => `Deploy of ${d} failed`, at: 'When', what: 'What', who: 'Who', reason: 'Reason',
    noPermission: 'Your roles do not let you see this.',
    uptimeValue: (s: number) => (s < 3600 ? `${Math.floor(s / 60)} min` : s < 86400 ? `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min` : `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`),
  },
  devices: {
    title: 'Devices', add: 'Add device', editTitle: 'Edit device', name: 'Name', address: 'Address or prefix', vendor: 'Vendor', model: 'Model',
    description: 'Description', group: 'Group', groupFilter: 'Filter by group (with its subgroups)', allGroups: 'All groups', noGroup: 'No group', enabled: 'Enabled', tacacsKey: 'TACACS+ key', radiusSecret: 'RADIUS secret',
    keySet: 'set', keyKeep: 'Leave empty to keep the current one', empty: 'No devices yet.', searchPlaceholder: 'Name, address, vendor…',
    deleteConfirm: (n: string) => `Delete the device ${n}?`, created: (n: string) => `Device ${n} created.`, saved: 'Saved.', deleted: 'Deleted.',
    addressHint: '10.0.0.1, 10.1.0.0/16 or 2001:db8::/64',
  },
  groups: {
    title: 'Device groups', add: 'Add group', editTitle: 'Edit group', name: 'Name', description: 'Description', parent: 'Parent group', top: 'Top level',
    devices: 'Devices directly in it', devicesOf: (n: string) => `Show the devices of ${n} and its subgroups`, subgroups: 'Subgroups', empty: 'No device groups yet.', deleteConfirm: (n: string) => `Delete the group ${n}?`,
  },
  account: {
    title: 'My account', profile: 'Profile', displayName: 'Display name', email: 'Email', groups: 'Groups', permissions: 'Permissions', admin: 'Administrator (every permission)',
    mfa: 'Two-factor authentication', mfaOn: 'On', mfaOff: 'Off', mfaOnHint: 'Sign-in asks for a code from your authenticator app. An administrator can reset it if you lose the device.',
    mfaHint: 'Protect your account with a code from an authenticator app (TOTP) at every sign-in.', mfaStart: 'Set up',
    mfaUnavailable: 'Two-factor authentication is not available on this server (the MFA plugin is not loaded).',
    scan: 'Scan this code with your authenticator app, then enter the 6-digit code it shows.', qrAlt: 'QR code of the authenticator seed', manual: 'Or enter this key by hand:',
    mfaConfirm: 'Turn on',
  },
  plugins: { loadFailed: (p: string) => `The pages of ${p} could not be loaded.` },
}

export default en
export type Messages = typeof en
