import { startTestApp } from './kit/app.js'
for (let i = 0; i < 5; i++) {
  const c0 = process.cpuUsage(); const t0 = performance.now()
  const a = await startTestApp({ engine: 'embedded', edition: 'community' })
  const t1 = performance.now(); const c1 = process.cpuUsage(c0)
  await a.stop()
  const c2 = process.cpuUsage(c0)
  console.log('boot', Math.round(t1 - t0), 'cpu', Math.round((c1.user + c1.system) / 1000), 'stop cpu', Math.round((c2.user + c2.system - c1.user - c1.system) / 1000))
}
process.exit(0)
