import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import path from 'node:path'

/** The project root: where package.json is, whether running from source or dist/. */
export function projectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url))
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string }
      if (pkg.name === 'portcullis') return dir
    } catch {
      /* keep climbing */
    }
    const up = path.dirname(dir)
    if (up === dir) throw new Error('package.json of portcullis not found')
    dir = up
  }
}

interface PackageJson {
  version: string
  portcullis?: { plugins?: string[] }
}

export const packageJson = (): PackageJson => JSON.parse(readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as PackageJson

/** The platform version: package.json, unless SERVICE_VERSION overrides it. */
export const platformVersion = (override: string | null): string => override ?? packageJson().version
