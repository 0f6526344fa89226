/**
 * What the core calls: POST /internal/v1/notify, signed with the shared key (sdk/signed-request.ts).
 * Unsigned, stale, replayed or altered: 401 PUSH_CHANNEL_INVALID before the body is even parsed.
 * Each notification is handed to the sender and the core answered 202 at once: delivery is
 * asynchronous (a push network can take seconds; the sign-in is already waiting on the challenge).
 */
import { verifySignedRequest, type NonceWindow } from '../../sdk/signed-request.js'
import { PushError } from '../errors.js'
import type { PushRoute } from '../http.js'
import { NotifyRequest, NotifyResponse, type NotifyPayload, type PushAddress } from '../schemas.js'
import type { PushSender } from '../senders/sender.js'

export interface PlatformDeps {
  key: string
  nonces: NonceWindow
  sender: PushSender
  log: (msg: string, err?: unknown) => void
}

type Notification = { device_id: string; address: PushAddress; payload: NotifyPayload }

export function platformRoutes(d: PlatformDeps): PushRoute[] {
  return [
    {
      method: 'POST',
      path: '/internal/v1/notify',
      operationId: 'notify',
      tag: 'platform',
      auth: 'channel',
      summary: 'Deliver notifications to devices (the core only)',
      description:
        'Signed by the core with the shared key (headers x-portcullis-timestamp, x-portcullis-nonce, x-portcullis-signature: HMAC-SHA256 over method, path, time, nonce and the body hash; 60 s window, each nonce once). 401 PUSH_CHANNEL_INVALID otherwise. `accepted`: how many were handed to the sender (an address of another kind, or a Web Push endpoint off the allowed push networks, is not: logged); delivery goes on after the answer.',
      body: NotifyRequest,
      responses: { 202: NotifyResponse, 401: null },
      verifyRaw: (i) => {
        const refusal = verifySignedRequest(d.key, { method: 'POST', path: i.url, body: i.raw }, i.headers, d.nonces)
        if (refusal) throw new PushError(401, 'PUSH_CHANNEL_INVALID', { reason: refusal })
      },
      handle: async (i) => {
        let accepted = 0
        for (const n of (i.body as { notifications: Notification[] }).notifications) {
          if (n.address.kind !== d.sender.kind) {
            d.log(`notification for device ${n.device_id} not sent: a ${n.address.kind} address, this service delivers ${d.sender.kind}`)
            continue
          }
          const refused = d.sender.refusal?.(n.address)
          if (refused) {
            d.log(`notification for device ${n.device_id} not sent: ${refused}`)
            continue
          }
          accepted++
          d.sender.send(n.address, n.payload).catch((err: unknown) => d.log(`notification for device ${n.device_id} not delivered`, err))
        }
        return { status: 202, body: { accepted } }
      },
    },
  ]
}
