/**
 * What the push service's tests share: its OpenAPI document as a checker of real answers, and a
 * stand-in for the core's /api/v1/mfa/internal/app/… routes that verifies the channel signature and
 * records what arrived. The stand-in serves the relay's unit tests only; the end-to-end tests run
 * the real core (test/kit/push.ts with startTestApp).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import { Ajv } from 'ajv'
import addFormatsPkg from 'ajv-formats'
import { expect } from 'chai'
import { NonceWindow, signRequest, verifySignedRequest } from '../../sdk/signed-request.js'

const addFormats = addFormatsPkg as unknown as (ajv: Ajv) => Ajv

type Json = Record<string, any>

/** Checks an answer against the document: its status is documented for the operation, its body and headers are as declared. */
export function answerChecker(doc: Json): (method: string, path: string, res: { status: number; headers: Headers; text: string }) => void {
  // Ajv reads the document as one schema (OpenAPI's own keywords ignored); `mapping` is documentation, Ajv refuses it.
  const copy = JSON.parse(JSON.stringify(doc), (k, v) => (k === 'discriminator' ? { propertyName: v.propertyName } : v)) as Json
  const ajv = new Ajv({ strict: false, discriminator: true, allErrors: true })
  addFormats(ajv)
  ajv.addSchema(copy, 'push-openapi')
  return (method, path, res) => {
    const where = `${method} ${path} → ${res.status}`
    const op = doc.paths[path]?.[method.toLowerCase()] as Json | undefined
    expect(op, `${method} ${path} is not in the document`).to.be.an('object')
    const answer = op!.responses[String(res.status)] as Json | undefined
    expect(answer, `${where} is not documented (documented: ${Object.keys(op!.responses).join(', ')})`).to.be.an('object')
    for (const [name, h] of Object.entries((answer!.headers ?? {}) as Json)) {
      const decl = (h.$ref ? doc.components.headers[h.$ref.split('/').pop()] : h) as Json
      if (!decl.required) continue
      const value = res.headers.get(name)
      expect(value, `${where}: header ${name}`).to.be.a('string')
      if (decl.schema?.const !== undefined) expect(value, `${where}: header ${name}`).to.equal(decl.schema.const)
    }
    const content = answer!.content?.['application/json']
    if (!content) {
      expect(res.text, `${where} declares no body`).to.equal('')
      return
    }
    expect(res.headers.get('content-type'), where).to.match(/^application\/json/)
    const pointer = ['paths', path, method.toLowerCase(), 'responses', String(res.status), 'content', 'application/json', 'schema'].map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')
    const validate = ajv.compile({ $ref: `push-openapi#/${pointer}` })
    const body = JSON.parse(res.text) as unknown
    expect(validate(body), `${where}: ${ajv.errorsText(validate.errors)} in ${res.text}`).to.equal(true)
  }
}

export interface Received {
  method: string
  path: string
  headers: IncomingHttpHeaders
  body: Buffer
}

export type CoreAnswer = { status: number; body?: unknown; headers?: Record<string, string>; raw?: string }

export interface StandInCore {
  url: string
  received: Received[]
  /** The next answers, by "METHOD path"; unset routes answer 500. */
  answers: Map<string, CoreAnswer>
  /** Sign the answers with this key (as a core that signs its answers would), or null. */
  signAnswersWith: string | null
  close(): Promise<void>
}

/** A core stand-in: refuses a request whose channel signature does not verify (401 PUSH_CHANNEL_INVALID). */
export async function startStandInCore(key: string): Promise<StandInCore> {
  const nonces = new NonceWindow()
  const core: StandInCore = { url: '', received: [], answers: new Map(), signAnswersWith: null, close: async () => undefined }
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      const path = req.url ?? ''
      const refusal = verifySignedRequest(key, { method: req.method ?? '', path, body }, req.headers, nonces)
      const send = (a: CoreAnswer) => {
        const text = a.raw ?? (a.body === undefined ? '' : JSON.stringify(a.body))
        const headers: Record<string, string> = { ...(a.raw === undefined && a.body !== undefined ? { 'content-type': 'application/json; charset=utf-8' } : {}), ...a.headers }
        if (core.signAnswersWith) Object.assign(headers, signRequest(core.signAnswersWith, { method: req.method ?? '', path, body: text }))
        res.writeHead(a.status, headers).end(text)
      }
      if (refusal) return send({ status: 401, body: { detail: `channel: ${refusal}`, code: 'PUSH_CHANNEL_INVALID', field: null } })
      core.received.push({ method: req.method ?? '', path, headers: req.headers, body })
      send(core.answers.get(`${req.method} ${path}`) ?? { status: 500, body: { detail: 'no answer set', code: 'INTERNAL_ERROR', field: null } })
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  core.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  core.close = () =>
    new Promise<void>((r) => {
      server.close(() => r())
      server.closeAllConnections()
    })
  return core
}

export interface Answer {
  status: number
  headers: Headers
  text: string
  body: any
}

export async function call(base: string, method: string, path: string, o: { body?: unknown; raw?: string | Buffer; headers?: Record<string, string> } = {}): Promise<Answer> {
  const raw = o.raw ?? (o.body === undefined ? undefined : JSON.stringify(o.body))
  const res = await fetch(base + path, {
    method,
    headers: { ...(raw !== undefined ? { 'content-type': 'application/json' } : {}), ...o.headers },
    body: raw === undefined ? undefined : typeof raw === 'string' ? raw : new Uint8Array(raw),
  })
  const text = await res.text()
  let body: any = null
  try {
    body = text ? JSON.parse(text) : null
  } catch {
    body = null
  }
  return { status: res.status, headers: res.headers, text, body }
}
