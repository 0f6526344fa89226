/** Shared pieces of the deploy tests: the plugin set, release paths, hash checks. */
import { createHash } from 'node:crypto'
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs'
import path from 'node:path'

export const DEPLOY_PLUGINS = ['inventory', 'tacacs', './examples/greetings-plugin', './test/fixtures/plugins/deploy-probe']

export const releasesOf = (dataDir: string, daemon: string) => path.join(dataDir, 'releases', daemon)

/** The release name `current` points to, or null. */
export function current(dataDir: string, daemon: string): string | null {
  const link = path.join(releasesOf(dataDir, daemon), 'current')
  try {
    if (!lstatSync(link).isSymbolicLink()) return null
  } catch {
    return null
  }
  return readlinkSync(link)
}

export const sha = (p: string) => createHash('sha256').update(readFileSync(p)).digest('hex')
export const mode = (p: string) => statSync(p).mode & 0o777

/** The secrets the release was rendered with, kept in its folder for the views' masking (kernel/deploy/files.ts SECRETS_FILE). */
export const SECRETS_FILE = '.portcullis-secrets.json'

/** Every file of the release matches the recorded hashes (of the database row, not the API's masked ones), and nothing else is there. */
export function matches(dir: string, files: { path: string; sha256: string }[]): boolean {
  if (!existsSync(dir)) return false
  const list: string[] = []
  const walk = (rel: string) => {
    for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name
      if (e.isDirectory()) walk(r)
      else if (r !== SECRETS_FILE) list.push(r)
    }
  }
  walk('')
  return list.length === files.length && files.every((f) => existsSync(path.join(dir, f.path)) && sha(path.join(dir, f.path)) === f.sha256)
}
