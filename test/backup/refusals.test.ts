/**
 * `portcullis backup` and `portcullis restore` on the command line, and every
 * refusal of a restore: each one coded, and with nothing written to the
 * target. The source is sealed with a passphrase, whose scrypt salt lives in
 * the database: a restore must derive the key with the archive's salt.
 */
import { randomBytes } from 'node:crypto'
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { expect } from 'chai'
import { CONTENTS, CONTENTS_SEAL, MANIFEST, MANIFEST_SEAL } from '../../kernel/backup/manifest.js'
import { connect } from '../../kernel/db/connect.js'
import { defaultEngine, startTestApp, type TestApp } from '../kit/app.js'
import { created } from '../kit/expect.js'
import { cli, freshTarget, hasAnySchema, refusal, restoreInto, rewriteArchive, type Target } from './helpers.js'
import { scratchFolder } from '../kit/scratch.js'

const V1 = ['inventory', './test/fixtures/plugins/backup-probe-v1']
const V2 = ['inventory', './test/fixtures/plugins/backup-probe-v2']
const passphrase = () => `backup tests passphrase ${randomBytes(18).toString('base64url')}`

describe('portcullis backup / restore: the command line and every refusal', function () {
  this.timeout(600_000)
  const engine = defaultEngine()
  const key = passphrase()
  let dir: string
  let source: { env: Record<string, string> }
  let backupOutput = ''
  const archive = (name: string) => path.join(dir, name)
  const targets: Target[] = []
  const target = async (plugins = V1, masterKey = key) => {
    const t = await freshTarget(engine, masterKey, plugins)
    targets.push(t)
    return t
  }
  /** A restored or started target's database, read directly. */
  const query = async (t: Target, sql: string) => {
    const db = await connect({ databaseUrl: t.databaseUrl, dataDir: t.dataDir })
    try {
      return (await db.knex.raw(sql)).rows
    } finally {
      await db.knex.destroy()
    }
  }

  before(async () => {
    dir = scratchFolder('portcullis-backup-cli-')
    const dataDir = path.join(dir, 'source')
    const t: TestApp = await startTestApp({ engine, plugins: V1, dataDir, masterKey: key })
    try {
      await created(t, '/api/v1/devices', { name: 'core', address: '192.0.2.1/32', tacacs_key: 'probe-tacacs-key' })
      await t.app.db.knex.raw(`INSERT INTO backup_probe (name) VALUES ('one'), ('two'), ('three')`)
    } finally {
      await t.stop()
    }
    source = { env: { DATABASE_URL: t.databaseUrl ?? '', DATA_DIR: dataDir, MASTER_KEY: key, PLUGINS: V1.join(',') } }
    // The source stopped: on the embedded engine only one process may open its data folder.
    for (const [file, version] of [['good.tar.gz', ''], ['old.tar.gz', '0.0.9'], ['newer.tar.gz', '9.0.0']]) {
      const r = await cli(['backup', archive(file)], { ...source.env, ...(version ? { SERVICE_VERSION: version } : {}) })
      expect(r.code, r.stdout + r.stderr).to.equal(0)
      if (!version) backupOutput = r.stdout
    }
  })
  after(() => {
    for (const t of targets) rmSync(t.dataDir, { recursive: true, force: true })
    rmSync(dir, { recursive: true, force: true })
  })

  it('portcullis backup writes the archive (mode 0600) and says what is in it; an existing file is never overwritten', async () => {
    expect(backupOutput).to.match(/^backup: \d+ tables, \d+ rows, [\d.]+ MiB written to .*good\.tar\.gz\n {2}app_version [\d.]+, engine (postgres|embedded), node [0-9a-f-]{36}, master key id [0-9a-f]{16}\n/)
    expect(statSync(archive('good.tar.gz')).mode & 0o777).to.equal(0o600)
    const again = await cli(['backup', archive('good.tar.gz')], source.env)
    expect(again.code).to.equal(1)
    expect(again.stderr).to.match(/exists already/)
    expect((await cli(['backup'], source.env)).code).to.equal(2)
  })

  it('portcullis restore brings the archive into a new installation: rows, sequences, the passphrase-sealed secrets', async () => {
    const t = await target()
    const r = await cli(['restore', archive('good.tar.gz')], t.env)
    expect(r.code, r.stdout + r.stderr).to.equal(0)
    expect(r.stdout).to.match(/restore: archive of \d+ tables, app_version [\d.]+, made .* on node [0-9a-f-]{36} \((postgres|embedded)\); sealed by this master key/)
    expect(r.stdout).to.match(/restore: \d+ tables, \d+ rows restored from /)
    // The server starts on it with the same passphrase: its salt came with the archive, or the key check would refuse the boot.
    const app = await startTestApp({ engine, plugins: V1, databaseUrl: t.databaseUrl ?? undefined, dataDir: t.dataDir, masterKey: key })
    try {
      const devices = await app.admin('GET', '/api/v1/devices')
      expect(devices.body.items.map((d: { name: string }) => d.name)).to.deep.equal(['core'])
      const [row] = await app.app.db.knex.raw(`INSERT INTO backup_probe (name) VALUES ('four') RETURNING id`).then((x: { rows: { id: number }[] }) => x.rows)
      expect(row.id).to.equal(4)
    } finally {
      await app.stop()
    }
  })

  it('a server started once and never used is empty: a restore is accepted; a used one is refused BACKUP_TARGET_NOT_EMPTY and left as it was', async () => {
    const fresh = await target()
    // A backup boots the platform as a first start does (migrations, the administrator, the node).
    const started = await cli(['backup', path.join(fresh.dataDir, 'first.tar.gz')], fresh.env)
    expect(started.code, started.stderr).to.equal(0)
    expect(started.stderr).to.match(/first start: administrator "admin" created/)
    expect((await cli(['restore', archive('good.tar.gz')], fresh.env)).code).to.equal(0)
    expect(await query(fresh, 'SELECT name FROM backup_probe ORDER BY id')).to.deep.equal([{ name: 'one' }, { name: 'two' }, { name: 'three' }])

    const used = await target()
    const app = await startTestApp({ engine, plugins: V1, databaseUrl: used.databaseUrl ?? undefined, dataDir: used.dataDir, masterKey: key })
    await created(app, '/api/v1/devices', { name: 'edge', address: '198.51.100.1/32' })
    await app.stop()
    const before = await query(used, 'SELECT (SELECT count(*) FROM users) AS users, (SELECT count(*) FROM inventory_devices) AS devices, (SELECT count(*) FROM backup_probe) AS probe')
    const r = await cli(['restore', archive('good.tar.gz')], used.env)
    expect(r.code).to.equal(1)
    expect(r.stderr).to.match(/^portcullis: BACKUP_TARGET_NOT_EMPTY: The target database is not empty \(its table \w+ holds more than a first start writes\)/)
    expect(await query(used, 'SELECT (SELECT count(*) FROM users) AS users, (SELECT count(*) FROM inventory_devices) AS devices, (SELECT count(*) FROM backup_probe) AS probe')).to.deep.equal(before)
  })

  it('a truncated archive: BACKUP_ARCHIVE_INVALID, nothing written', async () => {
    const file = archive('truncated.tar.gz')
    copyFileSync(archive('good.tar.gz'), file)
    truncateSync(file, Math.floor(statSync(file).size * 0.6))
    const t = await target()
    const r = await cli(['restore', file], t.env)
    expect(r.code).to.equal(1)
    expect(r.stderr).to.match(/^portcullis: BACKUP_ARCHIVE_INVALID: The file is not a usable Portcullis backup: .*truncated.*Nothing was written\.\n$/)
    expect(await hasAnySchema(t)).to.equal(false)
    // Cut exactly after a member, well-formed but without the sealed list of members at its end: the same refusal.
    const short = archive('short.tar.gz')
    await rewriteArchive(archive('good.tar.gz'), short, (m) => (m.name === CONTENTS || m.name === CONTENTS_SEAL ? null : m.data))
    expect(await refusal(restoreInto(t, short))).to.equal('BACKUP_ARCHIVE_INVALID')
    // Without the manifest at its start, it is no archive of ours.
    const headless = archive('headless.tar.gz')
    await rewriteArchive(archive('good.tar.gz'), headless, (m) => (m.name === MANIFEST || m.name === MANIFEST_SEAL ? null : m.data))
    expect(await refusal(restoreInto(t, headless))).to.equal('BACKUP_ARCHIVE_INVALID')
    writeGarbage(archive('garbage.tar.gz'))
    expect(await refusal(restoreInto(t, archive('garbage.tar.gz')))).to.equal('BACKUP_ARCHIVE_INVALID')
    expect(await hasAnySchema(t)).to.equal(false)
  })

  it('a tampered member, manifest or seal, a member added or removed: BACKUP_ARCHIVE_TAMPERED, nothing written', async () => {
    const t = await target()
    const cases: [string, Parameters<typeof rewriteArchive>[2]][] = [
      // A device's name changed in the rows (same length, so only the checksum tells).
      ['member', (m) => (m.name.startsWith('data/inventory_devices.') ? Buffer.from(m.data.toString('utf8').replace('\tcore\t', '\tcorf\t')) : m.data)],
      // The manifest says another version: its seal no longer matches.
      ['manifest', (m) => (m.name === MANIFEST ? Buffer.from(m.data.toString('utf8').replace(/"app_version": "[^"]+"/, '"app_version": "0.1.0-x"')) : m.data)],
      ['seal', (m) => (m.name === MANIFEST_SEAL ? Buffer.from('0'.repeat(64) + '\n') : m.data)],
      ['no seal', (m) => (m.name === MANIFEST_SEAL ? null : m.data)],
      // The list of members made to agree with a changed member: its own seal no longer matches.
      ['contents', (m) => (m.name === CONTENTS ? Buffer.from(m.data.toString('utf8').replace(/"data\/inventory_devices\.00001": "[0-9a-f]+"/, `"data/inventory_devices.00001": "${'0'.repeat(64)}"`)) : m.data)],
      ['no contents seal', (m) => (m.name === CONTENTS_SEAL ? null : m.data)],
      ['member removed', (m) => (m.name.startsWith('data/backup_probe.') ? null : m.data)],
      ['member added', (m) => (m.name === CONTENTS ? [{ name: 'data/users.99999', data: Buffer.from('x\n') }, m] : m.data)],
    ]
    for (const [what, edit] of cases) {
      const file = archive(`tampered-${what.replace(/ /g, '-')}.tar.gz`)
      await rewriteArchive(archive('good.tar.gz'), file, edit)
      expect(readFileSync(file).equals(readFileSync(archive('good.tar.gz'))), what).to.equal(false)
      expect(await refusal(restoreInto(t, file)), what).to.equal('BACKUP_ARCHIVE_TAMPERED')
    }
    expect(await hasAnySchema(t)).to.equal(false)
  })

  it('a wrong master key is told before anything is written (BACKUP_MASTER_KEY_MISMATCH); no key at all, BACKUP_MASTER_KEY_MISSING', async () => {
    const other = await target(V1, passphrase())
    expect(await refusal(restoreInto(other, archive('good.tar.gz')))).to.equal('BACKUP_MASTER_KEY_MISMATCH')
    const asKey = await target(V1, randomBytes(32).toString('hex'))
    expect(await refusal(restoreInto(asKey, archive('good.tar.gz')))).to.equal('BACKUP_MASTER_KEY_MISMATCH')
    expect(await hasAnySchema(other)).to.equal(false)
    expect(await hasAnySchema(asKey)).to.equal(false)
    const none = await target()
    expect(await refusal(restoreInto(none, archive('good.tar.gz'), { env: { MASTER_KEY: '' } }))).to.equal('BACKUP_MASTER_KEY_MISSING')
    expect(await hasAnySchema(none)).to.equal(false)
  })

  it('an archive from a newer version is refused, even with --force (BACKUP_FROM_NEWER_VERSION)', async () => {
    const t = await target()
    expect(await refusal(restoreInto(t, archive('newer.tar.gz')))).to.equal('BACKUP_FROM_NEWER_VERSION')
    expect(await refusal(restoreInto(t, archive('newer.tar.gz'), { force: true }))).to.equal('BACKUP_FROM_NEWER_VERSION')
    expect(await hasAnySchema(t)).to.equal(false)
  })

  it('an archive of another version: BACKUP_VERSION_MISMATCH; with --force it is restored, then migrated forward; its newer schema is then refused by the older code', async () => {
    const t = await target(V2)
    const refused = await cli(['restore', archive('old.tar.gz')], t.env)
    expect(refused.code).to.equal(1)
    expect(refused.stderr).to.match(/^portcullis: BACKUP_VERSION_MISMATCH: The archive was made by version 0\.0\.9 and this is [\d.]+: .*--force/)
    expect(await hasAnySchema(t)).to.equal(false)
    const forced = await cli(['restore', archive('old.tar.gz'), '--force'], t.env)
    expect(forced.code, forced.stdout + forced.stderr).to.equal(0)
    // The v2 migration ran on the restored v1 rows.
    expect(await query(t, 'SELECT name, label FROM backup_probe ORDER BY id')).to.deep.equal([
      { name: 'one', label: 'migrated one' }, { name: 'two', label: 'migrated two' }, { name: 'three', label: 'migrated three' },
    ])
    expect((await query(t, 'SELECT name FROM knex_migrations_backup_probe ORDER BY id')).map((r: { name: string }) => r.name)).to.deep.equal(['0001_backup_probe', '0002_backup_probe_label'])
    // Backed up on v2, that installation cannot go back into v1 code.
    const r = await cli(['backup', archive('v2.tar.gz')], t.env)
    expect(r.code, r.stderr).to.equal(0)
    const v1 = await target(V1)
    expect(await refusal(restoreInto(v1, archive('v2.tar.gz'), { force: true }))).to.equal('BACKUP_FROM_NEWER_VERSION')
    // And a database a newer version already set up does not take an older archive.
    const newer = await target(V2)
    expect((await cli(['backup', path.join(newer.dataDir, 'first.tar.gz')], newer.env)).code).to.equal(0)
    expect(await refusal(restoreInto(newer, archive('old.tar.gz'), { force: true }))).to.equal('BACKUP_TARGET_SCHEMA_NEWER')
  })
})

/** gzip's magic number, then nothing a gzip reader accepts. */
const writeGarbage = (file: string) => writeFileSync(file, Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0]), randomBytes(2000)]))
