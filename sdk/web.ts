/**
 * Files for browsers, served by the kernel from the same origin as the API.
 * A plugin returns `web` from init; for a GET or HEAD that no route answers
 * and whose path is outside /api/, the kernel asks each plugin's `resolve` in
 * load order and streams the first file answered. The kernel keeps every API
 * rule for these answers (request id, security headers), replacing only the
 * Content-Security-Policy and Cache-Control with the file's own: a page needs
 * scripts, a hashed asset can be cached for a year, an index must not be.
 */
import path from 'node:path'

export interface WebFile {
  /** Absolute path of the file on disk. */
  file: string
  /** Cache-Control of the answer: `no-cache` for an index, `public, max-age=31536000, immutable` for a hashed asset. */
  cacheControl: string
  /** The page's Content-Security-Policy (an HTML page); other files keep the API's deny-all policy. */
  csp?: string
}

export interface WebAssets {
  /** The file for a URL path (decoded, starting with `/`), or null to let the next plugin or the 404 answer. */
  resolve(urlPath: string): WebFile | null | Promise<WebFile | null>
}

/**
 * The file a URL path names under `dir`, or null when the path leaves `dir`
 * (`..`, an absolute or NUL-bearing segment) or names a dotfile: the one
 * check every static resolver needs, said once.
 */
export function fileInside(dir: string, urlPath: string): string | null {
  if (urlPath.includes('\0') || urlPath.includes('\\')) return null
  const segments = urlPath.split('/').filter((s) => s !== '')
  if (segments.some((s) => s === '..' || s === '.' || s.startsWith('.'))) return null
  const root = path.resolve(dir)
  const full = path.resolve(root, ...segments)
  return full === root || full.startsWith(root + path.sep) ? full : null
}
