/**
 * /docs (Swagger UI), /redoc and /openapi.json, only when DOCS_ENABLED=true.
 * When off, these paths fall through to the 404 like any unknown path and the
 * document is never built. UI assets are served from npm packages, not a CDN.
 */
import { createReadStream, existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import type Koa from 'koa'

const require = createRequire(import.meta.url)
const pkgDir = (name: string) => path.dirname(require.resolve(`${name}/package.json`))

const SWAGGER_FILES = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'swagger-ui-standalone-preset.js', 'favicon-32x32.png'])

const swaggerPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Portcullis API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"></head><body><div id="ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script><script src="/docs/init.js"></script></body></html>`
// persistAuthorization would keep the bearer token in localStorage, where any script of this origin
// (and anyone at the browser later) could read it: the token lives only as long as the page.
// validatorUrl null: the default sends the document's URL to an outside validator.
const swaggerInit = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#ui', deepLinking: true, persistAuthorization: false, validatorUrl: null })`
const redocPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Portcullis API</title></head>
<body><redoc spec-url="/openapi.json"></redoc><script src="/redoc/redoc.standalone.js"></script></body></html>`

/**
 * The pages' own Content-Security-Policy (every other answer forbids everything, see transport.ts):
 * scripts only from this origin, so the Swagger initializer is a file (/docs/init.js), not inline.
 * Swagger UI's stylesheet embeds its icons as data: images. ReDoc builds its styles at run time
 * (styled-components inserts <style> elements), so its page needs 'unsafe-inline' styles (styles
 * only: scripts stay 'self'), and runs its search index in a Worker made from a blob: URL.
 */
const COMMON_CSP = "default-src 'none'; script-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
export const DOCS_CSP = {
  swagger: `${COMMON_CSP}; style-src 'self'`,
  redoc: `${COMMON_CSP}; style-src 'self' 'unsafe-inline'; font-src 'self' data:; worker-src blob:`,
} as const

export function docsMiddleware(build: () => object): Koa.Middleware {
  let doc: string | null = null
  const swaggerDir = pkgDir('swagger-ui-dist')
  const redocJs = path.join(pkgDir('redoc'), 'bundles', 'redoc.standalone.js')
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next()
    const p = ctx.path
    if (p === '/openapi.json') {
      doc ??= JSON.stringify(build())
      ctx.type = 'application/json'
      ctx.body = doc
    } else if (p === '/docs' || p === '/docs/') {
      ctx.type = 'text/html'
      ctx.set('Content-Security-Policy', DOCS_CSP.swagger)
      ctx.body = swaggerPage
    } else if (p === '/docs/init.js') {
      ctx.type = 'application/javascript'
      ctx.body = swaggerInit
    } else if (p.startsWith('/docs/') && SWAGGER_FILES.has(p.slice(6))) {
      ctx.type = path.extname(p)
      ctx.set('Cache-Control', 'public, max-age=86400')
      ctx.body = createReadStream(path.join(swaggerDir, p.slice(6)))
    } else if (p === '/redoc' || p === '/redoc/') {
      ctx.type = 'text/html'
      ctx.set('Content-Security-Policy', DOCS_CSP.redoc)
      ctx.body = redocPage
    } else if (p === '/redoc/redoc.standalone.js' && existsSync(redocJs)) {
      ctx.type = 'application/javascript'
      ctx.set('Cache-Control', 'public, max-age=86400')
      ctx.body = createReadStream(redocJs)
    } else return next()
  }
}
