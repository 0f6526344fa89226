/** English for the dashboard's update-check card: en.ts's `updateFeed`. */
const updateFeed = {
  title: 'Updates and advisories',
  off: 'The update check is off (setting update_feed.enabled). When on, this installation asks the update feed for new releases and security advisories.',
  status: 'Status', checkedAt: 'Last check', lastOk: 'Last good answer', running: 'Running version', latest: 'Newest release',
  statuses: { never: 'never checked', ok: 'ok', unreachable: 'unreachable', rejected: 'answer refused' } as Record<string, string>,
  reasons: {
    network_error: 'the feed could not be reached', timeout: 'the feed did not answer in time', http_error: 'the feed answered an HTTP error',
    too_large: 'the answer was too large', redirect_refused: 'a redirect to a host that is not allowed', too_many_redirects: 'too many redirects',
    malformed_json: 'the answer is not JSON', bad_envelope: 'the answer is not a signed manifest', unknown_key: 'signed by an unknown key',
    bad_signature: 'the signature does not match (tampered or wrong key)', invalid_manifest: 'the manifest is not valid', wrong_edition: 'the manifest is for another edition',
    replayed: 'the manifest is older than the one kept (replayed)',
    issued_in_future: 'the manifest is dated more than a day ahead of this server\'s clock',
  } as Record<string, string>,
  httpStatus: (n: number) => `HTTP ${n}`,
  kept: 'The last good answer below is kept.',
  newer: (v: string) => `Version ${v} is available.`, upToDate: 'This is the newest release.', releaseNotes: 'Release notes',
  minSupported: (v: string) => `Advice: releases older than ${v} are no longer supported. Nothing is enforced.`,
  advisories: 'Security advisories affecting this version', noAdvisories: 'No known advisory affects this version.',
  severity: 'Severity', advisory: 'Advisory', checkNow: 'Check now', checked: 'Checked.',
}
export type UpdateFeedMessages = typeof updateFeed
export default updateFeed
