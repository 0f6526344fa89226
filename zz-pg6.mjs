import { mkdtempSync, cpSync, appendFileSync, rmSync } from 'node:fs'
import { execFileSync } from 'node:child_process'
import os from 'node:os'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
const ms = (c) => (c.user + c.system) / 1000
const tpl = process.argv[2]
const res = {}
const conf = { base: '', sb16: 'shared_buffers = 16MB\n', all: 'shared_buffers = 16MB\nfull_page_writes = off\nwal_level = minimal\nmax_wal_senders = 0\nsynchronous_commit = off\n' }
for (let i = 0; i < 6; i++) for (const [k, c] of Object.entries(conf)) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'zz-'))
  execFileSync('cp', ['-a', tpl, dir + '/d'])
  if (c) appendFileSync(dir + '/d/postgresql.conf', '\n' + c)
  const c0 = process.cpuUsage(); const t0 = performance.now()
  const db = new PGlite(dir + '/d', { extensions: { pg_trgm } })
  await db.waitReady
  const t1 = performance.now(); const c1 = process.cpuUsage(c0)
  for (let j = 0; j < 200; j++) await db.query('insert into audit_log(action, actor, result) values ($1, $2, $3)', ['x', 'y', 'success']).catch(() => {})
  for (let j = 0; j < 50; j++) await db.query('select * from users order by username limit 50')
  const t2 = performance.now(); const c2 = process.cpuUsage(c0)
  await db.close()
  const t3 = performance.now(); const c3 = process.cpuUsage(c0)
  rmSync(dir, { recursive: true, force: true })
  ;(res[k] ??= []).push([ms(c1), ms(c2) - ms(c1), ms(c3) - ms(c2)])
}
for (const [k, v] of Object.entries(res)) { const avg = (i) => Math.round(v.reduce((a, x) => a + x[i], 0) / v.length); console.log(k, 'open cpu', avg(0), 'work cpu', avg(1), 'close cpu', avg(2)) }
