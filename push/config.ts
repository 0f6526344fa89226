/**
 * The push service's configuration, from its environment only (it has no settings API):
 *
 *   PUSH_HOST (127.0.0.1), PUSH_PORT (8090)
 *   PUSH_CORE_URL          where the core listens (scheme://host:port); required
 *   PUSH_SHARED_KEY        the key shared with the core (its server option mfa.push_service_key), ≥ 32 characters;
 *   PUSH_SHARED_KEY_FILE   or a file holding it
 *   PUSH_SENDER            webpush (default) or queue (tests and benchmarks only)
 *   PUSH_VAPID_SUBJECT     mailto: or https: contact for the push networks (webpush; required)
 *   PUSH_VAPID_PUBLIC_KEY + PUSH_VAPID_PRIVATE_KEY, or PUSH_VAPID_KEY_FILE (JSON {publicKey, privateKey});
 *                          neither: generated on the first start into PUSH_DATA_DIR/vapid.json (mode 0600)
 *   PUSH_DATA_DIR          ./var/push
 *   PUSH_WEBPUSH_CA_FILE   extra CA certificates (PEM) for a push network with a private CA
 *   PUSH_WEBPUSH_ALLOWED_HOSTS  the push networks the Web Push sender posts to: comma-separated host suffixes
 *                          (`*.x`: x's subdomains only); default DEFAULT_WEBPUSH_HOSTS, the public ones
 *   PUSH_TRUST_PROXY       true behind a reverse proxy (the app's address from X-Forwarded-For)
 *   LOG_LEVEL              info
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { MIN_KEY_LENGTH } from './app.js'
import { DEFAULT_WEBPUSH_HOSTS, generateVapidKeys, parseAllowedHosts, type VapidKeys } from './senders/web-push.js'

export interface PushConfig {
  host: string
  port: number
  coreUrl: string
  key: string
  sender: 'webpush' | 'queue'
  vapidSubject: string | null
  dataDir: string
  vapid: { keys: VapidKeys; source: string } | null
  webPushCa: string | null
  webPushAllowedHosts: string[]
  trustProxy: boolean
  logLevel: string
}

type Env = Record<string, string | undefined>

const nonEmpty = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v.trim())

function fail(msg: string): never {
  throw new Error(`push service configuration: ${msg}`)
}

/** VAPID keys from the environment, from their file, or made now and kept in the data directory. */
export function vapidKeys(env: Env, dataDir: string): { keys: VapidKeys; source: string } {
  const pub = nonEmpty(env.PUSH_VAPID_PUBLIC_KEY)
  const priv = nonEmpty(env.PUSH_VAPID_PRIVATE_KEY)
  if (pub || priv) {
    if (!pub || !priv) fail('PUSH_VAPID_PUBLIC_KEY and PUSH_VAPID_PRIVATE_KEY go together')
    return { keys: { publicKey: pub, privateKey: priv }, source: 'environment' }
  }
  const file = nonEmpty(env.PUSH_VAPID_KEY_FILE) ?? path.join(dataDir, 'vapid.json')
  if (existsSync(file)) {
    const keys = JSON.parse(readFileSync(file, 'utf8')) as Partial<VapidKeys>
    if (typeof keys.publicKey !== 'string' || typeof keys.privateKey !== 'string') fail(`${file} holds no {publicKey, privateKey}`)
    return { keys: { publicKey: keys.publicKey, privateKey: keys.privateKey }, source: file }
  }
  if (nonEmpty(env.PUSH_VAPID_KEY_FILE)) fail(`PUSH_VAPID_KEY_FILE ${file} does not exist`)
  // Made once: the apps' subscriptions are bound to this public key, so a new one would orphan every phone.
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const keys = generateVapidKeys()
  writeFileSync(file, JSON.stringify(keys, null, 2) + '\n', { mode: 0o600, flag: 'wx' })
  chmodSync(file, 0o600)
  return { keys, source: `${file} (generated)` }
}

export function readPushConfig(env: Env = process.env): PushConfig {
  const port = Number(nonEmpty(env.PUSH_PORT) ?? 8090)
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`PUSH_PORT ${env.PUSH_PORT} is not a port`)
  const coreUrl = nonEmpty(env.PUSH_CORE_URL) ?? fail('PUSH_CORE_URL is required (where the Portcullis core listens, e.g. http://127.0.0.1:8080)')
  try {
    const u = new URL(coreUrl)
    if (u.protocol !== 'http:' && u.protocol !== 'https:') fail(`PUSH_CORE_URL ${coreUrl} is not http: or https:`)
  } catch {
    fail(`PUSH_CORE_URL ${coreUrl} is not a URL`)
  }
  const keyFile = nonEmpty(env.PUSH_SHARED_KEY_FILE)
  const key = nonEmpty(env.PUSH_SHARED_KEY) ?? (keyFile ? readFileSync(keyFile, 'utf8').trim() : fail('PUSH_SHARED_KEY or PUSH_SHARED_KEY_FILE is required (the core\'s mfa.push_service_key)'))
  if (key.length < MIN_KEY_LENGTH) fail(`the shared key must be at least ${MIN_KEY_LENGTH} characters`)
  const sender = nonEmpty(env.PUSH_SENDER) ?? 'webpush'
  if (sender !== 'webpush' && sender !== 'queue') fail(`PUSH_SENDER ${sender}: webpush or queue`)
  const dataDir = path.resolve(nonEmpty(env.PUSH_DATA_DIR) ?? './var/push')
  const vapidSubject = nonEmpty(env.PUSH_VAPID_SUBJECT) ?? null
  if (sender === 'webpush' && !vapidSubject) fail('PUSH_VAPID_SUBJECT is required with the webpush sender (mailto:you@example.org or an https: URL)')
  const caFile = nonEmpty(env.PUSH_WEBPUSH_CA_FILE)
  const allowed = nonEmpty(env.PUSH_WEBPUSH_ALLOWED_HOSTS)
  let webPushAllowedHosts = [...DEFAULT_WEBPUSH_HOSTS]
  if (allowed !== undefined) {
    try {
      webPushAllowedHosts = parseAllowedHosts(allowed)
    } catch (err) {
      fail(`PUSH_WEBPUSH_ALLOWED_HOSTS: ${(err as Error).message}`)
    }
  }
  return {
    host: nonEmpty(env.PUSH_HOST) ?? '127.0.0.1',
    port,
    coreUrl,
    key,
    sender,
    vapidSubject,
    dataDir,
    vapid: sender === 'webpush' ? vapidKeys(env, dataDir) : null,
    webPushCa: caFile ? readFileSync(caFile, 'utf8') : null,
    webPushAllowedHosts,
    trustProxy: nonEmpty(env.PUSH_TRUST_PROXY) === 'true',
    logLevel: nonEmpty(env.LOG_LEVEL) ?? 'info',
  }
}
