/**
 * DATA_DIR is private to the service user: started under a permissive umask
 * (022), the app leaves every directory 0700 and every file 0600 (the embedded
 * database, master.key, node_id, deploy releases), puts the process umask
 * back when it stops, and repairs what was opened up meanwhile at the next
 * start, without following symbolic links.
 */
import { chmodSync, lstatSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { expect } from 'chai'
import { startTestApp, type TestApp, testEngines } from '../kit/app.js'

const PLUGINS = ['./examples/greetings-plugin']

/** Every path under `root` (root included) that is not a symbolic link, with its permission bits. */
function modes(root: string): { path: string; dir: boolean; mode: number }[] {
  const out: { path: string; dir: boolean; mode: number }[] = []
  const walk = (p: string) => {
    const s = lstatSync(p)
    if (s.isSymbolicLink()) return
    out.push({ path: path.relative(root, p) || '.', dir: s.isDirectory(), mode: s.mode & 0o7777 })
    if (s.isDirectory()) for (const n of readdirSync(p)) walk(path.join(p, n))
  }
  walk(root)
  return out
}

const tooOpen = (root: string, o: { files: boolean }) =>
  modes(root)
    .filter((m) => (m.dir ? m.mode !== 0o700 : o.files && m.mode !== 0o600))
    .map((m) => `${m.path} ${m.mode.toString(8)}`)

const currentUmask = () => {
  const u = process.umask(0o022)
  process.umask(u)
  return u
}

for (const engine of testEngines()) {
  describe(`${engine}: DATA_DIR is private to the service user`, function () {
    this.timeout(120_000)
    let saved: number
    let dataDir: string
    let outside: string
    let t: TestApp | undefined
    before(() => {
      saved = process.umask(0o022)
      dataDir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-dd-'))
      outside = mkdtempSync(path.join(os.tmpdir(), 'portcullis-dd-out-'))
    })
    after(async () => {
      await t?.stop().catch(() => undefined)
      process.umask(saved)
      rmSync(dataDir, { recursive: true, force: true })
      rmSync(outside, { recursive: true, force: true })
    })

    // The embedded engine generates its own master.key in DATA_DIR; a real PostgreSQL is given one.
    const start = () => startTestApp({ engine, plugins: PLUGINS, dataDir, env: engine === 'embedded' ? { MASTER_KEY: '' } : {} })

    it('creates every directory 0700 and every file 0600 under a 022 umask, and gives the umask back at stop', async () => {
      t = await start()
      expect((await t.admin('POST', '/api/v1/greetings', { body: { name: 'dd', message: 'Hello' } })).status).to.equal(201)
      expect((await t.admin('POST', '/api/v1/deploys', { body: { daemon: 'motd' } })).status).to.equal(201)
      expect(tooOpen(dataDir, { files: false }), 'directories while running').to.deep.equal([])
      await t.stop()
      t = undefined
      expect(currentUmask()).to.equal(0o022)

      const all = modes(dataDir).map((m) => m.path)
      expect(all).to.include.members(['node_id', 'releases', path.join('releases', 'motd')])
      if (engine === 'embedded') expect(all).to.include.members(['master.key', 'pgdata', path.join('pgdata', 'PG_VERSION')])
      expect(all.some((p) => p.endsWith('motd.txt')), 'a release file').to.equal(true)
      expect(tooOpen(dataDir, { files: true })).to.deep.equal([])
    })

    it('repairs files and directories opened up meanwhile at the next start, leaving symbolic links and their targets alone', async () => {
      const opened = ['.', 'node_id', 'releases', path.join('releases', 'motd')]
      if (engine === 'embedded') opened.push('master.key', 'pgdata', path.join('pgdata', 'PG_VERSION'), path.join('pgdata', 'base'))
      const release = modes(dataDir).find((m) => m.path.endsWith('motd.txt'))!.path
      opened.push(release)
      for (const p of opened) chmodSync(path.join(dataDir, p), modes(path.join(dataDir, p))[0].dir ? 0o755 : 0o644)
      const target = path.join(outside, 'shared.txt')
      writeFileSync(target, 'not ours to change\n')
      chmodSync(target, 0o644)
      symlinkSync(target, path.join(dataDir, 'link-to-outside'))
      expect(tooOpen(dataDir, { files: true })).to.include.members([`node_id 644`, `. 755`])

      t = await start()
      expect(tooOpen(dataDir, { files: true }), 'repaired at start').to.deep.equal([])
      expect(lstatSync(target).mode & 0o777, 'a link target outside DATA_DIR').to.equal(0o644)
      expect(lstatSync(path.join(dataDir, 'link-to-outside')).isSymbolicLink()).to.equal(true)
      expect((await t.req('GET', '/ready')).status).to.equal(200)
      await t.stop()
      t = undefined
      expect(tooOpen(dataDir, { files: true })).to.deep.equal([])
    })
  })
}
