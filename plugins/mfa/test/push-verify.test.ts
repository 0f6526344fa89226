/**
 * Signing in with a push approval (POST /api/v1/mfa/verify), through the real push service and a
 * scripted phone: approve with the number shown, deny, the wrong number, report; the token's
 * budget charged before any push leaves (a burnt token sends nothing), five failed answers burn
 * it; answers twice, late, with another device's key or with fields moved are refused; MFA
 * bombing (the per-user limit, the burst); a disabled user's challenges end.
 */
import { expect } from 'chai'
import { MFA_CODE_BUDGET } from '../errors.js'
import { PUSH_RATE_LIMIT } from '../services/push/challenges.js'
import { ScriptedPhone, viaPushService } from '../../../test/kit/phone.js'
import { PASSWORD, pendingOf, poll, sendPush, usePushWorld, type PushWorld } from './push-helpers.js'

describe('mfa push: the sign-in', function () {
  this.timeout(120_000)
  let w: PushWorld
  usePushWorld((world) => (w = world))

  /** A user with an enrolled phone, a sign-in's mfa token, and a push sent for it. */
  async function pushed() {
    const u = await w.user()
    const phone = await w.phone(u.session)
    const token = await w.mfaToken(u.username)
    const before = w.sent()
    const res = await sendPush(w.t, token)
    expect(res.status, res.text).to.equal(202)
    expect(res.headers.get('retry-after')).to.equal('1')
    expect(res.body.status).to.equal('push_pending')
    expect(res.body.number).to.match(/^[1-9][0-9]$/)
    const note = await w.push.queue.take(phone.queue, 10_000)
    expect(note?.payload, 'the push left the sender').to.deep.include({ type: 'challenge', challenge_id: res.body.push_challenge })
    expect(w.sent()).to.be.greaterThan(before)
    return { u, phone, token, challenge: res.body.push_challenge as string, number: res.body.number as string }
  }

  it('approving with the number shown completes the sign-in (a long poll wakes on the answer), and the token is spent', async () => {
    const { phone, token, challenge, number } = await pushed()
    const c = await pendingOf(phone, challenge)
    expect(c.number_matching).to.equal(true)
    expect(JSON.stringify(c), 'the number is never sent to the phone').to.not.include(`"number":`)
    const waiting = poll(w.t, token, challenge, 20)
    await new Promise((r) => setTimeout(r, 300))
    const ans = await phone.answer(c, 'approve', number)
    expect(ans.status, ans.text).to.equal(200)
    expect(ans.body.result).to.equal('approved')
    const done = await waiting
    expect(done.status, done.text).to.equal(200)
    expect(done.body.access_token).to.be.a('string')
    const me = await w.t.req('GET', '/api/v1/auth/me', { token: done.body.access_token })
    expect(me.status).to.equal(200)
    // Spent: the same token cannot carry a second sign-in.
    const again = await poll(w.t, token, challenge)
    expect(again.status).to.equal(401)
    expect(again.body.code).to.equal('MFA_TOKEN_INVALID')
    // A second approval of the same challenge (a replay) is refused.
    const twice = await phone.answer(c, 'approve', number)
    expect(twice.status, twice.text).to.equal(409)
    expect(twice.body.code).to.equal('PUSH_CHALLENGE_CLOSED')
  })

  it('refuses malformed push bodies at the field, costing nothing', async () => {
    const { token, challenge } = await pushed()
    const cases: [Record<string, unknown>, string][] = [
      [{ mfa_token: token, method: 'push', code: '123456' }, 'method'],
      [{ mfa_token: token, method: 'sms' }, 'method'],
      [{ mfa_token: token, push_challenge: challenge, wait_seconds: 26 }, 'wait_seconds'],
      [{ mfa_token: token, wait_seconds: 5 }, 'code'],
      [{ mfa_token: token, method: 'push', wait_seconds: 5 }, 'wait_seconds'],
      [{ mfa_token: token, push_challenge: 'not-a-uuid' }, 'push_challenge'],
    ]
    for (const [body, field] of cases) {
      const res = await w.t.req('POST', '/api/v1/mfa/verify', { body })
      expect(res.status, JSON.stringify(body)).to.equal(422)
      expect(res.body.field, JSON.stringify(body)).to.equal(field)
    }
    expect((await poll(w.t, token, challenge)).status, 'still pending').to.equal(202)
  })

  it('a pending poll answers 202; a denial answers MFA_PUSH_DENIED', async () => {
    const { phone, token, challenge } = await pushed()
    const still = await poll(w.t, token, challenge, 0)
    expect(still.status, still.text).to.equal(202)
    const ans = await phone.answer(await pendingOf(phone, challenge), 'deny')
    expect(ans.body.result).to.equal('denied')
    const res = await poll(w.t, token, challenge)
    expect(res.status, res.text).to.equal(401)
    expect(res.body).to.include({ code: 'MFA_PUSH_DENIED', field: 'push_challenge' })
    expect(res.body.detail).to.include('denied')
  })

  it('the wrong number ends the challenge as a wrong answer', async () => {
    const { phone, token, challenge, number } = await pushed()
    const wrong = number === '42' ? '43' : '42'
    const ans = await phone.answer(await pendingOf(phone, challenge), 'approve', wrong)
    expect(ans.body.result).to.equal('wrong_number')
    const res = await poll(w.t, token, challenge)
    expect(res.body.code).to.equal('MFA_PUSH_DENIED')
    expect(res.body.detail).to.include('wrong_number')
    expect((await w.t.app.db.knex('mfa_push_challenge').where({ id: challenge }).first())?.state).to.equal('wrong_number')
  })

  it('five failed answers burn the token, and a burnt token sends no push', async () => {
    const u = await w.user()
    const phone = await w.phone(u.session)
    const token = await w.mfaToken(u.username)
    let last = null as Awaited<ReturnType<typeof poll>> | null
    for (let i = 1; i <= MFA_CODE_BUDGET; i++) {
      // Under the per-user push limit: each test user has its own window.
      const res = await sendPush(w.t, token)
      expect(res.status, `push ${i}: ${res.text}`).to.equal(202)
      await phone.answer(await pendingOf(phone, res.body.push_challenge), 'deny')
      last = await poll(w.t, token, res.body.push_challenge)
      expect(last.status).to.equal(401)
      if (i < MFA_CODE_BUDGET) expect(last.body.code, `answer ${i}`).to.equal('MFA_PUSH_DENIED')
    }
    expect(last!.body.code).to.equal('MFA_TOKEN_BURNT')
    await w.t.app.db.knex('rate_limit_hits').delete()
    await w.t.app.db.knex('mfa_push_challenge').where({ user_id: u.id }).delete()
    // The phone has taken what was sent so far.
    while (await w.push.queue.take(phone.queue, 300));
    const before = w.sent()
    const burnt = await sendPush(w.t, token)
    expect(burnt.status, burnt.text).to.equal(401)
    expect(burnt.body.code).to.equal('MFA_TOKEN_BURNT')
    expect(await w.push.queue.take(phone.queue, 1500), 'no notification left for a burnt token').to.equal(null)
    expect(w.sent()).to.equal(before)
    expect(await w.t.app.db.knex('mfa_push_challenge').where({ user_id: u.id })).to.have.length(0)
  })

  it('the budget is charged before a push leaves: with five pushes out, the next sends nothing (MFA_TOKEN_BURNT)', async () => {
    const u = await w.user()
    const phone = await w.phone(u.session)
    const token = await w.mfaToken(u.username)
    for (let i = 1; i <= MFA_CODE_BUDGET; i++) expect((await sendPush(w.t, token)).status, `push ${i}`).to.equal(202)
    // Out of the per-user limit's window: only the token's budget can stop the next one.
    await w.t.app.db.knex('mfa_push_challenge').where({ user_id: u.id }).update({ created_at: new Date(Date.now() - 3600_000) })
    while (await w.push.queue.take(phone.queue, 300));
    const before = w.sent()
    const res = await sendPush(w.t, token)
    expect(res.status, res.text).to.equal(401)
    expect(res.body.code).to.equal('MFA_TOKEN_BURNT')
    expect(await w.push.queue.take(phone.queue, 1500), 'no notification left').to.equal(null)
    expect(w.sent()).to.equal(before)
    expect(await w.t.app.db.knex('mfa_push_challenge').where({ user_id: u.id })).to.have.length(MFA_CODE_BUDGET)
  })

  it('an answer after expiry is refused (409), the poll says expired', async () => {
    const { phone, token, challenge } = await pushed()
    const c = await pendingOf(phone, challenge)
    await w.t.app.db.knex('mfa_push_challenge').where({ id: challenge }).update({ expires_at: new Date(Date.now() - 1000) })
    const ans = await phone.answer(c, 'approve', '10')
    expect(ans.status, ans.text).to.equal(409)
    expect(ans.body.code).to.equal('PUSH_CHALLENGE_CLOSED')
    const res = await poll(w.t, token, challenge)
    expect(res.body.code).to.equal('MFA_PUSH_DENIED')
    expect(res.body.detail).to.include('expired')
  })

  it("refuses answers with the fields moved, with another user's device, and a challenge of another sign-in", async () => {
    const { u, phone, token, challenge, number } = await pushed()
    const c = await pendingOf(phone, challenge)
    // Signed "deny", sent as "approve": the answer signature covers the decision.
    const moved = phone.answerBody(c, 'deny', number)
    const res = await phone.request('POST', `/v1/challenges/${c.id}/answer`, { ...moved, decision: 'approve' })
    expect(res.status, res.text).to.equal(401)
    expect(res.body.code).to.equal('PUSH_SIGNATURE_INVALID')
    // Signed over another challenge's nonce (a replay moved onto this one).
    const other = phone.answerBody({ id: c.id, nonce: '0'.repeat(32) }, 'approve', number)
    expect((await phone.request('POST', `/v1/challenges/${c.id}/answer`, other)).body.code).to.equal('PUSH_SIGNATURE_INVALID')
    // Another user's enrolled phone: not its challenge.
    const v = await w.user()
    const foreign = await w.phone(v.session)
    const f = await foreign.request('POST', `/v1/challenges/${c.id}/answer`, foreign.answerBody(c, 'approve', number))
    expect(f.status, f.text).to.equal(404)
    expect(f.body.code).to.equal('PUSH_CHALLENGE_NOT_FOUND')
    // Another sign-in's token cannot read this challenge.
    const otherToken = await w.mfaToken(u.username)
    const cross = await poll(w.t, otherToken, challenge)
    expect(cross.body.code).to.equal('MFA_PUSH_DENIED')
    expect(cross.body.detail).to.include('cancelled')
    // Still pending for its own sign-in: nothing above decided it.
    expect((await poll(w.t, token, challenge)).status).to.equal(202)
  })

  it('MFA bombing: pushes in a row form one burst; the per-user limit refuses the next (audited); report ends the burst and locks pushes', async () => {
    const u = await w.user()
    const phone = await w.phone(u.session)
    const ids: string[] = []
    for (let i = 0; i < PUSH_RATE_LIMIT.max; i++) {
      await w.t.app.db.knex('rate_limit_hits').delete()
      const res = await sendPush(w.t, await w.mfaToken(u.username))
      expect(res.status, res.text).to.equal(202)
      ids.push(res.body.push_challenge)
    }
    const list = await phone.pending()
    expect(list.map((c) => c.id)).to.deep.equal(ids)
    expect(new Set(list.map((c) => c.burst.id)).size, 'one burst').to.equal(1)
    expect(list[list.length - 1].burst.count).to.equal(PUSH_RATE_LIMIT.max)
    await w.t.app.db.knex('rate_limit_hits').delete()
    const limited = await sendPush(w.t, await w.mfaToken(u.username))
    expect(limited.status, limited.text).to.equal(429)
    expect(limited.body.code).to.equal('MFA_PUSH_RATE_LIMITED')
    expect(await w.t.app.db.knex('audit_log').where({ action: 'mfa.push_rate_limited', resource_id: u.id })).to.have.length(1)

    const rep = await phone.answer(list[0], 'report')
    expect(rep.body.result).to.equal('reported')
    expect(await phone.pending(), 'the whole burst ended').to.have.length(0)
    const states = await w.t.app.db.knex('mfa_push_challenge').whereIn('id', ids).pluck('state')
    expect(new Set(states)).to.deep.equal(new Set(['reported']))
    expect(await w.t.app.db.knex('audit_log').where({ action: 'mfa.push_reported', resource_id: u.id })).to.have.length(1)
    // Locked: even once the limit's window is gone, no push goes until the lock is cleared.
    await w.t.app.db.knex('mfa_push_challenge').where({ user_id: u.id }).update({ created_at: new Date(Date.now() - 3600_000) })
    await w.t.app.db.knex('rate_limit_hits').delete()
    const token = await w.mfaToken(u.username)
    const locked = await sendPush(w.t, token)
    expect(locked.status, locked.text).to.equal(403)
    expect(locked.body.code).to.equal('MFA_PUSH_LOCKED')
    const cleared = await w.t.req('DELETE', '/api/v1/mfa/push-lock', { token: u.session })
    expect(cleared.status).to.equal(204)
    expect((await sendPush(w.t, token)).status).to.equal(202)
  })

  it("disabling the user ends the pending push: the phone's approval is refused and the poll says cancelled", async () => {
    const { u, phone, token, challenge, number } = await pushed()
    const c = await pendingOf(phone, challenge)
    const off = await w.t.admin('PUT', `/api/v1/users/${u.id}`, { body: { enabled: false } })
    expect(off.status, off.text).to.equal(200)
    const ans = await phone.answer(c, 'approve', number)
    expect(ans.status, ans.text).to.equal(409)
    expect((await w.t.app.db.knex('mfa_push_challenge').where({ id: challenge }).first())?.state).to.equal('cancelled')
    const res = await poll(w.t, token, challenge)
    expect(res.status).to.equal(401)
  })

  it('a password change keeps the phone but ends the old sign-in: its poll is refused and its push is cancelled', async () => {
    const { u, phone, token, challenge, number } = await pushed()
    const c = await pendingOf(phone, challenge)
    // The kernel keeps tokens issued in the second of the change (the new session): the sign-in must be older.
    await new Promise((r) => setTimeout(r, 1100))
    const changed = await w.t.req('POST', '/api/v1/auth/change-password', { token: u.session, body: { current_password: PASSWORD, new_password: 'Quartz-Meadow-Lantern-77' } })
    expect(changed.status, changed.text).to.equal(200)
    const res = await poll(w.t, token, challenge)
    expect(res.status, res.text).to.equal(401)
    expect(res.body.code).to.equal('MFA_TOKEN_INVALID')
    expect((await w.t.app.db.knex('mfa_push_challenge').where({ id: challenge }).first())?.state).to.equal('cancelled')
    expect((await phone.answer(c, 'approve', number)).status).to.equal(409)
    expect(await w.t.app.db.knex('mfa_push_device').where({ user_id: u.id }), 'the phone stays').to.have.length(1)
  })

  it('removing the phone ends its pending push; the removed phone cannot answer', async () => {
    const { u, phone, token, challenge, number } = await pushed()
    const c = await pendingOf(phone, challenge)
    const removed = await w.t.req('DELETE', `/api/v1/mfa/push-devices/${phone.deviceId}`, { token: u.session })
    expect(removed.status, removed.text).to.equal(204)
    const ans = await phone.answer(c, 'approve', number)
    expect(ans.status).to.equal(401)
    expect(ans.body.code).to.equal('PUSH_DEVICE_UNKNOWN')
    const res = await poll(w.t, token, challenge)
    expect(res.body.code).to.equal('MFA_PUSH_DENIED')
    expect(res.body.detail).to.include('cancelled')
  })

  it('a scripted phone that approves at once signs the user in within one long poll', async () => {
    const u = await w.user()
    const phone = await w.phone(u.session, { algorithm: 'ed25519' })
    const numbers = new Map<string, string>()
    // The phone may fetch the push before this test has read the 202: it waits for the number shown, as a person reads it off the screen.
    phone.behave('approve', async (id) => {
      for (let i = 0; i < 200 && !numbers.has(id); i++) await new Promise((r) => setTimeout(r, 25))
      return numbers.get(id) ?? null
    })
    try {
      const token = await w.mfaToken(u.username)
      const res = await sendPush(w.t, token)
      numbers.set(res.body.push_challenge, res.body.number)
      const done = await poll(w.t, token, res.body.push_challenge, 20)
      expect(done.status, done.text).to.equal(200)
      expect(done.body.access_token).to.be.a('string')
    } finally {
      await phone.stop()
    }
  })

  it("a push for a sign-in whose phone is gone answers 409 MFA_PUSH_NO_DEVICE; another key cannot speak for a device id", async () => {
    const v = await w.user()
    await w.phone(v.session)
    const list = await w.t.req('GET', '/api/v1/mfa/push-devices', { token: v.session })
    expect(list.body.items).to.have.length(1)
    const phone2 = new ScriptedPhone(viaPushService(w.push.url))
    expect((await phone2.request('GET', '/v1/device', null, { deviceId: list.body.items[0].id })).body.code).to.equal('PUSH_SIGNATURE_INVALID')
    const token = await w.mfaToken(v.username)
    await w.t.app.db.knex('mfa_push_device').where({ user_id: v.id }).delete()
    await w.t.app.db.knex('mfa_totp').insert({ user_id: v.id, secret: 'x', confirmed: true })
    const res = await sendPush(w.t, token)
    expect(res.status, res.text).to.equal(409)
    expect(res.body.code).to.equal('MFA_PUSH_NO_DEVICE')
  })
})
