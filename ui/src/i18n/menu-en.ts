/** English for the grouped menu and the quick search (components/NavMenu.tsx, QuickSearch.tsx): en.ts's `menu`. */
const menu = {
  /** The sections, in the words of a network engineer (docs/ui.md lists what each holds). */
  sections: {
    devices: 'Network devices', identities: 'Identities', deviceAdmin: 'Device administration', networkAccess: 'Network access (NAC)',
    guestAccess: 'Guest access', certificates: 'Certificates', configTracking: 'Configuration tracking', logs: 'Logs and audit',
    administration: 'Administration', plugins: 'Plugins',
  },
  search: {
    open: 'Search', title: 'Quick search', label: 'Search screens and records',
    placeholder: 'Screen, device name or address, user…', hint: '↑ ↓ to choose, Enter to open, Esc to close',
    screens: 'Screens', records: 'Records', searching: 'Searching…', nothing: 'Nothing found.',
    kinds: { device: 'Device', user: 'User', endpoint: 'Endpoint', deviceGroup: 'Device group', userGroup: 'User group' },
  },
}

export type MenuMessages = typeof menu
export default menu
