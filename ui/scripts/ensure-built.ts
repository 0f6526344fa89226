/**
 * `npm start` on a fresh clone, or after a change under ui/: build the
 * console first (`npm run build:ui`), else do nothing. Compares the built
 * index with the newest source file, so an unchanged console costs a stat.
 */
import { execSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const ui = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

function newest(p: string): number {
  const st = statSync(p)
  if (!st.isDirectory()) return st.mtimeMs
  return Math.max(st.mtimeMs, ...readdirSync(p).filter((n) => n !== 'generated').map((n) => newest(path.join(p, n))))
}

export function uiIsStale(): boolean {
  const index = path.join(ui, 'dist', 'index.html')
  if (!existsSync(index)) return true
  const built = statSync(index).mtimeMs
  return ['src', 'public', 'index.html', 'vite.config.ts'].some((f) => existsSync(path.join(ui, f)) && newest(path.join(ui, f)) > built)
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  if (uiIsStale()) {
    process.stderr.write('Building the admin console (ui/ → ui/dist)…\n')
    execSync('npm run --silent build:ui', { cwd: path.resolve(ui, '..'), stdio: 'inherit' })
  }
}
