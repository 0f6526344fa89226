/**
 * `portcullis tacacs-probe`: authenticate, authorize (the exec shell, and a
 * command if given) and account against a TACACS+ server, as a device would.
 * Talks to the daemon only: no database, so the command names no deps.
 */
import { parseArgs } from 'node:util'
import { cliInteger, cliRequired, CliUsageError, defineCliCommand } from '../../../sdk/index.js'
import { TacacsClient } from '../client/index.js'

export const tacacsProbeCommand = defineCliCommand({
  name: 'tacacs-probe',
  summary: 'Authenticate, authorize and account one user against a TACACS+ server: PASS or FAIL',
  usage: '--host H [--port 49] --key K --user U --password P [--command "show run"] [--account start|stop] [--pap] [--rem-addr A] [--timeout MS]',
  async run(args, io) {
    const { values: v } = parseArgs({
      args,
      options: {
        host: { type: 'string' }, port: { type: 'string' }, key: { type: 'string' }, user: { type: 'string' }, password: { type: 'string' },
        command: { type: 'string' }, account: { type: 'string' }, pap: { type: 'boolean' }, 'rem-addr': { type: 'string' }, timeout: { type: 'string' },
      },
    })
    const host = cliRequired(v.host, 'host')
    const user = cliRequired(v.user, 'user')
    const password = cliRequired(v.password, 'password')
    const key = v.key ?? ''
    const port = cliInteger(v.port, 'port', 1, 65535, 49)
    const account = v.account
    if (account !== undefined && account !== 'start' && account !== 'stop') throw new CliUsageError('--account is start or stop')
    const client = new TacacsClient({ host, port, key, timeoutMs: cliInteger(v.timeout, 'timeout', 1, 600_000, 5000) })
    const s = { remAddr: v['rem-addr'] ?? '', port: 'vty0' }
    const msg = (m: string) => (m ? `  "${m}"` : '')
    io.out(`TACACS+ ${host}:${port}  user ${user}${key ? '' : '  (no key: unencrypted)'}`)
    let ok = true
    const a = v.pap ? await client.authenticatePap(user, password, s) : await client.authenticateAscii(user, password, s)
    io.out(`  authentication (${v.pap ? 'pap' : 'ascii'} login): ${a.pass ? 'PASS' : 'FAIL'} (${a.status})${msg(a.serverMsg)}`)
    ok &&= a.pass
    const exec = await client.authorize(user, { ...s, cmd: '' })
    io.out(`  authorization exec shell:      ${exec.permitted ? 'PASS' : 'FAIL'} (${exec.status})${msg(exec.serverMsg)}`)
    for (const av of exec.args) io.out(`      ${av}`)
    let words: string[] = []
    if (v.command) {
      // As a NAS sends it: cmd=<first word>, each further word as cmd-arg=, then cmd-arg=<cr>.
      words = v.command.trim().split(/\s+/)
      const c = await client.authorize(user, { ...s, cmd: words[0], args: [...words.slice(1), '<cr>'] })
      io.out(`  authorization "${v.command}": ${c.permitted ? 'PASS' : 'FAIL'} (${c.status})${msg(c.serverMsg)}`)
      for (const av of c.args) io.out(`      ${av}`)
      ok &&= c.permitted
    }
    if (account) {
      const args = [
        `task_id=${process.pid}`, 'service=shell',
        ...(words.length ? [`cmd=${[...words, '<cr>'].join(' ')}`] : []),
        ...(account === 'stop' ? ['elapsed_time=0'] : [`start_time=${Math.floor(Date.now() / 1000)}`]),
      ]
      const r = await client.account(user, { ...s, flags: account, args })
      io.out(`  accounting ${account}:      ${r.ok ? 'SUCCESS' : 'ERROR'} (${r.status})${msg(r.serverMsg)}`)
      ok &&= r.ok
    }
    io.out(ok ? 'PASS' : 'FAIL')
    return ok ? 0 : 1
  },
})
