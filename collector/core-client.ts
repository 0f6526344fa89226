/**
 * The collector's side of `/api/v1/ncm/collector/`: every request signed (RFC 9421, Ed25519, over the
 * method, path, query, Content-Digest, contract and release; sdk/http-signatures.ts), answers read as
 * JSON or as the project's error envelope. node:https (node:http for a loopback core only), with the
 * operator's CA file when the core's certificate is private.
 */
import { type KeyObject, randomBytes } from 'node:crypto'
import http from 'node:http'
import https from 'node:https'
import {
  COLLECTOR_COMPONENTS,
  COLLECTOR_CONTRACT,
  COLLECTOR_PATH_PREFIX,
  COLLECTOR_SIGNATURE_LABEL,
  COLLECTOR_SIGNATURE_TAG,
  CONTRACT_HEADER,
  RELEASE_HEADER,
  type EnrollAnswer,
  type EnrollRequest,
  type FetchResult,
  type JobsAnswer,
  type ResultAnswer,
} from '../sdk/collector-protocol.js'
import { contentDigest, signMessage } from '../sdk/http-signatures.js'
import { COLLECTOR_RELEASE } from './version.js'

export interface StatusAnswer {
  collector_id: string
  name: string
  state: string
  core_version: string
  contract_state: string
}

/** The core said no: its status, code (NCM_…) and detail; `coreVersion` when it verified our signature. */
export class CoreRefusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string | null,
    readonly detail: string,
    readonly coreVersion: string | null,
  ) {
    super(`${status}${code ? ` ${code}` : ''}: ${detail}`)
    this.name = 'CoreRefusal'
  }
}

const LOOPBACK = (host: string) => host === 'localhost' || /^127\./.test(host) || host === '[::1]' || host === '::1'

/** The core's URL as the collector accepts it: https, or http to a loopback address; an origin only. */
export function checkCoreUrl(raw: string): URL {
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    throw new Error(`${raw} is not a URL`)
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error(`${raw}: the core is reached over https:`)
  if (u.protocol === 'http:' && !LOOPBACK(u.hostname)) throw new Error(`${raw}: http: is refused except to a loopback address; use https:`)
  // The signature covers the path as the core sees it: a prefix a proxy strips would break every request.
  if ((u.pathname !== '/' && u.pathname !== '') || u.search || u.hash || u.username || u.password) throw new Error(`${raw}: give the core's origin only (scheme://host[:port])`)
  if (u.hostname === '') throw new Error(`${raw}: no host`)
  return u
}

export interface CoreClientOptions {
  coreUrl: string
  /** Extra CA certificates (PEM) for the core's HTTPS. */
  ca?: string | null
  /** The collector's id (`keyid`); 'enroll' for the enrollment request. */
  keyid: string
  signKey: KeyObject
  /** The contract token sent: the real one, unless a test plays an old collector. */
  contract?: string
  release?: string
  timeoutMs?: number
}

/** The largest answer read: a jobs answer of 64 jobs is a few hundred KiB at most. */
const MAX_ANSWER = 8 * 1024 * 1024

export class CoreClient {
  readonly url: URL
  /** The core's version, from the last answer that carried it (X-Service-Core-Version). */
  coreVersion: string | null = null
  /** The core's clock minus ours, in seconds, from the last answer's Date (signatures allow ±60 s). */
  clockSkewSeconds: number | null = null

  constructor(readonly o: CoreClientOptions) {
    this.url = checkCoreUrl(o.coreUrl)
  }

  enroll(req: EnrollRequest): Promise<EnrollAnswer> {
    return this.call<EnrollAnswer>('POST', 'enroll', '', Buffer.from(JSON.stringify(req)), 'application/json')
  }

  jobs(wait: number, slots: number, signal?: AbortSignal): Promise<JobsAnswer> {
    return this.call<JobsAnswer>('GET', 'jobs', `?wait=${wait}&slots=${slots}`, Buffer.alloc(0), null, signal, (wait + 30) * 1000)
  }

  /** A result, its JSON gzipped (a configuration compresses tenfold). */
  result(body: Buffer, signal?: AbortSignal): Promise<ResultAnswer> {
    return this.call<ResultAnswer>('POST', 'results', '', body, 'application/gzip', signal)
  }

  status(): Promise<StatusAnswer> {
    return this.call<StatusAnswer>('GET', 'status', '', Buffer.alloc(0), null)
  }

  private call<T>(method: string, name: string, query: string, body: Buffer, type: string | null, signal?: AbortSignal, timeoutMs?: number): Promise<T> {
    const path = `${COLLECTOR_PATH_PREFIX}/${name}`
    const headers: Record<string, string> = {
      'content-digest': contentDigest(body),
      [CONTRACT_HEADER]: this.o.contract ?? COLLECTOR_CONTRACT,
      [RELEASE_HEADER]: this.o.release ?? COLLECTOR_RELEASE,
      accept: 'application/json',
      ...(type ? { 'content-type': type } : {}),
    }
    Object.assign(
      headers,
      signMessage({ method, path, query, headers, body }, this.o.signKey, {
        keyid: this.o.keyid,
        tag: COLLECTOR_SIGNATURE_TAG,
        label: COLLECTOR_SIGNATURE_LABEL,
        components: COLLECTOR_COMPONENTS,
        nonce: randomBytes(16).toString('base64url'),
      }),
    )
    const secure = this.url.protocol === 'https:'
    const lib = secure ? https : http
    return new Promise<T>((resolve, reject) => {
      const req = lib.request(
        {
          protocol: this.url.protocol,
          hostname: this.url.hostname.replace(/^\[|\]$/g, ''),
          port: this.url.port || (secure ? 443 : 80),
          method,
          path: path + query,
          headers: { ...headers, 'content-length': String(body.length) },
          ...(secure && this.o.ca ? { ca: this.o.ca } : {}),
          signal,
          timeout: timeoutMs ?? this.o.timeoutMs ?? 30_000,
        },
        (res) => {
          const chunks: Buffer[] = []
          let size = 0
          res.on('data', (c: Buffer) => {
            size += c.length
            if (size > MAX_ANSWER) return req.destroy(new Error('the core answered more than 8 MiB'))
            chunks.push(c)
          })
          res.on('error', reject)
          res.on('end', () => {
            const version = res.headers['x-service-core-version']
            if (typeof version === 'string') this.coreVersion = version
            const date = Date.parse(res.headers.date ?? '')
            if (Number.isFinite(date)) this.clockSkewSeconds = Math.round((date - Date.now()) / 1000)
            const text = Buffer.concat(chunks).toString('utf8')
            let json: unknown = null
            try {
              json = text === '' ? null : JSON.parse(text)
            } catch {
              /* not JSON: said below */
            }
            const status = res.statusCode ?? 0
            if (status >= 200 && status < 300 && json !== null) return resolve(json as T)
            const env = (json ?? {}) as { code?: unknown; detail?: unknown }
            reject(new CoreRefusal(status, typeof env.code === 'string' ? env.code : null, typeof env.detail === 'string' ? env.detail : text.slice(0, 200) || `HTTP ${status}`, typeof version === 'string' ? version : null))
          })
        },
      )
      req.on('timeout', () => req.destroy(new Error(`the core did not answer within ${Math.round((timeoutMs ?? this.o.timeoutMs ?? 30_000) / 1000)} s`)))
      req.on('error', reject)
      req.end(body)
    })
  }
}
