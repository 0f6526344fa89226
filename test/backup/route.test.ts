/**
 * POST /api/v1/backups: administrators only (not a permission a role could
 * hold), audited, streamed, documented; and the archive is as of the
 * request, whatever is written while it is read.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import { archiveMembers, verifyArchive } from '../../kernel/backup/verify.js'
import { readMasterKey } from '../../kernel/security/master-key.js'
import { startTestApp, type TestApp } from '../kit/app.js'
import { expectError } from '../kit/expect.js'
import { scratchFolder } from '../kit/scratch.js'

const PLUGINS = ['inventory', 'aaa-logs']

describe('POST /api/v1/backups', function () {
  this.timeout(120_000)
  let t: TestApp
  let dir: string
  const post = (token?: string) => fetch(`${t.url}/api/v1/backups`, { method: 'POST', headers: token ? { authorization: `Bearer ${token}` } : {} })

  before(async () => {
    t = await startTestApp({ plugins: PLUGINS, env: { DOCS_ENABLED: 'true' } })
    dir = scratchFolder('portcullis-backup-route-')
  })
  after(async () => {
    await t?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  it('an administrator gets the archive as a gzip download, valid under the master key, and the backup is audited', async () => {
    const res = await post(t.adminToken)
    expect(res.status).to.equal(200)
    expect(res.headers.get('content-type')).to.equal('application/gzip')
    const name = /^attachment; filename="(portcullis-[\d.]+-\d{8}T\d{6}Z\.tar\.gz)"$/.exec(res.headers.get('content-disposition') ?? '')?.[1]
    expect(name, res.headers.get('content-disposition') ?? '').to.be.a('string')
    const file = path.join(dir, name!)
    writeFileSync(file, Buffer.from(await res.arrayBuffer()))
    const { manifest } = await verifyArchive(file, readMasterKey(t.masterKey, 'MASTER_KEY'))
    expect(manifest.app_version).to.equal(t.app.version)
    expect(manifest.engine).to.equal(t.app.db.engine)
    const admin = (await t.app.db.knex('users').where({ is_admin: true }).whereLike('username', 'kit-%').first('id'))!
    const audit = await t.app.db.knex('audit_log').where({ action: 'backup.create' }).select('actor_id', 'resource_type', 'resource_id', 'outcome')
    expect(audit).to.deep.equal([{ actor_id: admin.id, resource_type: 'backup', resource_id: name, outcome: 'success' }])
    // The record of its own making is in the archive: audited first, then the snapshot.
    const members: Record<string, string> = {}
    for await (const m of archiveMembers(file)) members[m.name] = m.data.toString('utf8')
    expect(members['data/audit_log.00001']).to.contain('backup.create')
  })

  it('a user holding every permission but not an administrator gets 403 ADMIN_REQUIRED; no token 401; nothing is audited for them', async () => {
    const token = await t.token({ permissions: [...t.app.registry.permissions.keys()] })
    expectError(await t.req('POST', '/api/v1/backups', { token }), 403, 'ADMIN_REQUIRED')
    expectError(await t.req('POST', '/api/v1/backups'), 401, 'TOKEN_INVALID')
    expect(await t.app.db.knex('audit_log').where({ action: 'backup.create' }).count('* as n').first()).to.deep.equal({ n: 1 })
  })

  it('the archive is as of the request: a user created while it is being read is not in it', async function () {
    if (t.app.db.engine !== 'postgres') this.skip() // the embedded engine writes the archive before it answers: trivially as of the request
    // Enough rows that the archive is still being written when the answer starts.
    await t.app.db.knex.transaction(async (trx) => {
      await trx.raw('SET LOCAL statement_timeout = 0')
      await trx.raw(`INSERT INTO aaa_log_tacacs_authn (timestamp, username, node_id, source_file, source_offset, status)
        SELECT now(), 'u' || g, gen_random_uuid(), 'f', g, 'success' FROM generate_series(1, 30000) g`)
    })
    const res = await post(t.adminToken)
    expect(res.status).to.equal(200)
    const reader = res.body!.getReader()
    const chunks: Buffer[] = [Buffer.from((await reader.read()).value!)]
    const late = await t.admin('POST', '/api/v1/users', { body: { username: 'written-while-read' } })
    expect(late.status).to.equal(201)
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(Buffer.from(r.value))
    const file = path.join(dir, 'during.tar.gz')
    writeFileSync(file, Buffer.concat(chunks))
    await verifyArchive(file, readMasterKey(t.masterKey, 'MASTER_KEY'))
    let users = ''
    for await (const m of archiveMembers(file)) if (m.name.startsWith('data/users.')) users += m.data.toString('utf8')
    expect(users).to.contain('kit-')
    expect(users).to.not.contain('written-while-read')
  })

  it('a client that goes away in the middle of the download leaves no snapshot open', async function () {
    if (t.app.db.engine !== 'postgres') this.skip() // the embedded engine has written the archive before it answers
    // Rows that do not compress: far more archive than the connection's buffers hold, so the backup waits on the client.
    await t.app.db.knex.transaction(async (trx) => {
      await trx.raw('SET LOCAL statement_timeout = 0')
      await trx.raw(`INSERT INTO aaa_log_tacacs_authn (timestamp, username, node_id, source_file, source_offset, status, message)
        SELECT now(), 'w' || g, gen_random_uuid(), 'f', g, 'success', repeat(md5(random()::text) || md5(random()::text), 3) FROM generate_series(1, 60000) g`)
    })
    const open = async () => Number((await t.app.db.knex.raw(`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND (state LIKE 'idle in transaction%' OR query LIKE 'COPY%')`)).rows[0].n)
    const res = await post(t.adminToken)
    expect(res.status).to.equal(200)
    const reader = res.body!.getReader()
    await reader.read()
    await new Promise((r) => setTimeout(r, 500))
    expect(await open(), 'the backup is still waiting for the client').to.equal(1)
    await reader.cancel()
    // The backup's transaction (a COPY, or idle in it while the answer waits for the client) ends with the client.
    let n = await open()
    for (let i = 0; i < 100 && n > 0; i++) {
      await new Promise((r) => setTimeout(r, 100))
      n = await open()
    }
    expect(n).to.equal(0)
  })

  it('is documented in the OpenAPI document: a gzip download, 401 and 403', async () => {
    const doc = (await t.req('GET', '/openapi.json')).body
    const op = doc.paths['/api/v1/backups'].post
    expect(Object.keys(op.responses['200'].content)).to.deep.equal(['application/gzip'])
    expect(op.responses['200'].headers['Content-Disposition']).to.be.an('object')
    expect(op.responses).to.include.keys('401', '403')
  })
})
