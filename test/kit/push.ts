/**
 * The push service in-process for the end-to-end tests: its queue sender stands in for the push
 * networks, so a scripted phone takes its notifications with `queue.take(name, timeoutMs)`. The
 * core must know where the service is before it starts (server option mfa.push_service_url is read
 * at boot) and the service where the core is: pick the core's port first, as internalSurface does:
 *
 *   const port = await freeTcpPort()
 *   const push = await startPushService({ coreUrl: `http://127.0.0.1:${port}`, key: PUSH_KEY })
 *   const t = await startTestApp({ env: { PORT: String(port) }, options: pushServerOptions(push) })
 */
import { randomUUID } from 'node:crypto'
import { pino } from 'pino'
import { createPushService } from '../../push/app.js'
import type { RateLimitOptions } from '../../push/rate-limit.js'
import { QueueSender } from '../../push/senders/queue.js'

export { freeTcpPort } from './mfa.js'

/** A shared key for a test's core and push service (≥ 32 characters). */
export const PUSH_KEY = 'push-channel-' + randomUUID() + randomUUID()

export interface TestPushService {
  url: string
  queue: QueueSender
  key: string
  close(): Promise<void>
}

export async function startPushService(o: { coreUrl: string; key?: string; sender?: 'queue'; rateLimit?: RateLimitOptions; coreTimeoutMs?: number }): Promise<TestPushService> {
  const queue = new QueueSender()
  const key = o.key ?? PUSH_KEY
  const service = await createPushService({
    coreUrl: o.coreUrl,
    key,
    sender: queue,
    port: 0,
    // Generous: a test's scripted phones all come from 127.0.0.1.
    rateLimit: o.rateLimit ?? { max: 100_000, windowSeconds: 60 },
    ...(o.coreTimeoutMs ? { coreTimeoutMs: o.coreTimeoutMs } : {}),
    log: pino({ level: process.env.PUSH_LOG_LEVEL ?? 'silent' }),
  })
  return { url: service.url, queue, key, close: () => service.close() }
}

/** The core's server options that point it at this push service. */
export const pushServerOptions = (push: TestPushService): Record<string, string> => ({
  'mfa.push_service_url': push.url,
  'mfa.push_service_key': push.key,
})
