/**
 * The users the renderers are given (identity.networkUsers): what a render sees after changes made
 * through the API, with the opened verifiers kept between reads and one read per render snapshot
 * (kernel/identity/network-users.ts).
 */
import { expect } from 'chai'
import type { NetworkUser } from '../../sdk/index.js'
import { startTestApp, type TestApp } from '../kit/app.js'
import { createGroup, createUser, STRONG, STRONG_2 } from './helpers.js'

describe('identity: the network users the renderers read', function () {
  this.timeout(60_000)
  let t: TestApp
  before(async () => {
    t = await startTestApp()
  })
  after(async () => t?.stop())

  const read = () => t.app.identity.networkUsers(t.app.db.knex)
  const find = (users: NetworkUser[], id: string) => users.find((u) => u.id === id)
  const put = async (id: string, body: Record<string, unknown>) => expect((await t.admin('PUT', `/api/v1/users/${id}`, { body })).status).to.equal(200)

  it('a new password, new groups and network login turned off show in the next read', async () => {
    const [g1, g2] = [await createGroup(t), await createGroup(t)]
    const user = await createUser(t, { password: STRONG, network_login: true, group_ids: [g2, g1] })
    const first = find(await read(), user.id)!
    expect(first.group_ids).to.deep.equal([g1, g2].sort())
    expect(find(await read(), user.id)!.verifiers).to.deep.equal(first.verifiers)

    await put(user.id, { password: STRONG_2, group_ids: [g1] })
    const second = find(await read(), user.id)!
    expect(second.verifiers!.sha512_crypt).not.to.equal(first.verifiers!.sha512_crypt)
    expect(second.verifiers).to.deep.equal(await t.app.identity.networkVerifiers(user.id))
    expect(second.group_ids).to.deep.equal([g1])

    await put(user.id, { network_login: false })
    expect(find(await read(), user.id)).to.equal(undefined)
  })

  it('one read per render snapshot: a second ask in the same transaction answers the same users in an array of its own', async () => {
    const user = await createUser(t, { password: STRONG, network_login: true })
    await t.app.db.transaction(
      async (snapshot) => {
        const a = await t.app.identity.networkUsers(snapshot)
        const b = await t.app.identity.networkUsers(snapshot)
        expect(b).not.to.equal(a)
        expect(b).to.deep.equal(a)
        a.reverse()
        expect((await t.app.identity.networkUsers(snapshot)).map((u) => u.id)).to.deep.equal(b.map((u) => u.id))
        expect(find(b, user.id)).not.to.equal(undefined)
      },
      { isolation: 'repeatable read' },
    )
  })

  it('the opened verifiers are shared and frozen: a caller cannot change what the next render sees', async () => {
    const user = await createUser(t, { password: STRONG, network_login: true })
    const v = find(await read(), user.id)!.verifiers!
    expect(Object.isFrozen(v)).to.equal(true)
    expect(() => {
      ;(v as { sha512_crypt: string }).sha512_crypt = 'changed'
    }).to.throw(TypeError)
    expect(find(await read(), user.id)!.verifiers!.sha512_crypt).to.match(/^\$6\$/)
  })
})
