/**
 * One update check: ask the feed, verify the answer, store the outcome. A refused or missing answer
 * changes the status and its reason only; the last good manifest, its key and `last_ok_at` stay.
 * One check at a time per node: a second caller waits for the running one and reads its outcome.
 */
import type { Knex } from 'knex'
import { jsonText, type Logger, type PlatformInfo, type SettingsService } from '../../sdk/index.js'
import { feedRequestUrl, fetchFeed } from './fetch.js'
import { feedRedirectHosts, feedTimeoutSeconds, feedUrl } from './settings.js'
import type { FeedStatus } from './tables.js'
import { verifyAnswer, type TrustedKeys } from './verify.js'

/** How far ahead of this server's clock a manifest's `issued_at` may be. */
const FUTURE_SKEW_MS = 24 * 3_600_000

export interface CheckDeps {
  knex: Knex
  settings: SettingsService
  platform: Pick<PlatformInfo, 'edition' | 'version' | 'installationId'>
  keys: TrustedKeys
  log: Logger
}

export interface CheckOutcome {
  status: Exclude<FeedStatus, 'never'>
  reason: string | null
}

export class UpdateChecker {
  private running: Promise<CheckOutcome | null> | null = null

  constructor(private readonly d: CheckDeps) {}

  /** Runs a check (or joins the one running). Never throws for what the feed does; null when no URL is set. */
  check(): Promise<CheckOutcome | null> {
    this.running ??= (async () => {
      const url = await this.d.settings.get(feedUrl)
      return url === null ? null : this.run(url)
    })().finally(() => {
      this.running = null
    })
    return this.running
  }

  private async run(base: string): Promise<CheckOutcome> {
    const { knex, settings, platform } = this.d
    const [timeoutSeconds, redirectHosts] = await Promise.all([settings.get(feedTimeoutSeconds), settings.get(feedRedirectHosts)])
    const fetched = await fetchFeed(feedRequestUrl(base, platform), `portcullis/${platform.version}`, { timeoutMs: timeoutSeconds * 1000, redirectHosts })
    const now = new Date()
    if (!fetched.ok) {
      await knex('update_feed_state').where({ id: 1 }).update({ status: fetched.status, reason: fetched.reason, http_status: fetched.status === 'unreachable' ? (fetched.httpStatus ?? null) : null, checked_at: now })
      this.d.log.warn({ status: fetched.status, reason: fetched.reason }, 'update-feed: check failed; the last good manifest is kept')
      return { status: fetched.status, reason: fetched.reason }
    }
    const v = verifyAnswer(fetched.body, this.d.keys, platform.edition.id)
    return knex.transaction(async (trx) => {
      const row = await trx('update_feed_state').where({ id: 1 }).forUpdate().first()
      let outcome: CheckOutcome
      if (!v.ok) outcome = { status: 'rejected', reason: v.reason }
      // An older manifest than the one kept is a replay (a mirror or an attacker serving a stale answer): it could hide an advisory.
      else if (row?.manifest && Date.parse(v.manifest.issued_at) < Date.parse(row.manifest.issued_at)) outcome = { status: 'rejected', reason: 'replayed' }
      // Kept, a manifest dated far ahead would make every later one look like a replay until that date: a
      // signing mistake (or a stolen key) must not silence the feed. A day covers any clock skew.
      else if (Date.parse(v.manifest.issued_at) > now.getTime() + FUTURE_SKEW_MS) outcome = { status: 'rejected', reason: 'issued_in_future' }
      else outcome = { status: 'ok', reason: null }
      if (outcome.status === 'ok' && v.ok) {
        await trx('update_feed_state').where({ id: 1 }).update({ status: 'ok', reason: null, http_status: null, checked_at: now, last_ok_at: now, manifest: jsonText(v.manifest), key_id: v.keyId })
      } else {
        await trx('update_feed_state').where({ id: 1 }).update({ status: 'rejected', reason: outcome.reason, http_status: null, checked_at: now })
        this.d.log.warn({ reason: outcome.reason }, 'update-feed: the answer was refused; the last good manifest is kept')
      }
      return outcome
    })
  }
}
