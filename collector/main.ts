/**
 * `npm run collector -- <command>` (dist: `node dist/collector/main.js <command>`, the collector's
 * Docker image): the configuration collector on its own, the same as `portcullis collector <command>`.
 */
import { runCollectorCli } from './cli.js'

process.exitCode = await runCollectorCli(process.argv.slice(2), {
  out: (line = '') => void process.stdout.write(line + '\n'),
  err: (text) => void process.stderr.write(text),
  env: process.env,
})
