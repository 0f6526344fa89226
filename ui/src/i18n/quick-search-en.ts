/**
 * English for the records the quick search finds beyond devices, users and endpoints
 * (components/quick-search-sources.ts), and for the users' bulk group actions (pages/Users.tsx):
 * en.ts's `find`.
 */
const find = {
  kinds: {
    deviceGroup: 'Device group', userGroup: 'User group', aaaRule: 'AAA policy rule', nacRule: 'NAC policy rule',
    certificate: 'Certificate', guest: 'Guest', nacSession: 'NAC session',
  },
  /** A session's state, as the hit says it. */
  sessionState: { live: 'live', stale: 'stale', ended: 'ended' } as Record<string, string>,
  disabled: 'disabled',
  placeholder: 'Screen, device, group, user, rule, certificate, guest, MAC…',
  /** The users' bulk bar: a group is added to (or taken from) each user, the other memberships stay. */
  addToGroup: 'Add to group',
  add: 'Add',
  addTitle: (n: number) => `Add the selected users (${n}) to a group`,
  addHint: 'Each user keeps the groups they are already in.',
  removeFromGroup: 'Remove from group',
  remove: 'Remove',
  removeTitle: (n: number) => `Remove the selected users (${n}) from a group`,
  removeHint: 'Only this group is taken away; the other memberships stay.',
}

export type FindMessages = typeof find
export default find
