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
const swaggerInit = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#ui', deepLinking: true, persistAuthorization: true })`
const redocPage = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Portcullis API</title></head>
<body><redoc spec-url="/openapi.json"></redoc><script src="/redoc/redoc.standalone.js"></script></body></html>`

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
      ctx.body = redocPage
    } else if (p === '/redoc/redoc.standalone.js' && existsSync(redocJs)) {
      ctx.type = 'application/javascript'
      ctx.set('Cache-Control', 'public, max-age=86400')
      ctx.body = createReadStream(redocJs)
    } else return next()
  }
}
