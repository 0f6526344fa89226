/** What GET /api/v1/update-feed answers: the stored state, and what it means for the running version. */
import type { Knex } from 'knex'
import semverGt from 'semver/functions/gt.js'
import semverLt from 'semver/functions/lt.js'
import satisfies from 'semver/functions/satisfies.js'
import { Nullable, StringEnum, Timestamp, Type, type PlatformInfo, type Static } from '../../sdk/index.js'
import { Advisory, Manifest } from './manifest.js'

export const FeedView = Type.Object(
  {
    enabled: Type.Boolean({ description: 'Setting `update_feed.enabled`.' }),
    status: StringEnum(['never', 'ok', 'unreachable', 'rejected'] as const, {
      description: 'The last check: `never` (none yet), `ok`, `unreachable` (no answer, a timeout, an HTTP error), `rejected` (an answer was refused; the manifest below is the previous good one).',
    }),
    reason: Nullable(Type.String({ description: 'Why the last check was not `ok`: `network_error`, `timeout`, `http_error`, `too_large`, `redirect_refused`, `too_many_redirects`, `malformed_json`, `bad_envelope`, `unknown_key`, `bad_signature`, `invalid_manifest`, `wrong_edition`, `replayed`, `issued_in_future` (dated more than a day ahead of the server clock).' })),
    http_status: Nullable(Type.Integer({ description: 'The feed\'s HTTP status when the reason is `http_error`.' })),
    checked_at: Nullable(Timestamp({ description: 'When the last check ended.' })),
    last_ok_at: Nullable(Timestamp({ description: 'When a manifest last passed every check.' })),
    running_version: Type.String({ description: 'This installation\'s version.' }),
    edition: StringEnum(['community', 'pro'] as const, { description: 'This installation\'s edition.' }),
    manifest: Nullable(Manifest),
    key_id: Nullable(Type.String({ description: 'The id of the key that signed the manifest.' })),
    update_available: Type.Boolean({ description: 'The manifest\'s `latest` is newer than the running version.' }),
    advisories_affecting: Type.Array(Advisory, { description: 'The manifest\'s advisories whose `affected` range holds the running version.' }),
    below_min_supported: Type.Boolean({ description: 'The running version is older than the manifest\'s `min_supported`. Advice only: nothing is enforced.' }),
  },
  { title: 'UpdateFeedStatus' },
)
export type FeedView = Static<typeof FeedView>

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString())

export async function feedView(knex: Knex, platform: Pick<PlatformInfo, 'edition' | 'version'>, enabled: boolean): Promise<FeedView> {
  const row = await knex('update_feed_state').where({ id: 1 }).first()
  const m = row?.manifest ?? null
  const running = platform.version
  return {
    enabled,
    status: row?.status ?? 'never',
    reason: row?.reason ?? null,
    http_status: row?.http_status ?? null,
    checked_at: iso(row?.checked_at ?? null),
    last_ok_at: iso(row?.last_ok_at ?? null),
    running_version: running,
    edition: platform.edition.id,
    manifest: m,
    key_id: row?.key_id ?? null,
    update_available: m !== null && semverGt(m.latest, running),
    advisories_affecting: m === null ? [] : m.advisories.filter((a) => satisfies(running, a.affected, { includePrerelease: true })),
    below_min_supported: m !== null && semverLt(running, m.min_supported),
  }
}
