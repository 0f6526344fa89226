/** English for the device and user CSV imports and the covering-address search (pages/CsvImport.tsx, DeviceCovering.tsx): en.ts's `imports`. */
const imports = {
  importCsv: 'Import CSV',
  devicesTitle: 'Import devices from CSV',
  usersTitle: 'Import users from CSV',
  devicesHint: 'Columns: name (required), address, device_group, vendor, model, description, tacacs_key, radius_secret, enabled. An existing name is updated; an empty key cell keeps the key. Keys are never shown back.',
  usersHint: 'Columns: username (required), display_name, email, source, password, enabled, is_admin, network_login, chap_enabled, must_change_password, expires_at, groups and roles (names separated by ";"). Existing users are skipped. Passwords are hashed and never shown back.',
  file: 'CSV file',
  dryRun: 'Check only (write nothing)',
  partial: 'Write the rows that pass, even if others are refused',
  run: 'Import',
  close: 'Close',
  applied: 'Written',
  notApplied: 'Nothing written',
  counts: (created: number, updated: number, unchanged: number, skipped: number, refused: number) =>
    `Created: ${created}, updated: ${updated}, unchanged: ${unchanged}, skipped: ${skipped}, refused: ${refused}`,
  rows: 'Rows of the file',
  line: 'Line',
  key: 'Name',
  outcome: 'Result',
  column: 'Column',
  why: 'Why',
  outcomes: { created: 'created', updated: 'updated', unchanged: 'unchanged', skipped: 'skipped', refused: 'refused' },
  covering: {
    label: 'Which device covers an address',
    placeholder: 'IP address, e.g. 10.1.2.3',
    find: 'Find',
    title: (address: string) => `Device entries containing ${address}, most specific first`,
    none: 'No device entry contains this address.',
    prefix: 'Prefix length',
    tacacs: 'Used by TACACS+',
    radius: 'Used by RADIUS',
    disabled: 'disabled',
  },
}

export type ImportMessages = typeof imports
export default imports
