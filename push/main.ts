/**
 * `npm run push` (dist: `node dist/push/main.js`): the push-MFA service, configured from its
 * environment (push/config.ts, docs/push-mfa.md). Prints where it listens; stops on SIGTERM/SIGINT.
 */
import { pino } from 'pino'
import { createPushService } from './app.js'
import { readPushConfig } from './config.js'
import type { PushSender } from './senders/sender.js'
import { QueueSender } from './senders/queue.js'
import { WebPushSender } from './senders/web-push.js'
import { PUSH_SERVICE_VERSION } from './version.js'

let config
try {
  config = readPushConfig()
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`)
  process.exit(1)
}
const log = pino({ level: config.logLevel, base: { service: 'portcullis-push' }, timestamp: pino.stdTimeFunctions.isoTime })
const sender: PushSender =
  config.sender === 'queue'
    ? new QueueSender()
    : new WebPushSender({ vapid: config.vapid!.keys, subject: config.vapidSubject!, allowedHosts: config.webPushAllowedHosts, ...(config.webPushCa ? { ca: config.webPushCa } : {}) })
if (config.vapid) log.info({ vapid: config.vapid.source }, 'VAPID keys')
const service = await createPushService({ coreUrl: config.coreUrl, key: config.key, sender, host: config.host, port: config.port, trustProxy: config.trustProxy, log })
log.info({ url: service.url, core: config.coreUrl, sender: sender.kind, version: PUSH_SERVICE_VERSION }, `push service ${PUSH_SERVICE_VERSION} listening on ${service.url}`)

let stopping = false
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return
    stopping = true
    log.info({ signal }, 'stopping')
    void service.close().then(() => process.exit(0))
  })
}
