/**
 * A free TCP port for a server a test starts itself (a daemon, a node in another process, a cluster).
 *
 * The port is chosen below the kernel's ephemeral range (ip_local_port_range, 32768 and up by default),
 * then checked by listening on it. A port asked of the kernel with listen(0) comes from that range, and
 * `npm test` runs both engines side by side: between this process releasing such a port and its daemon
 * binding it, the other run's next test app (PORT=0) could be given the very same port. A test then spoke
 * to the wrong server (a test app's `{"status":"ok"}` where the node under test answers "schema waiting")
 * and its own server could not bind. Below the range, only another explicit choice can meet it.
 */
import { randomInt } from 'node:crypto'
import { readFileSync } from 'node:fs'
import net from 'node:net'

function ephemeralStart(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0])
    return Number.isInteger(low) && low > 2048 ? low : 32768
  } catch {
    return 32768
  }
}

const canListen = (port: number, host: string): Promise<boolean> =>
  new Promise((resolve) => {
    const s = net.createServer()
    s.once('error', () => resolve(false))
    s.listen(port, host, () => s.close(() => resolve(true)))
  })

/** The kernel's choice, as a last resort. */
const anyPort = (host: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = net.createServer()
    s.once('error', reject)
    s.listen(0, host, () => {
      const port = (s.address() as net.AddressInfo).port
      s.close(() => resolve(port))
    })
  })

/** A TCP port on `host` that nothing listens on now, outside the range the kernel gives listen(0). */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const high = ephemeralStart()
  const low = Math.max(1024, high - 12_000)
  for (let i = 0; i < 50; i++) {
    const port = randomInt(low, high)
    if (await canListen(port, host)) return port
  }
  return anyPort(host)
}
