#!/usr/bin/env node
/**
 * `portcullis` command line. Commands read the same configuration as the
 * server (environment, PORTCULLIS_CONFIG).
 *   token [--ttl SECONDS]   print an administrator bearer token for this data folder
 */
import { loadConfig } from './config.js'
import { loadMasterKey } from './security/master-key.js'
import { TokenService } from './security/tokens.js'
import { BootError } from './boot-error.js'

const USAGE = `usage: portcullis <command>

commands:
  token [--ttl SECONDS]   print an administrator bearer token (default 12 hours)
                          signed with the master key of DATA_DIR / MASTER_KEY
`

async function token(args: string[]): Promise<void> {
  const i = args.indexOf('--ttl')
  const ttl = i >= 0 ? Number(args[i + 1]) : 12 * 3600
  if (!Number.isInteger(ttl) || ttl < 60 || ttl > 30 * 86400) throw new Error('--ttl must be a whole number of seconds from 60 to 2592000')
  const config = loadConfig()
  const master = loadMasterKey({ ...config, mayGenerate: false })
  if (!master.key) throw new Error(`no master key: set MASTER_KEY or MASTER_KEY_FILE, or start the server once so that ${config.dataDir}/master.key exists`)
  const t = await new TokenService(master.key).issue({ sub: '00000000-0000-4000-8000-000000000001', name: 'admin', purpose: 'session', ttlSeconds: ttl, adm: true })
  process.stdout.write(t.token + '\n')
  process.stderr.write(`administrator session token, valid until ${new Date(t.exp * 1000).toISOString()}\n`)
}

async function main(argv: string[]) {
  const [cmd, ...rest] = argv
  switch (cmd) {
    case 'token':
      return token(rest)
    case undefined:
    case 'help':
    case '--help':
      process.stdout.write(USAGE)
      return
    default:
      process.stderr.write(`unknown command "${cmd}"\n\n${USAGE}`)
      process.exitCode = 2
  }
}

main(process.argv.slice(2)).catch((e: unknown) => {
  process.stderr.write(`portcullis: ${e instanceof BootError ? e.toString() : (e as Error).message}\n`)
  process.exitCode = 1
})
