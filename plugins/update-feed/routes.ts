/**
 * GET /api/v1/update-feed (the status and the last good manifest) and POST /api/v1/update-feed/check
 * (an administrator asks at once, whatever the schedule). A failed check is a status in the answer,
 * never an error of the route.
 */
import type { Knex } from 'knex'
import { AUTHENTICATED, defineRoute, ErrorBody, type PlatformInfo, type SettingsService } from '../../sdk/index.js'
import type { UpdateChecker } from './check.js'
import { UpdateFeedErrors as E } from './errors.js'
import { feedEnabled, feedUrl } from './settings.js'
import { feedView, FeedView } from './view.js'

export interface RouteDeps {
  knex: Knex
  settings: SettingsService
  platform: PlatformInfo
  checker: UpdateChecker
}

const STATUS_TEXT =
  '`status` is that of the last check (`never`, `ok`, `unreachable`, `rejected` with its `reason`); `manifest` is the last one that passed every check (signature by a trusted key, edition, format, not older than the one kept), kept through any later failure. `update_available`, `advisories_affecting` and `below_min_supported` compare it with the running version; `min_supported` is advice only. See docs/update-feed.md.'

export const updateFeedRoutes = (d: RouteDeps) => [
  defineRoute({
    method: 'GET',
    path: '/update-feed',
    permission: 'system.info.read',
    summary: 'The update check: status and the last good manifest',
    description: STATUS_TEXT,
    tags: ['update-feed'],
    schema: { response: { 200: FeedView } },
    handler: async () => feedView(d.knex, d.platform, await d.settings.get(feedEnabled)),
  }),
  defineRoute({
    method: 'POST',
    path: '/update-feed/check',
    // No permission a role could hold: it sends the installation id to the configured address.
    permission: AUTHENTICATED,
    summary: 'Check for updates now (administrators only)',
    description:
      `Asks the feed at once, whatever the schedule, and answers the new status (200 also when the feed is unreachable or its answer is refused: that is the status). Needs the check to be on (409 UPDATE_FEED_DISABLED) and an address (409 UPDATE_FEED_NOT_CONFIGURED): an installation that has not turned the check on sends nothing anywhere. Only an administrator may ask; anyone else gets 403 ADMIN_REQUIRED. Each check asked is audited (\`update_feed.check\`, with the status and reason). ${STATUS_TEXT}`,
    tags: ['update-feed'],
    schema: { response: { 200: FeedView, 403: ErrorBody, 409: ErrorBody } },
    handler: async (req) => {
      if (!req.actor?.isAdmin) throw E.adminRequired()
      const enabled = await d.settings.get(feedEnabled)
      if (!enabled) throw E.disabled()
      if ((await d.settings.get(feedUrl)) === null) throw E.notConfigured()
      const outcome = await d.checker.check()
      // Who sent the installation's identity out, and what came of it.
      await req.transaction((trx) => req.audit({ action: 'update_feed.check', resourceType: 'update_feed', after: outcome }, trx))
      return feedView(d.knex, d.platform, enabled)
    },
  }),
]
