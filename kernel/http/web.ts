/**
 * Plugins' browser files (PluginContributions.web, sdk/web.ts): asked for a
 * GET or HEAD that no route answers, outside every root path the API owns (an
 * unknown API path stays the envelope's 404, never a page). The security
 * headers already set stay, but for the file's own Content-Security-Policy and
 * Cache-Control.
 */
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import path from 'node:path'
import type Koa from 'koa'
import type { WebAssets } from '../../sdk/index.js'

/**
 * The root paths the server itself answers, whether or not they are on: the API, the documentation
 * (404 while DOCS_ENABLED is off, as the contract says; never the console's page in its place).
 */
const KERNEL_ROOTS = ['/api', '/docs', '/redoc', '/openapi.json']

/**
 * The first segment of every path the API owns: the kernel's, and those of the root routes
 * (`/healthz`, `/ready`, `/.well-known`). A path at or under one is the API's to answer or to
 * 404 in the envelope, never a page of the console (an unknown `/.well-known/est/…` is no page).
 */
export function apiRoots(rootRoutePaths: readonly string[]): ReadonlySet<string> {
  return new Set([...KERNEL_ROOTS, ...rootRoutePaths.map((p) => '/' + p.split('/')[1])])
}

const owned = (p: string, roots: ReadonlySet<string>) => roots.has('/' + p.split('/')[1])

export async function serveWeb(ctx: Koa.Context, web: readonly { owner: string; web: WebAssets }[], roots: ReadonlySet<string> = apiRoots([])): Promise<boolean> {
  if (!web.length || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return false
  const p = ctx.path
  if (owned(p, roots)) return false
  let decoded: string
  try {
    decoded = decodeURIComponent(p)
  } catch {
    return false
  }
  for (const { web: w } of web) {
    const f = await w.resolve(decoded)
    if (!f) continue
    const st = await stat(f.file).catch(() => null)
    if (!st?.isFile()) continue
    // A gzip copy made at build (`<file>.gz`), for a client that accepts it: the same bytes, a quarter of the size.
    const gz = ctx.acceptsEncodings('gzip', 'identity') === 'gzip' ? await stat(f.file + '.gz').catch(() => null) : null
    const sent = gz?.isFile() ? f.file + '.gz' : f.file
    // HEAD: no stream is opened; the status is set after the body, or koa would make an empty body a 204.
    ctx.body = ctx.method === 'HEAD' ? null : createReadStream(sent)
    ctx.status = 200
    ctx.type = path.extname(f.file) || 'application/octet-stream'
    ctx.vary('Accept-Encoding')
    if (sent !== f.file) ctx.set('Content-Encoding', 'gzip')
    ctx.length = sent === f.file ? st.size : gz!.size
    ctx.set('Cache-Control', f.cacheControl)
    if (f.csp) ctx.set('Content-Security-Policy', f.csp)
    return true
  }
  return false
}
