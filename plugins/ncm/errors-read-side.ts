/** The read side's coded errors; messages in locales/read-side-{en,ru}.ts. */
import { defineError } from '../../sdk/index.js'

export const NcmReadSideErrors = {
  /** A version id that is not one of this device's stored versions (path or `from`/`to`). */
  versionNotFound: defineError(404, 'NCM_VERSION_NOT_FOUND', 'ncm:errors.version_not_found'),
} as const
