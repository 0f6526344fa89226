/**
 * Where the rendered FreeRADIUS tree makes the daemon write and look: its own
 * log and run folders (server options radius.log_directory, radius.run_directory,
 * defaults in the platform's data folder), and its modules from
 * radius.freeradius_libdir or the common packages' folders, never one
 * distribution's paths alone.
 */
import path from 'node:path'
import { expect } from 'chai'
import { runsOn, startTestApp } from '../../../test/kit/app.js'
import { FREERADIUS_LIBDIRS } from '../renderers/config.js'
import { renderFreeradius } from './e2e-support.js'

const conf = async (options?: Record<string, unknown>) => {
  const t = await startTestApp({ plugins: ['inventory', 'radius'], options })
  try {
    return { dataDir: t.dataDir, radiusd: (await renderFreeradius(t)).find((f) => f.path === 'radiusd.conf')!.content }
  } finally {
    await t.stop()
  }
}

// The rendered tree's folders and the refusals of the options at start are the same whatever the engine: once per `npm test`, in its PostgreSQL run (docs/testing.md).
;(runsOn('postgres') ? describe : describe.skip)('radius: the FreeRADIUS tree\'s own folders and libdir', () => {
  it('defaults to logs/radius and run/freeradius in the data folder, and the common packages\' module folders', async () => {
    const { dataDir, radiusd } = await conf()
    expect(radiusd).to.include(`logdir = "${path.join(dataDir, 'logs', 'radius')}"`)
    expect(radiusd).to.include(`run_dir = "${path.join(dataDir, 'run', 'freeradius')}"`).and.include('pidfile = ${run_dir}/freeradius.pid')
    expect(radiusd).to.include(`libdir = "${FREERADIUS_LIBDIRS}"`)
    expect(FREERADIUS_LIBDIRS.split(':')).to.include.members(['/usr/lib/freeradius', '/usr/lib64/freeradius'])
  })

  it('follows the server options', async () => {
    const { radiusd } = await conf({ 'radius.log_directory': '/srv/aaa/logs', 'radius.run_directory': '/srv/aaa/run', 'radius.freeradius_libdir': '/opt/freeradius/lib:/usr/lib64/freeradius' })
    expect(radiusd).to.include('logdir = "/srv/aaa/logs"').and.include('file = "/srv/aaa/logs/radius.log"')
    expect(radiusd).to.include('run_dir = "/srv/aaa/run"')
    expect(radiusd).to.include('libdir = "/opt/freeradius/lib:/usr/lib64/freeradius"')
  })

  it('refuses a relative or expandable path in the options at start', async function () {
    // Four server starts: on the embedded engine beside a busy CI, over 30 s (a limit, not a timing assertion).
    this.timeout(180_000)
    for (const options of [{ 'radius.run_directory': 'run/freeradius' }, { 'radius.run_directory': '/run/${x}' }, { 'radius.freeradius_libdir': '/usr/lib:lib' }, { 'radius.freeradius_libdir': '/usr/lib/%{x}' }]) {
      let failed: unknown = null
      await startTestApp({ plugins: ['inventory', 'radius'], options }).then((t) => t.stop(), (e: unknown) => (failed = e))
      expect(String(failed), JSON.stringify(options)).to.match(/radius\.(run_directory|freeradius_libdir)/)
    }
  })
})
