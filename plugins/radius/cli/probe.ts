/**
 * `portcullis radius-probe`: one Access-Request to a RADIUS server, as a NAS
 * would send it (PAP or MS-CHAPv2), and what came back. Talks to the daemon
 * only: no database, so the command names no deps.
 */
import { parseArgs } from 'node:util'
import { cliInteger, cliRequired, CliUsageError, defineCliCommand } from '../../../sdk/index.js'
import { radiusProbe } from '../client/radius.js'

export const radiusProbeCommand = defineCliCommand({
  name: 'radius-probe',
  summary: 'Send one Access-Request (PAP or MS-CHAPv2) to a RADIUS server and show the answer: PASS or FAIL',
  usage: '--host H [--port 1812] --secret S --user U --password P [--method pap|mschapv2] [--timeout MS]',
  async run(args, io) {
    const { values: v } = parseArgs({
      args,
      options: {
        host: { type: 'string' }, port: { type: 'string' }, secret: { type: 'string' }, user: { type: 'string' }, password: { type: 'string' },
        method: { type: 'string' }, timeout: { type: 'string' },
      },
    })
    const method = v.method ?? 'pap'
    if (method !== 'pap' && method !== 'mschapv2') throw new CliUsageError('--method is pap or mschapv2')
    const host = cliRequired(v.host, 'host')
    const port = cliInteger(v.port, 'port', 1, 65535, 1812)
    const user = cliRequired(v.user, 'user')
    const r = await radiusProbe({
      host, port, user, method,
      secret: cliRequired(v.secret, 'secret'),
      password: cliRequired(v.password, 'password'),
      timeoutMs: cliInteger(v.timeout, 'timeout', 1, 600_000, 3000),
    })
    io.out(`RADIUS ${host}:${port}  user ${user}  method ${method}`)
    io.out(`  ${r.code} in ${r.rttMs} ms  (response authenticator ${r.authenticatorOk ? 'OK' : 'WRONG: the shared secret differs'})${r.serverProofOk === null ? '' : `  MS-CHAP2-Success ${r.serverProofOk ? 'verified' : 'NOT verified'}`}`)
    for (const a of r.attributes) io.out(`    ${a.name} = ${JSON.stringify(a.value)}`)
    const ok = r.code === 'Access-Accept' && r.authenticatorOk && r.serverProofOk !== false
    io.out(ok ? 'PASS' : 'FAIL')
    return ok ? 0 : 1
  },
})
