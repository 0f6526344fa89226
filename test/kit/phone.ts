/**
 * A scripted phone for the push factor's tests: a real key pair (P-256 or Ed25519) made here, the
 * private half never sent, and the app's side of the mobile contract (docs/push-mfa.md): enroll
 * from the QR code's URI, fetch the pending challenges, answer them signed. It talks either to the
 * push service (`viaPushService`) or, as the push service would relay it, straight to the core's
 * `/api/v1/mfa/internal/app/...` routes signed with the channel key (`viaCore`): the real core, the
 * same bytes and headers the push service forwards.
 */
import { generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto'
import { createHash } from 'node:crypto'
import { signRequest } from '../../sdk/signed-request.js'
import type { TestResponse } from './http.js'

export type PhoneAlgorithm = 'p256' | 'ed25519'
export type Behaviour = 'approve' | 'deny' | 'wrong_number' | 'silent' | 'report'

/** How the phone's requests reach the core. `appPath` is the app's (`/v1/challenges`). */
export interface PhoneTransport {
  send(method: string, appPath: string, body: string | null, headers: Record<string, string>): Promise<TestResponse>
}

async function parse(res: Response): Promise<TestResponse> {
  const text = await res.text()
  let body: unknown = text
  if ((res.headers.get('content-type') ?? '').includes('json') && text) body = JSON.parse(text)
  return { status: res.status, headers: res.headers, body, text }
}

/** Through the push service at `url` (its /v1/... routes). */
export const viaPushService = (url: string): PhoneTransport => ({
  async send(method, appPath, body, headers) {
    return parse(await fetch(url + appPath, { method, headers: { ...headers, ...(body !== null ? { 'content-type': 'application/json' } : {}) }, body: body ?? undefined }))
  },
})

/** Straight to the core, as the push service relays: the channel signature over the core's path and the app's bytes. */
export const viaCore = (coreUrl: string, key: string, o: { serviceVersion?: string } = {}): PhoneTransport => ({
  async send(method, appPath, body, headers) {
    const path = '/api/v1/mfa/internal/app' + appPath.replace(/^\/v1/, '')
    const channel = signRequest(key, { method, path, body: body ?? '' })
    const h = { ...headers, ...channel, 'x-push-service-version': o.serviceVersion ?? '1.0.0', ...(body !== null ? { 'content-type': 'application/json' } : {}) }
    return parse(await fetch(coreUrl + path, { method, headers: h, body: body ?? undefined }))
  },
})

export interface PhoneChallenge {
  id: string
  nonce: string
  origin: string
  context: { username: string; ip?: string; client?: string }
  number_matching: boolean
  burst: { id: string; count: number }
  expires_at: string
}

export class ScriptedPhone {
  readonly algorithm: PhoneAlgorithm
  readonly publicKey: string
  private readonly privateKey: KeyObject
  /** The queue the push service's queue sender delivers this phone's notifications to. */
  readonly queue: string
  deviceId: string | null = null
  /** Added to the phone's clock (seconds): a drifting phone. */
  clockOffsetSeconds = 0
  private running: { stop: boolean; done: Promise<void> } | null = null
  /** What behave() answered, in order. */
  readonly answered: { id: string; status: number; result?: string }[] = []

  constructor(public transport: PhoneTransport, o: { algorithm?: PhoneAlgorithm; queue?: string } = {}) {
    this.algorithm = o.algorithm ?? 'p256'
    const pair = this.algorithm === 'ed25519' ? generateKeyPairSync('ed25519') : generateKeyPairSync('ec', { namedCurve: 'P-256' })
    this.privateKey = pair.privateKey
    this.publicKey = pair.publicKey.export({ type: 'spki', format: 'der' }).toString('base64url')
    this.queue = o.queue ?? `phone-${randomUUID()}`
  }

  /** The device key's signature (P-256: IEEE-P1363 r‖s), base64url. */
  sign(text: string): string {
    const data = Buffer.from(text, 'utf8')
    return (this.algorithm === 'ed25519' ? sign(null, data, this.privateKey) : sign('sha256', data, { key: this.privateKey, dsaEncoding: 'ieee-p1363' })).toString('base64url')
  }

  /** Enrolls from the QR code's URI (or a bare token); remembers the device id on 201. */
  async enroll(qr: string, o: { name?: string; tamper?: (body: Record<string, unknown>) => void } = {}): Promise<TestResponse> {
    const token = qr.startsWith('portcullis-push://') ? new URL(qr).searchParams.get('token')! : qr
    const body: Record<string, unknown> = {
      token,
      name: o.name ?? `Phone ${this.algorithm}`,
      algorithm: this.algorithm,
      public_key: this.publicKey,
      push: { kind: 'queue', queue: this.queue },
      signature: this.sign(`portcullis-push-enroll\n${token}\n${this.publicKey}`),
    }
    o.tamper?.(body)
    const res = await this.transport.send('POST', '/v1/devices', JSON.stringify(body), {})
    if (res.status === 201) this.deviceId = res.body.device_id
    return res
  }

  /** A device-signed request (everything but enroll). */
  request(method: string, appPath: string, body: unknown = null, o: { timestamp?: number; signer?: ScriptedPhone; deviceId?: string } = {}): Promise<TestResponse> {
    const text = body === null ? null : JSON.stringify(body)
    const ts = String(o.timestamp ?? Math.floor(Date.now() / 1000) + this.clockOffsetSeconds)
    const hash = text ? createHash('sha256').update(text).digest('hex') : ''
    const signer = o.signer ?? this
    const headers = {
      'x-device-id': o.deviceId ?? this.deviceId ?? '',
      'x-device-timestamp': ts,
      'x-device-signature': signer.sign(`portcullis-push-request\n${method}\n${appPath}\n${ts}\n${hash}`),
    }
    return this.transport.send(method, appPath, text, headers)
  }

  async pending(): Promise<PhoneChallenge[]> {
    const res = await this.request('GET', '/v1/challenges')
    if (res.status !== 200) throw new Error(`GET /v1/challenges: ${res.status} ${res.text}`)
    return res.body.challenges as PhoneChallenge[]
  }

  /** The answer body, signed over the challenge's id and nonce, the decision and the number. */
  answerBody(c: { id: string; nonce: string }, decision: 'approve' | 'deny' | 'report', number: string | null = null) {
    return { decision, number, signature: this.sign(`portcullis-push-answer\n${c.id}\n${c.nonce}\n${decision}\n${number ?? ''}`) }
  }

  answer(c: { id: string; nonce: string }, decision: 'approve' | 'deny' | 'report', number: string | null = null): Promise<TestResponse> {
    return this.request('POST', `/v1/challenges/${c.id}/answer`, this.answerBody(c, decision, number))
  }

  /**
   * Answers every challenge that arrives, as told, until stop(): `numberSource` gives the number
   * the sign-in screen shows (for number matching); wrong_number types another one.
   */
  behave(mode: Behaviour, numberSource: (challengeId: string) => string | null | Promise<string | null> = () => null): void {
    if (this.running) throw new Error('already behaving')
    const state = { stop: false, done: Promise.resolve() }
    const seen = new Set<string>()
    state.done = (async () => {
      while (!state.stop) {
        if (mode !== 'silent') {
          for (const c of await this.pending().catch(() => [] as PhoneChallenge[])) {
            if (seen.has(c.id)) continue
            seen.add(c.id)
            const shown = c.number_matching ? await numberSource(c.id) : null
            const number = mode === 'wrong_number' ? String(((Number(shown ?? '10') - 10 + 1) % 90) + 10) : shown
            const decision = mode === 'approve' || mode === 'wrong_number' ? 'approve' : mode
            const res = await this.answer(c, decision, number)
            this.answered.push({ id: c.id, status: res.status, result: res.body?.result })
          }
        }
        await new Promise((r) => setTimeout(r, 50))
      }
    })()
    this.running = state
  }

  async stop(): Promise<void> {
    if (!this.running) return
    this.running.stop = true
    await this.running.done
    this.running = null
  }
}
