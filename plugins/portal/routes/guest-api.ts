/**
 * The guest JSON API: the pages' steps for an app or a kiosk of one's own. `POST …/guest/start`
 * answers the `guest_token`; every other call sends it in `X-Guest-Token` (401 GUEST_TOKEN_INVALID
 * for a token unknown, of an ended session, or replayed after its end). Rate-limited per client IP.
 */
import { defineRoute, ErrorBody, Nullable, PUBLIC, Timestamp, Type, Uuid, type RouteDefinition, type RouteRequest } from '../../../sdk/index.js'
import { PortalErrors } from '../errors.js'
import { asLang, type Lang } from '../pages/strings.js'
import type { SessionRow } from '../tables.js'
import type { PortalContext } from '../services/context.js'
import { portalBySlug, sessionOfToken, startSession } from '../services/guest-session.js'
import { auditOf, limitOf, PAGE_LIMIT, runAction, type ActionInput, type GuestAction } from './actions.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any route's request
type Req = RouteRequest<any, any, any>

const TAGS = ['captive-portal (guest)']
const Text = (max: number) => Type.String({ maxLength: max })

export const GuestSession = Type.Object(
  {
    session_id: Uuid(),
    portal: Type.Object({ slug: Type.String(), name: Type.String(), methods: Type.Array(Type.String()) }),
    state: Type.String({ description: 'started, pending_code, pending_approval, active, denied, ended, expired.' }),
    method: Nullable(Type.String()),
    mac: Type.String(),
    expires_at: Nullable(Timestamp()),
    language: Nullable(Type.String()),
  },
  { title: 'GuestSession', additionalProperties: false },
)

const Step = Type.Object(
  {
    session: GuestSession,
    status: Type.Optional(Type.String({ description: '`mfa_required` after an employee\'s password when a second factor is enrolled; `push_pending` while the phone has not answered a push; `registered` once the device is.' })),
    byod_mfa_token: Type.Optional(Type.String({ description: 'Spend it with a code at POST /captive-portal/byod/verify, or an approval on the phone (POST /captive-portal/byod/push, then …/byod/push-wait) (body, never as a bearer token); 5 minutes.' })),
    factors: Type.Optional(Type.Array(Type.Union([Type.Literal('totp'), Type.Literal('push')]), { description: 'With `mfa_required`: the second factors the employee may use here.' })),
    push_challenge: Type.Optional(Type.String({ description: 'With `push_pending`: the push to wait for at POST /captive-portal/byod/push-wait.' })),
    number: Type.Optional(Nullable(Type.String({ description: 'With `push_pending`: the two digits to show; the phone asks for them (number matching).' }))),
    expires_in: Type.Optional(Nullable(Type.Integer())),
    certificate_download_url: Type.Optional(Type.String({ description: 'The onboarding certificate\'s one-time download: POST it once for the PKCS#12 bundle.' })),
    certificate_passphrase: Type.Optional(Type.String({ description: 'The bundle\'s passphrase; shown once, not stored.' })),
  },
  { title: 'GuestStep', additionalProperties: false },
)

const Errors = { 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody, 410: ErrorBody, 422: ErrorBody, 503: ErrorBody }

async function view(c: PortalContext, s: SessionRow) {
  const p = await c.knex('portal_portals').where({ id: s.portal_id }).first()
  return {
    session_id: s.id,
    portal: { slug: p?.slug ?? '', name: p?.name ?? '', methods: p?.methods ?? [] },
    state: s.state,
    method: s.method,
    mac: s.mac,
    expires_at: s.expires_at ? new Date(s.expires_at).toISOString() : null,
    language: s.language,
  }
}

const guestToken = (req: Req) => {
  const h = req.headers['x-guest-token']
  return typeof h === 'string' ? h : undefined
}

/** The session of the X-Guest-Token, on a portal still enabled: 401 GUEST_TOKEN_INVALID otherwise. */
async function liveSession(c: PortalContext, req: Req) {
  const s = await sessionOfToken(c, guestToken(req))
  const portal = await c.knex('portal_portals').where({ id: s.portal_id, enabled: true }).first()
  if (!portal) throw PortalErrors.guestTokenInvalid()
  return { s, portal }
}

const langOf = (req: Req, s: SessionRow): Lang => asLang(s.language) ?? asLang(req.lang) ?? 'en'

const BODIES: Record<GuestAction, ReturnType<typeof Type.Object>> = {
  hotspot: Type.Object({ accept_terms: Type.Boolean() }, { additionalProperties: false }),
  register: Type.Object({ name: Text(100), email: Text(254), fields: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), Text(200))) }, { additionalProperties: false }),
  'verify-code': Type.Object({ code: Text(12) }, { additionalProperties: false }),
  sponsor: Type.Object({ name: Text(100), email: Text(254), sponsor_email: Text(254) }, { additionalProperties: false }),
  login: Type.Object({ username: Text(200), password: Text(1024) }, { additionalProperties: false }),
  account: Type.Object({ username: Text(200), password: Text(1024) }, { additionalProperties: false }),
  'byod-verify': Type.Object({ byod_mfa_token: Text(4096), code: Text(12) }, { additionalProperties: false }),
  'byod-push': Type.Object({ byod_mfa_token: Text(4096) }, { additionalProperties: false }),
  'byod-push-wait': Type.Object({ byod_mfa_token: Text(4096), push_challenge: Uuid(), number: Type.Optional(Nullable(Text(2))) }, { additionalProperties: false }),
}

const SUMMARY: Record<GuestAction, [string, string]> = {
  hotspot: ['/captive-portal/guest/hotspot', 'Hotspot: accept the terms; the device is registered'],
  register: ['/captive-portal/guest/register', 'Self-registration: name, e-mail, extra fields; a code is mailed (again on a second call)'],
  'verify-code': ['/captive-portal/guest/verify-code', 'Self-registration: the mailed code; the device is registered'],
  sponsor: ['/captive-portal/guest/sponsor', 'Sponsored: ask an employee; poll GET …/guest/status until active or denied'],
  login: ['/captive-portal/guest/login', 'Employee (BYOD) sign-in: registered, or a byod_mfa token for the second factor'],
  account: ['/captive-portal/guest/account', 'An event\'s guest account: username and password'],
  'byod-verify': ['/captive-portal/byod/verify', 'Employee (BYOD) second factor: spends the byod_mfa token (in the body) with a TOTP code'],
  'byod-push': [
    '/captive-portal/byod/push',
    'Employee (BYOD) second factor by a push: charges the byod_mfa token one strike of its five, then sends the push (push_pending with the number to show); 409 BYOD_PUSH_NO_DEVICE, 403 BYOD_PUSH_LOCKED, 409 BYOD_PUSH_RATE_LIMITED, 503 BYOD_PUSH_UNAVAILABLE send nothing',
  ],
  'byod-push-wait': [
    '/captive-portal/byod/push-wait',
    'Employee (BYOD) push: waits up to 20 s for the phone; registered (the token spent), push_pending (ask again), or 401 BYOD_PUSH_DENIED with the reason (denied, wrong_number, reported, expired, cancelled)',
  ],
}

export function guestApiRoutes(c: PortalContext): RouteDefinition[] {
  const step = (action: GuestAction) =>
    defineRoute({
      method: 'POST',
      path: SUMMARY[action][0],
      permission: PUBLIC,
      rateLimit: limitOf(action),
      auditAs: auditOf(action),
      summary: SUMMARY[action][1],
      description: 'Header `X-Guest-Token`: the token of POST /captive-portal/guest/start. An `mfa` token (the API sign-in\'s) at the BYOD verify answers 401 BYOD_MFA_TOKEN_INVALID, as a byod_mfa token does at /mfa/verify.',
      tags: TAGS,
      schema: { body: BODIES[action], response: { 200: Step, ...Errors } },
      handler: async (req) => {
        const { s, portal } = await liveSession(c, req)
        const out = await runAction(c, req, action, portal, s, req.body as ActionInput, langOf(req, s))
        const fresh = (await c.knex('portal_sessions').where({ id: s.id }).first()) ?? out.session
        return {
          session: await view(c, fresh),
          ...(out.byod?.status === 'mfa_required' ? { status: 'mfa_required', byod_mfa_token: out.byod.byod_mfa_token, expires_in: out.byod.expires_in, factors: out.byod.factors } : {}),
          ...(out.byod?.status === 'push_pending'
            ? { status: 'push_pending', byod_mfa_token: out.byod.byod_mfa_token, push_challenge: out.byod.push_challenge, number: out.byod.number, expires_in: out.byod.expires_in }
            : {}),
          ...(out.byod?.status === 'registered' ? { status: 'registered', ...(out.byod.certificate ? { certificate_download_url: out.byod.certificate.download_url, certificate_passphrase: out.byod.certificate.passphrase } : {}) } : {}),
        }
      },
    })

  return [
    defineRoute({
      method: 'POST',
      path: '/captive-portal/guest/start',
      permission: PUBLIC,
      rateLimit: PAGE_LIMIT,
      summary: 'Start a guest session from the NAS\'s redirect',
      description: 'The redirect\'s parameters as the portal page got them (`mac`, `nas`, `ssid`, `sig`: the NAC checks the signature) and the portal\'s slug. Answers the session and its `guest_token`, to send in `X-Guest-Token`; shown once.',
      tags: TAGS,
      schema: {
        body: Type.Object(
          { slug: Text(100), mac: Text(64), nas: Type.Optional(Text(64)), ssid: Type.Optional(Text(300)), sig: Type.Optional(Text(128)), language: Type.Optional(Type.Union([Type.Literal('en'), Type.Literal('ru')])) },
          { additionalProperties: false },
        ),
        response: { 201: Type.Object({ guest_token: Type.String(), session: GuestSession }, { additionalProperties: false }), ...Errors },
      },
      handler: async (req) => {
        const portal = await portalBySlug(c, req.body.slug)
        const { session, token } = await startSession(c, {
          portal,
          redirect: { mac: req.body.mac, nas: req.body.nas, ssid: req.body.ssid, sig: req.body.sig },
          clientIp: req.ip,
          language: req.body.language ?? null,
        })
        return { guest_token: token, session: await view(c, session) }
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/captive-portal/guest/status',
      permission: PUBLIC,
      rateLimit: PAGE_LIMIT,
      summary: 'The guest session\'s current step',
      tags: TAGS,
      schema: { response: { 200: GuestSession, 401: ErrorBody } },
      handler: async (req) => view(c, (await liveSession(c, req)).s),
    }),
    ...(Object.keys(SUMMARY) as GuestAction[]).map(step),
  ] as RouteDefinition[]
}
