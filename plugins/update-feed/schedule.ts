/**
 * The scheduled check: on the primary node only (two nodes would both ask, and both write the one
 * row), every `update_feed.interval_hours` after the last check (stored, so a restart does not ask
 * again early), moved by up to a tenth of the interval at random so installations do not ask all at
 * once. A timer looks every few minutes whether a check is due: when the check is off that costs
 * one settings read.
 */
import type { ClusterInfo, Logger, SettingsService } from '../../sdk/index.js'
import { feedEnabled, feedIntervalHours, feedUrl } from './settings.js'

export interface ScheduleDeps {
  settings: SettingsService
  cluster: Pick<ClusterInfo, 'role'>
  log: Logger
  check: () => Promise<unknown>
  lastCheckedAt: () => Promise<Date | null>
}

export interface ScheduleTiming {
  /** How often the timer looks whether a check is due. */
  tickMs: number
  /** The first look after the start: a little later than the boot, so a start is not slowed by it. */
  firstTickMs: number
  random?: () => number
  now?: () => number
}

const HOUR = 3_600_000
export const DEFAULT_TIMING: ScheduleTiming = { tickMs: 10 * 60_000, firstTickMs: 60_000 }

/** Starts the schedule; the answer stops it (and waits for a check under way). */
export function startSchedule(d: ScheduleDeps, timing: ScheduleTiming = DEFAULT_TIMING): () => Promise<void> {
  if (d.cluster.role !== 'primary') return async () => undefined
  const random = timing.random ?? Math.random
  const now = timing.now ?? Date.now
  let jitter = random() / 10
  let stopped = false
  let timer: NodeJS.Timeout | null = null
  let current: Promise<void> = Promise.resolve()

  const tick = async () => {
    if (!(await d.settings.get(feedEnabled))) return
    if ((await d.settings.get(feedUrl)) === null) return
    const hours = await d.settings.get(feedIntervalHours)
    const last = await d.lastCheckedAt()
    if (last !== null && now() - last.getTime() < hours * HOUR * (1 + jitter)) return
    await d.check()
    jitter = random() / 10
  }
  const schedule = (ms: number) => {
    if (stopped) return
    timer = setTimeout(() => {
      current = tick()
        .catch((e: unknown) => d.log.error({ err: e }, 'update-feed: the scheduled check failed'))
        .finally(() => schedule(timing.tickMs))
    }, ms)
    timer.unref()
  }
  schedule(timing.firstTickMs)
  return async () => {
    stopped = true
    if (timer) clearTimeout(timer)
    await current
  }
}
