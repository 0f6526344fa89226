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

/** The editions: `community` (every plugin of the core packages) and `pro` (those and the Pro packages, docs/editions.md). */
export type EditionId = 'community' | 'pro'
export const EDITIONS: Record<EditionId, { id: EditionId; name: 'Community' | 'Pro' }> = {
  community: { id: 'community', name: 'Community' },
  pro: { id: 'pro', name: 'Pro' },
}

interface PackageJson {
  version: string
  portcullis?: { editions?: Partial<Record<EditionId, string[]>> }
}

export const packageJson = (): PackageJson => JSON.parse(readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as PackageJson

/** The platform version: package.json, unless SERVICE_VERSION overrides it. */
export const platformVersion = (override: string | null): string => override ?? packageJson().version

/**
 * Each edition's plugin list from package.json `portcullis.editions`. A path in
 * it (`./pro/reports`) is relative to the project root, not to the working
 * directory the server was started in: it is made absolute here.
 */
export function packageEditions(): Record<EditionId, string[]> {
  const root = projectRoot()
  const lists = packageJson().portcullis?.editions ?? {}
  const abs = (spec: string) => (spec.startsWith('.') ? path.resolve(root, spec) : spec)
  return { community: (lists.community ?? []).map(abs), pro: (lists.pro ?? []).map(abs) }
}
