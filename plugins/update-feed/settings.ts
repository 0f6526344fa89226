/**
 * The update check's settings (`PUT /api/v1/settings/update_feed.*`) and its one server option.
 * The contract names the settings `update_feed.*` (spec, Versioning 8); the plugin's id is
 * `update-feed`, so it claims that namespace. See docs/update-feed.md.
 */
import { defineError, defineServerOption, defineSetting, Nullable, Type } from '../../sdk/index.js'

/** A feed address: https, or plain http only to this machine (a local mirror, a test). */
export const FEED_URL_PATTERN = '^(https://[A-Za-z0-9.\\-]+|https://\\[[0-9A-Fa-f:.]+\\]|http://(localhost|127\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}|\\[::1\\]))(:[0-9]{1,5})?(/[A-Za-z0-9._~!$&\'()*+,;=:@%/\\-]*)?(\\?[A-Za-z0-9._~!$&\'()*+,;=:@%/?\\-]*)?$'
const feedUrlRe = new RegExp(FEED_URL_PATTERN)

/** A host name (or address) a redirect may go to. */
const HOST_PATTERN = '^([A-Za-z0-9]([A-Za-z0-9\\-]{0,61}[A-Za-z0-9])?)(\\.[A-Za-z0-9]([A-Za-z0-9\\-]{0,61}[A-Za-z0-9])?)*$'

const urlInvalid = defineError(422, 'UPDATE_FEED_URL_INVALID', 'update-feed:errors.url_invalid')

/** Whether `u` may be asked: the same rule for the setting and for every redirect's target. */
export function feedUrlAllowed(u: string): boolean {
  if (!feedUrlRe.test(u)) return false
  try {
    const p = new URL(u)
    return p.username === '' && p.password === '' && p.hostname !== ''
  } catch {
    return false
  }
}

export const feedEnabled = defineSetting(
  'update_feed.enabled',
  Type.Boolean(),
  false,
  'Whether this installation asks the update feed for new releases and security advisories (off by default). When on, the primary node asks every `update_feed.interval_hours`; an administrator can ask at once (POST /api/v1/update-feed/check). The request carries the edition, the running version and, for Pro, the installation id (docs/update-feed.md).',
)

export const feedUrl = defineSetting(
  'update_feed.url',
  Nullable(Type.String({ minLength: 10, maxLength: 500, pattern: FEED_URL_PATTERN })),
  null,
  'Address of the signed update manifest: https (plain http only to 127.0.0.1, ::1 or localhost, for a local mirror). No user name or password in it. Null: no check is made.',
  {
    // It decides where the installation id goes: an administrator's choice.
    security: true,
    check: async (value) => {
      if (value !== null && !feedUrlAllowed(value)) throw urlInvalid({ field: 'value' })
    },
  },
)

export const feedIntervalHours = defineSetting(
  'update_feed.interval_hours',
  Type.Integer({ minimum: 1, maximum: 168 }),
  24,
  'Hours between two scheduled checks (1 to 168), each moved by up to a tenth of it at random so that installations do not all ask at once.',
)

export const feedRedirectHosts = defineSetting(
  'update_feed.redirect_hosts',
  Type.Array(Type.String({ minLength: 1, maxLength: 253, pattern: HOST_PATTERN }), { maxItems: 20, uniqueItems: true }),
  [],
  'Host names a redirect of the feed may lead to (a download mirror). Empty: a redirect may only stay on the host of `update_feed.url`. At most 3 redirects are followed, never from https to http.',
  { security: true },
)

export const feedTimeoutSeconds = defineSetting(
  'update_feed.timeout_seconds',
  Type.Integer({ minimum: 1, maximum: 60 }),
  10,
  'The longest one check may take, connection, redirects and answer together (1 to 60 seconds); past it the status is `unreachable` (timeout).',
)

export const updateFeedSettings = [feedEnabled, feedUrl, feedIntervalHours, feedRedirectHosts, feedTimeoutSeconds]

/** The largest answer read (the manifest is a few kilobytes): past it the read stops and the answer is refused. */
export const MAX_ANSWER_BYTES = 256 * 1024
/** At most this many redirects are followed. */
export const MAX_REDIRECTS = 3

/**
 * Keys trusted beside those shipped in trusted-keys.ts: for a private mirror that re-signs the
 * manifest with its own key, and for tests. A path, so a server option: never through the API
 * (whoever could add a key could feed the installation any manifest).
 */
export const trustedKeysFile = defineServerOption(
  'update-feed.trusted_keys_file',
  Nullable(Type.String({ minLength: 1, maxLength: 1000 })),
  null,
  'A JSON file of extra trusted update-feed keys, `{ "<key id>": "<base64 of the raw 32-byte Ed25519 public key>" }`, for a private mirror that signs its own manifests. Read once at start; an unreadable or malformed file refuses the start. An id shipped with the code cannot be replaced. See docs/update-feed.md.',
  { env: 'UPDATE_FEED_TRUSTED_KEYS_FILE' },
)
