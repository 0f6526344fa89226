/**
 * The push factor's test setting: the real core with the real push service in-process (queue
 * sender), users created through the API, phones enrolled by scanning the enrollment QR code's URI.
 */
import { randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { ScriptedPhone, viaCore, viaPushService, type PhoneAlgorithm } from '../../../test/kit/phone.js'
import { freeTcpPort, pushServerOptions, startPushService, type TestPushService } from '../../../test/kit/push.js'

export const PASSWORD = 'Tulip-Granite-Orbit-42'

export interface PushWorld {
  t: TestApp
  push: TestPushService
  /** A user with a password (no factor yet) and their session. */
  user(o?: { admin?: boolean }): Promise<{ id: string; username: string; session: string }>
  /** A phone enrolled for the user through the push service (or straight to the core). */
  phone(session: string, o?: { algorithm?: PhoneAlgorithm; direct?: boolean }): Promise<ScriptedPhone>
  /** A fresh sign-in's mfa token. */
  mfaToken(username: string): Promise<string>
  /** The notifications the push service's sender let go so far. */
  sent(): number
  stop(): Promise<void>
}

/**
 * One push world for a describe block: started before its cases, stopped after them, the rate-limit
 * counts cleared before each case (each case's pushes and sign-ins start from none).
 */
export function usePushWorld(set: (w: PushWorld) => void): void {
  let world: PushWorld | undefined
  before(async () => {
    world = await startPushWorld()
    set(world)
  })
  after(async () => {
    await world?.stop()
  })
  beforeEach(async () => {
    await world!.t.app.db.knex('rate_limit_hits').delete()
  })
}

export async function startPushWorld(o: { settings?: Record<string, unknown> } = {}): Promise<PushWorld> {
  const port = await freeTcpPort()
  const push = await startPushService({ coreUrl: `http://127.0.0.1:${port}` })
  const t = await startTestApp({ plugins: ['mfa'], env: { PORT: String(port) }, options: pushServerOptions(push), ...(o.settings ? { settings: o.settings } : {}) })
  const w: PushWorld = {
    t,
    push,
    async user(u = {}) {
      const username = `push-${randomUUID().slice(0, 8)}`
      const res = await t.admin('POST', '/api/v1/users', { body: { username, email: `${username}@example.test`, password: PASSWORD, must_change_password: false, is_admin: u.admin ?? false } })
      expect(res.status, JSON.stringify(res.body)).to.equal(201)
      const login = await t.req('POST', '/api/v1/auth/login', { body: { username, password: PASSWORD } })
      expect(login.status, JSON.stringify(login.body)).to.equal(200)
      return { id: res.body.id, username, session: login.body.access_token }
    },
    async phone(session, p = {}) {
      const started = await t.req('POST', '/api/v1/mfa/push-enrollment', { token: session })
      expect(started.status, JSON.stringify(started.body)).to.equal(200)
      const phone = new ScriptedPhone(p.direct ? viaCore(t.url, push.key) : viaPushService(push.url), { algorithm: p.algorithm })
      const res = await phone.enroll(started.body.uri)
      expect(res.status, res.text).to.equal(201)
      return phone
    },
    async mfaToken(username) {
      const login = await t.req('POST', '/api/v1/auth/login', { body: { username, password: PASSWORD } })
      expect(login.status, JSON.stringify(login.body)).to.equal(200)
      expect(login.body.status, JSON.stringify(login.body)).to.equal('mfa_required')
      return login.body.mfa_token
    },
    sent: () => push.queue.sent.length,
    async stop() {
      await t?.stop()
      await push?.close()
    },
  }
  return w
}

/** Sends a push for the sign-in; answers the 202. */
export async function sendPush(t: TestApp, mfaToken: string) {
  return t.req('POST', '/api/v1/mfa/verify', { body: { mfa_token: mfaToken, method: 'push' } })
}

export async function poll(t: TestApp, mfaToken: string, challenge: string, waitSeconds = 0) {
  return t.req('POST', '/api/v1/mfa/verify', { body: { mfa_token: mfaToken, push_challenge: challenge, wait_seconds: waitSeconds } })
}

/** The phone's pending challenge of that id (it must be there). */
export async function pendingOf(phone: ScriptedPhone, id: string) {
  const all = await phone.pending()
  const c = all.find((x) => x.id === id)
  expect(c, JSON.stringify(all)).to.not.equal(undefined)
  return c!
}
