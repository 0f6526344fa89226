/**
 * The fetch bench's devices, in a process of their own (their SSH crypto must not be counted in the
 * collector's): FARM_DEVICES fake switches (test/kit/fake-ssh.ts, a Cisco-like CLI), each on its own
 * loopback address 127.31.x.y and the port FARM_PORT, printing about FARM_BYTES of configuration with
 * FARM_LATENCY_MS before each answer. One shared host key. Reports {addresses, port, hostKeySha256,
 * username, password} over IPC once all listen; runs until its parent goes.
 */
import { generateHostKey, sampleConfig, startFakeSwitch, type FakeSwitch } from '../../test/kit/fake-ssh.js'

const n = Number(process.env.FARM_DEVICES ?? 1000)
const port = Number(process.env.FARM_PORT ?? 2222)
const bytes = Number(process.env.FARM_BYTES ?? 30_000)
const latencyMs = Number(process.env.FARM_LATENCY_MS ?? 100)

export const farmAddress = (i: number) => `127.31.${((i + 1) >> 8) & 255}.${(i + 1) & 255}`

const key = generateHostKey()
const switches: FakeSwitch[] = []
for (let i = 0; i < n; i++) {
  const config = sampleConfig(bytes, `sw${i}`)
  switches.push(await startFakeSwitch({ host: farmAddress(i), port, hostKey: key.privateKey, username: 'bench', password: 'bench-pw', config, latencyMs }))
}
process.send!({ addresses: switches.map((s) => s.host), port, hostKeySha256: key.sha256, username: 'bench', password: 'bench-pw' })
process.on('disconnect', () => process.exit(0))
