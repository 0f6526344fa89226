/**
 * The portal's test kit: an app with the NAC, the portal and MFA on a real database, a real SMTP
 * listener, a signed redirect as FreeRADIUS makes it, a guest's browser (one cookie, forms posted
 * URL-encoded, redirects not followed) and the guest JSON API. Each guest comes from an address of
 * its own (X-Forwarded-For, TRUST_PROXY), so the per-IP limits of one test do not spill into another.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { expect } from 'chai'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { startSmtp, type TestSmtp } from '../../../test/kit/smtp.js'
import { signPortalRedirect as portalSignature } from '../../../test/kit/portal-redirect.js'

export const REDIRECT_KEY = 'k'.repeat(20) + randomBytes(16).toString('base64url')
export const PUBLIC_URL = 'https://nac.example.test'

/** The database as a test reads it: rows checked by the assertions, not by the table types. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test rows
export const db = (t: TestApp) => t.app.db.knex as unknown as (table: string) => any

export interface PortalApp {
  t: TestApp
  smtp: TestSmtp
  stop(): Promise<void>
}

export async function startPortalApp(plugins: string[] = ['nac', 'portal', 'mfa'], o: { env?: Record<string, string>; options?: Record<string, unknown> } = {}): Promise<PortalApp> {
  const smtp = await startSmtp()
  const t = await startTestApp({ plugins, env: { TRUST_PROXY: 'true', DOCS_ENABLED: 'true', ...o.env }, ...(o.options ? { options: o.options } : {}) })
  const settings: Record<string, unknown> = {
    'mail.smtp_host': '127.0.0.1',
    'mail.smtp_port': smtp.port,
    'mail.smtp_tls': 'none',
    'identity.public_url': PUBLIC_URL,
    'nac.portal_redirect_key': REDIRECT_KEY,
  }
  for (const [key, value] of Object.entries(settings)) {
    const r = await t.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })
    expect(r.status, `${key}: ${r.text}`).to.equal(200)
  }
  return { t, smtp, stop: async () => { await t.stop(); await smtp.stop() } }
}

let n = 0
/** A MAC and a client address no other test uses. */
export const freshMac = () => `02:00:${randomBytes(4).toString('hex').match(/../g)!.join(':')}`
export const freshIp = () => { n++; return `10.${(n >> 8) & 255}.${n & 255}.${1 + Math.floor(Math.random() * 250)}` }

export async function createGroup(t: TestApp): Promise<string> {
  const r = await t.admin('POST', '/api/v1/nac/endpoint-groups', { body: { name: `grp-${randomUUID().slice(0, 8)}` } })
  expect(r.status, r.text).to.equal(201)
  return r.body.id
}

/** A portal row (the admin API is part B's; the guest's side reads the same table). */
export async function createPortal(t: TestApp, o: Record<string, unknown> = {}): Promise<any> {
  const slug = `p-${randomUUID().slice(0, 8)}`
  const row = {
    name: slug,
    slug,
    methods: JSON.stringify(['hotspot', 'self_registration', 'sponsored', 'byod']),
    guest_endpoint_group_id: await createGroup(t),
    byod_endpoint_group_id: await createGroup(t),
    sponsor_domains: JSON.stringify(['example.com']),
    ...Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v === 'object' && v !== null ? JSON.stringify(v) : v])),
  }
  const [p] = await db(t)('portal_portals').insert(row).returning('*')
  return p
}

/** The query FreeRADIUS appends to a portal profile's url-redirect, signed with the platform's key. */
export function signedRedirect(mac: string, nas = '192.0.2.10', ssid = 'aa-bb-cc-dd-ee-ff:Guest WiFi', key = REDIRECT_KEY) {
  return { mac, nas, ssid, sig: portalSignature(key, mac, nas, ssid) }
}

export const qs = (q: Record<string, string>) => new URLSearchParams(q).toString()

export interface Page {
  status: number
  headers: Headers
  html: string
}

/** A guest's browser: one address, the portal cookie, forms posted as a browser posts them. */
export class Browser {
  cookie: string | null = null
  readonly ip = freshIp()
  constructor(private readonly t: TestApp, private readonly lang = 'en') {}

  async request(method: string, path: string, form?: Record<string, string>, extra: Record<string, string> = {}): Promise<Page> {
    const headers: Record<string, string> = { 'x-forwarded-for': this.ip, 'accept-language': this.lang, ...extra }
    if (this.cookie) headers.cookie = this.cookie
    let body: string | undefined
    if (form) {
      body = new URLSearchParams(form).toString()
      headers['content-type'] = 'application/x-www-form-urlencoded'
    }
    const res = await fetch(this.t.url + path, { method, headers, body, redirect: 'manual' })
    const set = res.headers.get('set-cookie')
    if (set) this.cookie = set.split(';')[0]
    return { status: res.status, headers: res.headers, html: await res.text() }
  }

  get = (path: string) => this.request('GET', path)
  post = (path: string, form: Record<string, string>) => this.request('POST', path, form)

  /** Posts a form of the page with its CSRF token. */
  async submit(page: Page, path: string, form: Record<string, string>): Promise<Page> {
    return this.post(path, { csrf: csrfOf(page.html), ...form })
  }
}

export function csrfOf(html: string): string {
  const m = /<input type="hidden" name="csrf" value="([^"]+)">/.exec(html)
  expect(m, 'the page has a form with a CSRF token').to.not.equal(null)
  return m![1]
}

/** The text of an element by id (no markup inside). */
export function textOf(html: string, id: string): string | null {
  const m = new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(html)
  return m ? m[1] : null
}

/** The guest JSON API as an app would call it. */
export class GuestApi {
  token: string | null = null
  readonly ip = freshIp()
  constructor(private readonly t: TestApp) {}

  async call(method: string, path: string, body?: unknown, token = this.token): Promise<any> {
    const headers: Record<string, string> = { 'x-forwarded-for': this.ip }
    if (token) headers['x-guest-token'] = token
    return this.t.req(method, `/api/v1/captive-portal${path}`, { body, headers })
  }

  async start(slug: string, mac: string, extra: Record<string, string> = {}): Promise<any> {
    const r = await this.call('POST', '/guest/start', { slug, ...signedRedirect(mac), ...extra }, null)
    expect(r.status, r.text).to.equal(201)
    this.token = r.body.guest_token
    return r.body.session
  }
}

/** The endpoint the NAC has for a MAC (through the admin API). */
export async function endpointOf(t: TestApp, mac: string): Promise<any> {
  const r = await t.admin('GET', `/api/v1/nac/endpoints?mac=${encodeURIComponent(mac)}`)
  expect(r.status, r.text).to.equal(200)
  return r.body.items.find((e: any) => e.mac === mac) ?? null
}
