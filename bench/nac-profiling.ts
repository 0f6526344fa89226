/**
 * NAC profiling (issue 16): 100,000 endpoints profiled from accounting records.
 *
 * Data: BENCH_PROFILING_ENDPOINTS (default 100,000) distinct MACs (under eight real OUIs), one
 * accounting Start line each in the FreeRADIUS linelog format (sdk/logs/freeradius.ts, built by
 * plugins/nac/test/radius-lines.ts), carrying what a Cisco switch with device-sensor sends:
 * NAS-Port-Id, NAS-Port-Type and two or three Cisco-AVPair TLVs (DHCP class identifier, parameter
 * list and host name; CDP platform or LLDP system description or the HTTP user agent, by device
 * kind), so that the default rules type most of them (Windows, Apple, Android, Linux, printers,
 * IP phones) and a tenth stay unknown.
 *
 * Measured, in one run, on the same file through the aaa-logs ingester (createIngester, pollOnce,
 * default batch size, a fresh node id each time so every run stores every line):
 * - bare: the ingest alone, with no record listener (rows, checkpoint, COPY on PostgreSQL);
 * - profiled: the same ingest with the nac plugin's record listener (services/observe.ts): per
 *   batch the sightings (endpoints created), the evidence, the rules' verdicts, the placement, the
 *   sessions, in one transaction after the log rows committed.
 * Bare runs before and after the profiled one; the bound is their mean. Figure: records per second
 * profiled, and its ratio to the bare ingest (1.0: profiling costs nothing over ingesting).
 *
 * Figures only. Run: node --import tsx bench/nac-profiling.ts (BENCH_PROFILING_ENDPOINTS).
 */
import { randomUUID } from 'node:crypto'
import { createWriteStream, mkdirSync, symlinkSync } from 'node:fs'
import path from 'node:path'
import { pino } from 'pino'
import type { Logger } from '../sdk/index.js'
import { createIngester } from '../plugins/aaa-logs/ingest/index.js'
import { RecordListeners } from '../plugins/aaa-logs/ingest/listeners.js'
import { tableSettings } from '../plugins/aaa-logs/test/standalone-deps.js'
import { AuthorizationEvents } from '../plugins/nac/services/events.js'
import { createRecordObserver } from '../plugins/nac/services/observe.js'
import { acctLine, ACCT_FILE, sensorTlv } from '../plugins/nac/test/radius-lines.js'
import { startBenchApp } from './lib/bench-app.js'
import { envInt, loadAvg, machine, runAsMain, tempDir, removeDir } from './lib.js'

const OUIS = ['00000c', '001b63', 'b827eb', 'f4f5d8', '3c5ab4', '005056', '00163e', 'a4c361']
const KINDS: { dhcp: string; params: number[]; extra?: Buffer }[] = [
  { dhcp: 'MSFT 5.0', params: [1, 3, 6, 15, 31, 33, 43, 44, 46, 47, 119, 121, 249, 252], extra: sensorTlv('http-tlv', 2, 'Mozilla/5.0 (Windows NT 10.0; Win64; x64)') },
  { dhcp: 'android-dhcp-13', params: [1, 3, 6, 15, 26, 28, 51, 58, 59, 43, 114] },
  { dhcp: 'dhcpcd-9.4.1:Linux-6.1.0:x86_64', params: [1, 121, 33, 3, 6, 28, 51, 58, 59] },
  { dhcp: 'Hewlett-Packard JetDirect', params: [1, 3, 6, 15, 44, 47], extra: sensorTlv('lldp-tlv', 6, 'HP LaserJet printer') },
  { dhcp: 'Cisco Systems, Inc. IP Phone CP-8845', params: [1, 3, 6, 15, 66, 150], extra: sensorTlv('cdp-tlv', 6, 'Cisco IP Phone 8845') },
  { dhcp: 'iPhone', params: [1, 121, 3, 6, 15, 108, 114, 119, 252], extra: sensorTlv('http-tlv', 2, 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X)') },
  { dhcp: 'udhcp 1.36.1', params: [1, 3, 6, 12, 15, 28, 42] },
  { dhcp: 'MSFT 5.0', params: [1, 3, 6, 15, 31, 33, 43, 44, 46, 47, 119, 121, 249, 252] },
  { dhcp: 'dhcpcd-10.0.2', params: [1, 3, 6, 28] },
  { dhcp: 'unknown-embedded', params: [1, 3] },
]

async function writeLines(file: string, n: number, ts: number): Promise<void> {
  const w = createWriteStream(file)
  for (let i = 0; i < n; i++) {
    const oui = OUIS[i % OUIS.length]
    const mac = `${oui}${(i >> 3).toString(16).padStart(6, '0')}`.match(/../g)!.join(':')
    const k = KINDS[i % KINDS.length]
    const avpairs = [sensorTlv('dhcp-option', 60, k.dhcp), sensorTlv('dhcp-option', 55, k.params), sensorTlv('dhcp-option', 12, `host-${i}`), ...(k.extra ? [k.extra] : [])]
    const line = acctLine({ ts: ts + (i % 3600), mac, status: 'Start', sid: `s${i}`, nas: `10.30.${(i >> 8) & 0xff}.${(i % 250) + 1}`, portId: `GigabitEthernet1/0/${i % 48}`, portType: 'Ethernet', avpairs })
    if (!w.write(line)) await new Promise<void>((r) => w.once('drain', () => r()))
  }
  await new Promise<void>((r) => w.end(() => r()))
}

export interface ProfilingBench {
  endpoints: number
  bare_records_per_s: number
  profiled_records_per_s: number
  ratio: number
  typed: number
  sessions: number
}

export async function runNacProfiling(o: { printMachine?: boolean } = {}): Promise<ProfilingBench> {
  if (o.printMachine !== false) console.log(machine().line)
  const N = envInt('BENCH_PROFILING_ENDPOINTS', 100_000)
  const b = await startBenchApp('nacprof')
  const knex = b.app.db.knex
  const silent = pino({ level: 'silent' }) as unknown as Logger
  const root = tempDir('portcullis-bench-nacprof-')
  try {
    const ts = Math.floor(Date.now() / 1000) - 3600
    mkdirSync(path.join(root, 'src'))
    const src = path.join(root, 'src', ACCT_FILE)
    await writeLines(src, N, ts)
    // Each run reads the same file from its own folder (a symlink): a fresh checkpoint.
    let runNo = 0
    const run = async (withListener: boolean): Promise<number> => {
      const dir = path.join(root, `run${runNo++}`)
      mkdirSync(dir)
      symlinkSync(src, path.join(dir, ACCT_FILE))
      const listeners = new RecordListeners(silent)
      if (withListener) listeners.register('nac', createRecordObserver(knex, new AuthorizationEvents(silent)).listener)
      const ing = createIngester({
        database: b.app.db,
        settings: tableSettings(knex, { 'aaa-logs.ingest_enabled': true }),
        logFolders: () => [{ daemon: 'freeradius', directory: dir }],
        logger: silent,
        cluster: { nodeId: randomUUID(), role: 'primary' },
        loadExclusions: async () => ({ match: () => null }),
        listeners,
      })
      const t0 = performance.now()
      await ing.pollOnce()
      const ms = performance.now() - t0
      if (ing.core.stats.stored !== N) throw new Error(`stored ${ing.core.stats.stored} of ${N}`)
      return ms
    }
    const bare1 = await run(false)
    const profiled = await run(true)
    const bare2 = await run(false)
    const bare = (bare1 + bare2) / 2
    const one = async (sql: string) => ((await knex.raw(sql)) as { rows: { n: number }[] }).rows[0].n
    const typed = await one('SELECT count(*)::int AS n FROM nac_endpoints WHERE device_type IS NOT NULL')
    const sessions = await one('SELECT count(*)::int AS n FROM nac_sessions')
    const byType = ((await knex.raw('SELECT device_type, count(*)::int AS n FROM nac_endpoints GROUP BY device_type ORDER BY device_type')) as { rows: { device_type: string | null; n: number }[] }).rows
    const bareRate = N / (bare / 1000)
    const profRate = N / (profiled / 1000)
    console.log(`NAC profiling of ${N.toLocaleString('en')} endpoints from accounting (one Start line each, device-sensor AVPairs):`)
    console.log(`  bare ingest (no listener): ${Math.round(bareRate).toLocaleString('en')} records/s (runs ${Math.round(bare1)} ms and ${Math.round(bare2)} ms)`)
    console.log(`  ingest + profiling (sightings, evidence, rules, placement, sessions): ${Math.round(profRate).toLocaleString('en')} records/s (${Math.round(profiled)} ms)`)
    console.log(`  ratio to the bare ingest: ${(profRate / bareRate).toFixed(2)}`)
    console.log(`  endpoints typed: ${typed.toLocaleString('en')} of ${N.toLocaleString('en')}; sessions: ${sessions.toLocaleString('en')}`)
    console.log(`  by type: ${byType.map((r) => `${r.device_type ?? 'unknown'} ${r.n}`).join(', ')}`)
    console.log(`  load average at the end: ${loadAvg()}`)
    return { endpoints: N, bare_records_per_s: bareRate, profiled_records_per_s: profRate, ratio: profRate / bareRate, typed, sessions }
  } finally {
    removeDir(root)
    await b.stop()
  }
}

runAsMain(import.meta.url, () => runNacProfiling())
