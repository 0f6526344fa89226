/**
 * The collector's release: the platform's own (package.json), sent in `Portcullis-Release` with every
 * request. Remote modules run the release of their core; the core shows a difference, never refuses
 * on it (what it refuses on is the contract token, sdk/collector-protocol.ts).
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

function findRelease(): string {
  // From collector/ or dist/collector/: the first package.json named portcullis upwards.
  let dir = path.dirname(fileURLToPath(import.meta.url))
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string }
      if (pkg.name === 'portcullis' && typeof pkg.version === 'string') return pkg.version
    } catch {
      /* keep climbing */
    }
    const up = path.dirname(dir)
    if (up === dir) return '0.0.0'
    dir = up
  }
}

export const COLLECTOR_RELEASE = findRelease()
