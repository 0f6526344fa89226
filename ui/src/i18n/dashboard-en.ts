/** English for the dashboard's activity cards (pages/dashboard/*) and the logs screen's ranges and live tail: en.ts's `dash`. */
const dash = {
  activity: 'Authentications', activityHint: (perMinute: boolean): string => (perMinute ? 'Per minute, by result' : 'Per hour, by result'),
  ranges: { '15m': 'Last 15 minutes', '1h': 'Last hour', '24h': 'Last 24 hours', '7d': 'Last 7 days', custom: 'Custom' },
  range: 'Range',
  protocols: { tacacs: 'TACACS+', radius: 'RADIUS', nac: 'NAC (802.1X, MAB)' },
  success: 'succeeded', failure: 'failed',
  bar: (at: string, ok: number, failed: number) => `${at}: ${ok} succeeded, ${failed} failed`,
  chart: (what: string, ok: number, failed: number, range: string) => `${what}, ${range.toLowerCase()}: ${ok} succeeded, ${failed} failed`,
  noActivity: 'No authentications in this range.',
  topFailures: 'Top failing (last 24 hours)', users: 'Users', devices: 'Devices', failures: 'Failures', noTopFailures: 'No failed authentications in the last 24 hours.',
  sessions: 'NAC sessions', liveSessions: 'Live sessions', openSessions: 'Open the sessions',
  certificates: 'Certificates expiring (next 30 days)', noExpiring: 'No certificate expires in the next 30 days.', subject: 'Subject', expires: 'Expires',
  allCertificates: 'All certificates', inDays: (d: number) => (d <= 0 ? 'today' : d === 1 ? 'in 1 day' : `in ${d} days`),
  pending: 'Pending changes', pendingNone: 'The daemons run the policy as edited.', pendingSome: 'Changes not yet deployed:', openDeploys: 'Go to deploys',
  live: 'Live tail', paused: 'Paused', pause: 'Pause', resume: 'Resume', newRows: (n: number) => (n === 1 ? '1 new entry' : `${n} new entries`),
  liveHint: 'New entries appear at the top as they are logged (checked every 5 seconds).',
}

export type DashMessages = typeof dash
export default dash
