/**
 * The "user's access ended" hook (kernel/identity/lifecycle.ts): which changes end access, and a failing
 * subscriber logged without stopping the others (the user change has committed: it stands).
 */
import { expect } from 'chai'
import type { Logger, UserAccessEnded } from '../../sdk/index.js'
import { accessEndedBy, UserLifecycle } from '../../kernel/identity/lifecycle.js'

const user = (o: Partial<{ enabled: boolean; network_login: boolean; expires_at: string | null }> = {}) => ({ enabled: true, network_login: true, expires_at: null, ...o })
const past = new Date(Date.now() - 60_000).toISOString()
const future = new Date(Date.now() + 3_600_000).toISOString()

describe('identity: a user\'s access ended', () => {
  it('names the change that ends access: disabled wins, then a past expiry, then network login off; nothing else', () => {
    expect(accessEndedBy(user(), user({ enabled: false, network_login: false }))).to.equal('disabled')
    expect(accessEndedBy(user(), user({ expires_at: past, network_login: false }))).to.equal('expired')
    expect(accessEndedBy(user(), user({ network_login: false }))).to.equal('network_login_off')
    expect(accessEndedBy(user(), user({ expires_at: future }))).to.equal(null)
    expect(accessEndedBy(user({ enabled: false }), user({ enabled: false, network_login: false }))).to.equal(null)
    expect(accessEndedBy(user({ expires_at: past }), user({ expires_at: past, network_login: false }))).to.equal(null)
    expect(accessEndedBy(user({ network_login: false }), user({ network_login: true }))).to.equal(null)
  })

  it('a failing subscriber is logged; the next ones still run, and the emit never throws', async () => {
    const errors: unknown[] = []
    const log = { error: (o: object) => errors.push(o), warn() {}, info() {}, debug() {}, child: () => log } as unknown as Logger
    const l = new UserLifecycle(log)
    const seen: string[] = []
    l.onAccessEnded(() => {
      throw new Error('boom')
    })
    const off = l.onAccessEnded(async (e) => void seen.push(`${e.username}:${e.reason}`))
    const e: UserAccessEnded = { user_id: '00000000-0000-4000-8000-000000000001', username: 'alice', reason: 'deleted', actor: null }
    await l.accessEnded([e])
    expect(seen).to.deep.equal(['alice:deleted'])
    expect(errors).to.have.length(1)
    expect(errors[0]).to.include({ user_id: e.user_id, reason: 'deleted' })
    off()
    await l.accessEnded([e])
    expect(seen).to.have.length(1)
  })
})
