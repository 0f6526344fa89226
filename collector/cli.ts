/**
 * `portcullis collector …` (kernel/cli.ts hands it over before reading any server configuration: a
 * collector near the devices has no database and no master key) and `npm run collector -- …`:
 *
 *   enroll --core URL --token T [--name N] [--state DIR] [--ca-file F]
 *   run [--concurrency N] [--state DIR] [--ca-file F]     until SIGTERM; the first drains jobs for 10 s
 *   status [--state DIR] [--ca-file F]                     the core's view: state, version, contract
 *
 * Exit status: 0 done, 1 failed (or, for status, not active or not matching), 2 wrong arguments.
 */
import { hostname } from 'node:os'
import { parseArgs } from 'node:util'
import { pino } from 'pino'
import { COLLECTOR_CONTRACT } from '../sdk/collector-protocol.js'
import { createCollector, enrollCollector } from './app.js'
import { caFile, concurrency, logLevel, stateDir } from './config.js'
import { CoreRefusal } from './core-client.js'
import { readState } from './state.js'
import { COLLECTOR_RELEASE } from './version.js'

export interface CollectorIo {
  out(line?: string): void
  err(text: string): void
  readonly env: Readonly<Record<string, string | undefined>>
}

export const USAGE = [
  'usage: portcullis collector <command> [options]',
  '  enroll --core URL --token T [--name N] [--state DIR] [--ca-file F]   enroll with a one-time token from the console',
  '  run [--concurrency N] [--state DIR] [--ca-file F]                    fetch configurations until stopped (SIGTERM drains for 10 s)',
  '  status [--state DIR] [--ca-file F]                                   what the core says of this collector',
  'The token may also come from PORTCULLIS_COLLECTOR_TOKEN; the state folder from PORTCULLIS_COLLECTOR_STATE (./var/collector).',
].join('\n')

class UsageError extends Error {}

const OPTIONS = {
  enroll: { core: { type: 'string' }, token: { type: 'string' }, name: { type: 'string' }, state: { type: 'string' }, 'ca-file': { type: 'string' } },
  run: { concurrency: { type: 'string' }, state: { type: 'string' }, 'ca-file': { type: 'string' } },
  status: { state: { type: 'string' }, 'ca-file': { type: 'string' } },
} as const

type Values = Record<string, string | undefined>

function parse(command: keyof typeof OPTIONS, args: string[]): Values {
  try {
    return parseArgs({ args, options: OPTIONS[command], strict: true, allowPositionals: false }).values as Values
  } catch (err) {
    throw new UsageError((err as Error).message)
  }
}

const refusal = (err: unknown) => (err instanceof CoreRefusal ? `the core refused: ${err.code ?? `HTTP ${err.status}`}: ${err.detail}` : (err as Error).message)

async function enroll(v: Values, io: CollectorIo): Promise<number> {
  const core = v.core
  const token = v.token ?? io.env.PORTCULLIS_COLLECTOR_TOKEN
  if (!core) throw new UsageError('--core URL is required (the core\'s https:// address)')
  if (!token) throw new UsageError('--token is required (the one-time token the console showed)')
  const dir = stateDir(v.state, io.env)
  try {
    const { answer, file } = await enrollCollector({ coreUrl: core, token, name: v.name ?? hostname(), stateDir: dir, caFile: caFile(v['ca-file'], io.env) })
    io.out(`enrolled as "${answer.name}" (${answer.collector_id}) with the core ${answer.core_version}; keys in ${file}`)
    if (answer.core_version !== COLLECTOR_RELEASE) io.out(`note: this collector runs release ${COLLECTOR_RELEASE}, the core ${answer.core_version}: run the core's release`)
    return 0
  } catch (err) {
    io.err(`portcullis collector: enrollment failed: ${refusal(err)}\n`)
    return 1
  }
}

async function run(v: Values, io: CollectorIo): Promise<number> {
  const n = concurrency(v.concurrency, io.env)
  if (n === null) throw new UsageError('--concurrency is a whole number from 1 to 64')
  const log = pino({ level: logLevel(io.env), base: { service: 'portcullis-collector' }, timestamp: pino.stdTimeFunctions.isoTime })
  const dir = stateDir(v.state, io.env)
  let collector
  try {
    collector = createCollector({ stateDir: dir, concurrency: n, log, ...(v['ca-file'] || io.env.PORTCULLIS_COLLECTOR_CA_FILE ? { caFile: caFile(v['ca-file'], io.env) } : {}) })
  } catch (err) {
    io.err(`portcullis collector: ${(err as Error).message}\n`)
    return 1
  }
  log.info({ collector_id: collector.id, name: collector.name, core: collector.coreUrl, release: COLLECTOR_RELEASE, contract: COLLECTOR_CONTRACT, concurrency: n }, 'collector starting')
  let signals = 0
  const onSignal = (signal: NodeJS.Signals) => {
    if (++signals > 1) process.exit(130)
    log.info({ signal }, 'stopping: running jobs get 10 s to finish (again to force)')
    void collector.stop(10_000)
  }
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
  try {
    await collector.run()
  } finally {
    process.off('SIGTERM', onSignal)
    process.off('SIGINT', onSignal)
  }
  log.info(collector.pool.counts, 'collector stopped')
  return 0
}

async function status(v: Values, io: CollectorIo): Promise<number> {
  const dir = stateDir(v.state, io.env)
  let collector
  try {
    if (!readState(dir)) throw new Error(`no collector is enrolled in ${dir}`)
    collector = createCollector({ stateDir: dir, concurrency: 1, ...(v['ca-file'] ? { caFile: v['ca-file'] } : {}) })
  } catch (err) {
    io.err(`portcullis collector: ${(err as Error).message}\n`)
    return 1
  }
  io.out(`collector   ${collector.name} (${collector.id})`)
  io.out(`release     ${COLLECTOR_RELEASE}, contract ${COLLECTOR_CONTRACT}`)
  try {
    const s = await collector.status()
    const skew = collector.client.clockSkewSeconds
    io.out(`core        ${collector.coreUrl}, version ${s.core_version}`)
    io.out(`state       ${s.state}`)
    io.out(`contract    ${s.contract_state}`)
    if (skew !== null) io.out(`clock skew  ${skew >= 0 ? '+' : ''}${skew} s (signatures allow ±60 s)`)
    return s.state === 'active' && s.contract_state === 'match' ? 0 : 1
  } catch (err) {
    io.out(`core        ${collector.coreUrl}${collector.client.coreVersion ? `, version ${collector.client.coreVersion}` : ''}`)
    io.err(`portcullis collector: ${refusal(err)}\n`)
    return 1
  }
}

/** The `collector` command: returns the exit status. */
export async function runCollectorCli(argv: string[], io: CollectorIo): Promise<number> {
  const [command, ...args] = argv
  try {
    if (!command || command === 'help' || command === '--help' || command === '-h') {
      io.out(USAGE)
      return command ? 0 : 2
    }
    if (command !== 'enroll' && command !== 'run' && command !== 'status') throw new UsageError(`unknown collector command "${command}"`)
    if (args.includes('--help') || args.includes('-h')) {
      io.out(USAGE)
      return 0
    }
    const v = parse(command, args)
    if (command === 'enroll') return await enroll(v, io)
    if (command === 'run') return await run(v, io)
    return await status(v, io)
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`portcullis collector: ${err.message}\n${USAGE}\n`)
      return 2
    }
    io.err(`portcullis collector: ${(err as Error).message}\n`)
    return 1
  }
}
