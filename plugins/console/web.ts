/**
 * The console's files: the built single-page app (ui/dist, made by
 * `npm run build:ui`) at `/`, and the pages other plugins add under
 * /console/ext/<plugin>/. Any path without a file extension is a page of the
 * app (SPA fallback: the browser's router draws it), answered with index.html.
 */
import { existsSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { fileInside, type WebAssets, type WebFile } from '../../sdk/index.js'
import type { ConsoleExtension } from './api.js'

/**
 * Scripts only from this origin (no inline script, no eval). Styles allow
 * 'unsafe-inline': Mantine sets its CSS variables in a <style> element and
 * positions popovers with style attributes; styles cannot run code.
 * Images: data: for the TOTP QR code the API answers as a data URL.
 * form-action 'none': the app sends its forms with fetch; should a form ever
 * submit natively (a script failed), the browser does not put the password in
 * a URL.
 */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; connect-src 'self'; manifest-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

/** Vite names every built asset with a content hash: a new build is a new URL, so an asset never changes. */
const IMMUTABLE = 'public, max-age=31536000, immutable'

/** The built app, from the source tree (plugins/console) or the compiled one (dist/plugins/console). */
export function findUiDist(): string | null {
  const here = path.dirname(fileURLToPath(import.meta.url))
  for (const up of ['../../ui/dist', '../../../ui/dist']) {
    const dir = path.resolve(here, up)
    if (existsSync(path.join(dir, 'index.html'))) return dir
  }
  return null
}

export function consoleWeb(uiDir: string | null, extensions: ReadonlyMap<string, ConsoleExtension>): WebAssets {
  return {
    resolve(urlPath: string): WebFile | null {
      const ext = /^\/console\/ext\/([a-z][a-z0-9_-]*)\/(.+)$/.exec(urlPath)
      if (ext) {
        const e = extensions.get(ext[1])
        const file = e ? fileInside(fileURLToPath(e.dir), ext[2]) : null
        return file ? { file, cacheControl: /[.-][A-Za-z0-9_-]{8,}\.\w+$/.test(file) ? IMMUTABLE : 'no-cache' } : null
      }
      if (!uiDir) return null
      if (urlPath.startsWith('/assets/')) {
        const file = fileInside(uiDir, urlPath)
        return file ? { file, cacheControl: IMMUTABLE } : null
      }
      // A file of the app's root (favicon): cached briefly, its name carries no hash.
      if (/\.[A-Za-z0-9]+$/.test(urlPath)) {
        const file = urlPath === '/index.html' ? null : fileInside(uiDir, urlPath)
        return file && existsSync(file) ? { file, cacheControl: 'public, max-age=3600' } : null
      }
      // A page of the app: its index, revalidated on every load so that a new build is seen at once.
      return { file: path.join(uiDir, 'index.html'), cacheControl: 'no-cache', csp: CONSOLE_CSP }
    },
  }
}
