/** The plugin's coded errors; messages live in locales/ under the `update-feed` namespace. */
import { defineError } from '../../sdk/index.js'

export const UpdateFeedErrors = {
  disabled: defineError(409, 'UPDATE_FEED_DISABLED', 'update-feed:errors.disabled'),
  notConfigured: defineError(409, 'UPDATE_FEED_NOT_CONFIGURED', 'update-feed:errors.not_configured'),
  /** What the kernel answers for its own administrator-only routes, with this plugin's words. */
  adminRequired: defineError(403, 'ADMIN_REQUIRED', 'update-feed:errors.admin_required'),
} as const
