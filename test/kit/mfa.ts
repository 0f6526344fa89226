/**
 * MFA for the device tests: a user enrolled through the API (sign-in, self-enrollment with the
 * session, confirmation), the codes of their authenticator, and the platform's address fixed before
 * it starts (server option mfa.internal_url is read at boot, so the port is chosen first).
 */
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:net'
import { expect } from 'chai'
import { base32Decode, hotp, timeStep } from '../../plugins/mfa/services/totp.js'
import type { TestApp } from './app.js'

export const INTERNAL_KEY = 'device-mfa-' + randomUUID() + randomUUID()

/** The code of the step `offset` steps from now. */
export const codeAt = (secret: string, offset = 0) => hotp(base32Decode(secret), timeStep(Date.now()) + offset)

/** A six-digit code none of the steps the server could accept now. */
export function wrongCode(secret: string): string {
  const near = new Set([-2, -1, 0, 1, 2].map((d) => codeAt(secret, d)))
  let n = 314159
  while (near.has(String(n))) n++
  return String(n)
}

export async function freeTcpPort(): Promise<number> {
  const s = createServer()
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
  const port = (s.address() as { port: number }).port
  await new Promise<void>((r) => s.close(() => r()))
  return port
}

/** The env and server option of an app the daemons can call back: `startTestApp({ ...internalSurface(port) })`. */
export const internalSurface = (port: number) => ({ env: { PORT: String(port) }, options: { 'mfa.internal_url': `http://127.0.0.1:${port}` } })

export async function setInternalKey(t: TestApp, value: string | null = INTERNAL_KEY): Promise<void> {
  const r = await t.admin('PUT', '/api/v1/settings/mfa.internal_key', { body: { value } })
  expect(r.status, JSON.stringify(r.body)).to.equal(200)
}

/**
 * Enrolls an existing user (no password change owed) with their own session; returns the seed.
 * The confirming code spends the current step: the next accepted code is the next step's
 * (`codeAt(secret, 1)`), which the ±1 step window already accepts.
 */
export async function enroll(t: TestApp, username: string, password: string): Promise<string> {
  const login = await t.req('POST', '/api/v1/auth/login', { body: { username, password } })
  expect(login.status, JSON.stringify(login.body)).to.equal(200)
  const token = login.body.access_token as string
  expect(token, JSON.stringify(login.body)).to.be.a('string')
  const started = await t.req('POST', '/api/v1/mfa/enrollment', { token })
  expect(started.status, JSON.stringify(started.body)).to.equal(200)
  const secret = started.body.secret as string
  const confirmed = await t.req('POST', '/api/v1/mfa/enrollment/confirm', { token, body: { code: codeAt(secret) } })
  expect(confirmed.status, JSON.stringify(confirmed.body)).to.equal(200)
  return secret
}

/**
 * The per-user code budget counts in fixed windows of 5 minutes (aligned to the epoch): a test that
 * spends it in one go waits out a window's last `needMs` so its codes all fall in one window.
 */
export async function awayFromWindowEdge(needMs: number, windowMs = 300_000): Promise<void> {
  const left = windowMs - (Date.now() % windowMs)
  if (left < needMs) await new Promise((r) => setTimeout(r, left + 250))
}

/**
 * Gives an existing user (no MFA yet, no password change owed) a push device: the phone enrolls
 * from the QR code's URI the user's own session asked for; with `totp`, an authenticator too, in
 * the same session (once one factor is on, a login owes it). Returns the TOTP seed, or null.
 */
export async function enrollPhone(t: TestApp, username: string, password: string, phone: { enroll(uri: string): Promise<{ status: number; body: unknown }> }, o: { totp?: boolean } = {}): Promise<string | null> {
  // Many users set up from one address: the sign-in's per-address limit is not what is tested.
  await t.app.db.knex('rate_limit_hits').delete()
  const login = await t.req('POST', '/api/v1/auth/login', { body: { username, password } })
  expect(login.status, JSON.stringify(login.body)).to.equal(200)
  const token = login.body.access_token as string
  expect(token, JSON.stringify(login.body)).to.be.a('string')
  let secret: string | null = null
  if (o.totp) {
    const started = await t.req('POST', '/api/v1/mfa/enrollment', { token })
    expect(started.status, JSON.stringify(started.body)).to.equal(200)
    secret = started.body.secret as string
    const confirmed = await t.req('POST', '/api/v1/mfa/enrollment/confirm', { token, body: { code: codeAt(secret) } })
    expect(confirmed.status, JSON.stringify(confirmed.body)).to.equal(200)
  }
  const qr = await t.req('POST', '/api/v1/mfa/push-enrollment', { token })
  expect(qr.status, JSON.stringify(qr.body)).to.equal(200)
  const enrolled = await phone.enroll(qr.body.uri as string)
  expect(enrolled.status, JSON.stringify(enrolled.body)).to.equal(201)
  return secret
}
