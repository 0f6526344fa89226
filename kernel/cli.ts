#!/usr/bin/env node
/**
 * `portcullis`: the operator's command line. See docs/deploy.md.
 *
 *   portcullis render --out DIR [--daemon D]      render the configuration into DIR/<daemon>/ (nothing activated)
 *   portcullis check DIR --daemon D               run the daemon's own check on a folder
 *   portcullis deploy [--daemon D] [--dry-run] [--comment TEXT]
 *   portcullis tacacs-probe --host H [--port 49] --key K --user U --password P [--command "show run"] [--account start|stop] [--pap]
 *   portcullis radius-probe --host H [--port 1812] --secret S --user U --password P [--method pap|mschapv2]
 *
 * render, check and deploy boot the platform on the configured database
 * (DATABASE_URL, DATA_DIR, MASTER_KEY … as the server reads them) on a
 * loopback port, do their work and stop. The probes talk to a daemon directly.
 * Exit status: 0 success/PASS, 1 failure/FAIL, 2 usage error.
 */
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { startApp, type App } from './app.js'
import { BootError } from './boot-error.js'
import { loadConfig } from './config.js'
import { createTranslator } from './i18n.js'
import { packageJson } from './version.js'
import { isPortcullisError } from '../sdk/index.js'
import { TacacsClient } from '../plugins/tacacs/client/index.js'
import { radiusProbe } from './cli/radius-client.js'
import type { DeployView, DryRunDaemon } from './deploy/service.js'

const USAGE = `usage:
  portcullis render --out DIR [--daemon D]
  portcullis check DIR --daemon D
  portcullis deploy [--daemon D] [--dry-run] [--comment TEXT]
  portcullis tacacs-probe --host H [--port 49] --key K --user U --password P [--command "show run"] [--account start|stop] [--pap] [--rem-addr A]
  portcullis radius-probe --host H [--port 1812] --secret S --user U --password P [--method pap|mschapv2]
render, check and deploy read the server's configuration (DATABASE_URL, DATA_DIR, MASTER_KEY, PLUGINS …).`

class UsageError extends Error {}

const out = (s = '') => process.stdout.write(s + '\n')

async function withApp<T>(fn: (app: App) => Promise<T>): Promise<T> {
  const config = loadConfig({ LOG_LEVEL: 'warn', ...process.env, PORT: '0', HOST: '127.0.0.1' }, { plugins: packageJson().portcullis?.plugins ?? [] })
  const app = await startApp(config)
  try {
    return await fn(app)
  } finally {
    await app.stop()
  }
}

const need = (v: string | undefined, name: string): string => {
  if (v === undefined || v === '') throw new UsageError(`--${name} is required`)
  return v
}

const port = (v: string | undefined, def: number): number => {
  const n = v === undefined ? def : Number(v)
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new UsageError(`--port must be 1-65535`)
  return n
}

const checkWord = (checked: boolean | null, ok = true) => (checked === null ? 'SKIPPED' : ok ? 'PASS' : 'FAIL')

function printDeploy(d: DeployView) {
  out(`${d.daemon}: ${d.status.toUpperCase()}  release ${d.release}  (deploy ${d.id})`)
  out(`  check:  ${checkWord(d.checked)}${d.check_output ? '  ' + d.check_output.split('\n').join('\n          ') : ''}`)
  out(`  reload: ${d.reload_status === null ? 'none configured' : d.reload_status === 'ok' ? 'OK' : 'FAILED'}${d.reload_output ? '  ' + d.reload_output : ''}`)
  for (const f of d.files) out(`  ${f.mode}  ${String(f.size).padStart(8)} B  ${f.sha256.slice(0, 16)}  ${f.path}`)
}

function printDryRun(ds: DryRunDaemon[]) {
  for (const d of ds) {
    const changed = d.changes.filter((c) => c.change !== 'unchanged')
    out(`${d.daemon}: ${changed.length ? `${changed.length} file(s) differ` : 'no change'} from ${d.current_release ?? '(nothing deployed)'}; check ${checkWord(d.checked, d.check_ok)}`)
    if (!d.check_ok) out('  ' + d.check_output.split('\n').join('\n  '))
    for (const c of changed) {
      out(`  ${c.change.toUpperCase()} ${c.path}${c.mode_before !== c.mode_after && c.mode_before && c.mode_after ? ` (mode ${c.mode_before} -> ${c.mode_after})` : ''}`)
      if (c.diff) out(c.diff.replace(/^/gm, '    ').trimEnd())
    }
  }
}

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv
  const { values: v, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      out: { type: 'string' }, daemon: { type: 'string' }, 'dry-run': { type: 'boolean' }, comment: { type: 'string' },
      host: { type: 'string' }, port: { type: 'string' }, key: { type: 'string' }, secret: { type: 'string' }, user: { type: 'string' }, password: { type: 'string' },
      command: { type: 'string' }, account: { type: 'string' }, pap: { type: 'boolean' }, 'rem-addr': { type: 'string' }, method: { type: 'string' }, timeout: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  })
  if (!cmd || v.help || cmd === 'help') {
    out(USAGE)
    return cmd ? 0 : 2
  }
  switch (cmd) {
    case 'render': {
      const dir = path.resolve(need(v.out, 'out'))
      return withApp(async (app) => {
        for (const r of await app.deploys.renderTo(dir, v.daemon)) {
          out(`${r.daemon}: rendered into ${r.dir}`)
          for (const f of r.files) out(`  ${f.mode}  ${String(f.size).padStart(8)} B  ${f.sha256.slice(0, 16)}  ${f.path}`)
        }
        return 0
      })
    }
    case 'check': {
      const dir = positionals[0]
      if (!dir) throw new UsageError('check needs a folder: portcullis check DIR --daemon D')
      const daemon = need(v.daemon, 'daemon')
      return withApp(async (app) => {
        const r = await app.deploys.checkFolder(dir, daemon)
        out(`${daemon} ${path.resolve(dir)}: ${checkWord(r.checked, r.ok)}`)
        if (r.output) out('  ' + r.output.split('\n').join('\n  '))
        return r.ok ? 0 : 1
      })
    }
    case 'deploy':
      return withApp(async (app) => {
        if (v['dry-run']) {
          const ds = await app.deploys.dryRun(v.daemon)
          printDryRun(ds)
          return ds.every((d) => d.check_ok) ? 0 : 1
        }
        const ds = await app.deploys.deploy({ daemon: v.daemon, comment: v.comment ?? `portcullis cli (${os.userInfo().username}@${os.hostname()})`, actor: null })
        for (const d of ds) printDeploy(d)
        return ds.every((d) => d.reload_status !== 'failed') ? 0 : 1
      })
    case 'tacacs-probe': {
      const host = need(v.host, 'host')
      const user = need(v.user, 'user')
      const password = need(v.password, 'password')
      const key = v.key ?? ''
      const p = port(v.port, 49)
      if (v.account && v.account !== 'start' && v.account !== 'stop') throw new UsageError('--account is start or stop')
      const client = new TacacsClient({ host, port: p, key, timeoutMs: Number(v.timeout ?? 5000) })
      const s = { remAddr: v['rem-addr'] ?? '', port: 'vty0' }
      out(`TACACS+ ${host}:${p}  user ${user}${key ? '' : '  (no key: unencrypted)'}`)
      let ok = true
      const a = v.pap ? await client.authenticatePap(user, password, s) : await client.authenticateAscii(user, password, s)
      out(`  authentication (${v.pap ? 'pap' : 'ascii'} login): ${a.pass ? 'PASS' : 'FAIL'} (${a.status})${a.serverMsg ? `  "${a.serverMsg}"` : ''}`)
      ok &&= a.pass
      const exec = await client.authorize(user, { ...s, cmd: '' })
      out(`  authorization exec shell:      ${exec.permitted ? 'PASS' : 'FAIL'} (${exec.status})${exec.serverMsg ? `  "${exec.serverMsg}"` : ''}`)
      for (const av of exec.args) out(`      ${av}`)
      let words: string[] = []
      if (v.command) {
        words = v.command.trim().split(/\s+/)
        const c = await client.authorize(user, { ...s, cmd: words[0], args: [...words.slice(1), '<cr>'] })
        out(`  authorization "${v.command}": ${c.permitted ? 'PASS' : 'FAIL'} (${c.status})${c.serverMsg ? `  "${c.serverMsg}"` : ''}`)
        for (const av of c.args) out(`      ${av}`)
        ok &&= c.permitted
      }
      if (v.account) {
        const args = [`task_id=${process.pid}`, 'service=shell', ...(words.length ? [`cmd=${[...words, '<cr>'].join(' ')}`] : []), ...(v.account === 'stop' ? ['elapsed_time=0'] : [`start_time=${Math.floor(Date.now() / 1000)}`])]
        const r = await client.account(user, { ...s, flags: v.account as 'start' | 'stop', args })
        out(`  accounting ${v.account}:      ${r.ok ? 'SUCCESS' : 'ERROR'} (${r.status})${r.serverMsg ? `  "${r.serverMsg}"` : ''}`)
        ok &&= r.ok
      }
      out(ok ? 'PASS' : 'FAIL')
      return ok ? 0 : 1
    }
    case 'radius-probe': {
      const method = (v.method ?? 'pap') as 'pap' | 'mschapv2'
      if (method !== 'pap' && method !== 'mschapv2') throw new UsageError('--method is pap or mschapv2')
      const host = need(v.host, 'host')
      const p = port(v.port, 1812)
      const r = await radiusProbe({ host, port: p, secret: need(v.secret, 'secret'), user: need(v.user, 'user'), password: need(v.password, 'password'), method, timeoutMs: Number(v.timeout ?? 3000) })
      out(`RADIUS ${host}:${p}  user ${v.user}  method ${method}`)
      out(`  ${r.code} in ${r.rttMs} ms  (response authenticator ${r.authenticatorOk ? 'OK' : 'WRONG: the shared secret differs'})${r.serverProofOk === null ? '' : `  MS-CHAP2-Success ${r.serverProofOk ? 'verified' : 'NOT verified'}`}`)
      for (const a of r.attributes) out(`    ${a.name} = ${JSON.stringify(a.value)}`)
      const ok = r.code === 'Access-Accept' && r.authenticatorOk && r.serverProofOk !== false
      out(ok ? 'PASS' : 'FAIL')
      return ok ? 0 : 1
    }
    default:
      throw new UsageError(`unknown command "${cmd}"`)
  }
}

try {
  process.exitCode = await main(process.argv.slice(2))
} catch (e) {
  if (e instanceof UsageError || (e as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    process.stderr.write(`portcullis: ${(e as Error).message}\n${USAGE}\n`)
    process.exitCode = 2
  } else if (isPortcullisError(e)) {
    const i18n = await createTranslator()
    process.stderr.write(`portcullis: ${e.code}: ${i18n.t('en', e.messageKey, e.vars)}\n`)
    process.exitCode = 1
  } else if (e instanceof BootError) {
    process.stderr.write(`portcullis: cannot start: ${e.code}: ${e.message}\n`)
    process.exitCode = 1
  } else {
    process.stderr.write(`portcullis: ${(e as Error).message}\n`)
    process.exitCode = 1
  }
}
