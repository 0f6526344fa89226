/**
 * The captive portal (issue 29): what a crowd of guests costs, and how long an approved guest waits.
 *
 * The default edition in this process (bench/lib/bench-app.ts: a throwaway PostgreSQL, production
 * defaults, TRUST_PROXY on so that each request can come from its own guest address through
 * X-Forwarded-For, as behind the bundled front end), a portal offering hotspot and sponsored access.
 *
 * 1. The landing page under BENCH_GUESTS (default 200) concurrent guests: autocannon (in this process:
 *    the load generator shares the two cores with the server), one connection a guest, every request
 *    a new guest (a fresh MAC with its redirect signed as FreeRADIUS signs it, its own client address):
 *    the page checks the signature, starts a portal session (a row, a token, the cookie) and renders
 *    the branded HTML. The **bound**: a static file the same server serves (the portal's stylesheet),
 *    same connections, same duration, interleaved over BENCH_ROUNDS rounds (the better round of each
 *    kept). p50/p95/p99 and requests per second; ratio landing/static at p95.
 * 2. From "approved" to the CoA leaving the platform: BENCH_APPROVALS (default 50) guests, each
 *    started and asking a sponsor through the guest JSON API; the sponsor's decision (POST
 *    /captive-portal/approvals/{id}/decision, approve) is timed from just before the request to the
 *    CoA-Request's arrival at a loopback NAS (test/kit/coa-nas.ts, in this process). The registration
 *    puts the endpoint in the portal's group, which FreeRADIUS reads from its rendered tree: the
 *    platform deploys (render, `freeradius -C` when installed, activate) and the CoA leaves once the
 *    release is active. a) one approval after the other (what one guest waits), b) all at once (a
 *    crowd: the deploys coalesce). **Bounds** in the same run: an administrator's CoA for an endpoint
 *    (`POST /api/v1/nac/endpoints/{id}/coa`, goes at once) to its arrival, and a FreeRADIUS deploy
 *    (`POST /api/v1/deploys`). Target: approved → CoA under 1 s at p95.
 *
 * Figures only: nothing fails on a timing. Run: node --import tsx bench/portal.ts
 * (BENCH_GUESTS, default 200; BENCH_DURATION seconds a case, default 10; BENCH_ROUNDS, default 2;
 * BENCH_APPROVALS, default 50).
 */
import { randomBytes } from 'node:crypto'
import autocannon from 'autocannon'
import { signPortalRedirect as portalSignature } from '../test/kit/portal-redirect.js'
import { LoopbackNas } from '../test/kit/coa-nas.js'
import { startSmtp } from '../test/kit/smtp.js'
import { startBenchApp } from './lib/bench-app.js'
import { envInt, envSeconds, f2, fmtStats, loadAvg, machine, pct, runAsMain, stats, type Stats } from './lib.js'

const SECRET = 'bench-portal-secret'
const KEY = randomBytes(32).toString('base64url')
const NAS_IP = '127.0.0.1'
const SSID = '00-00-5E-00-53-01:Lobby'

const mac = () => ['02', ...randomBytes(5).toString('hex').match(/../g)!].join(':')
let guestIp = 0
/** A guest's own address (10.0.0.0/8: 16 million of them), as the front end's X-Forwarded-For gives it. */
const nextGuestIp = () => {
  guestIp++
  return `10.${(guestIp >> 16) & 255}.${(guestIp >> 8) & 255}.${guestIp & 255}`
}
const redirectQuery = (m: string) => `mac=${encodeURIComponent(m)}&nas=${NAS_IP}&ssid=${encodeURIComponent(SSID)}&sig=${portalSignature(KEY, m, NAS_IP, SSID)}`

export interface PortalBenchResult {
  guests: number
  landing: { p50: number; p95: number; p99: number; rps: number }
  static: { p50: number; p95: number; p99: number; rps: number }
  ratioP95: number
  approvedToCoa: { sequential: Stats; burst: Stats; adminCoa: Stats; deploy: Stats }
}

export async function runPortal(o: { printMachine?: boolean } = {}): Promise<PortalBenchResult> {
  const m = machine()
  if (o.printMachine !== false) console.log(m.line)
  console.log(`load average before: ${loadAvg()}`)
  const GUESTS = envInt('BENCH_GUESTS', 200)
  const DURATION = envSeconds('BENCH_DURATION', 10)
  const ROUNDS = envInt('BENCH_ROUNDS', 2)
  const APPROVALS = envInt('BENCH_APPROVALS', 50)
  const b = await startBenchApp('portal', { env: { TRUST_PROXY: 'true' } })
  const nas = await LoopbackNas.start('127.0.0.1', SECRET)
  // The sponsors' mails go to a real SMTP listener on loopback (test/kit/smtp.ts).
  const smtp = await startSmtp()
  try {
    const api = async (method: string, p: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(b.app.url + p, { method, headers: { authorization: `Bearer ${b.token}`, 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) })
      const text = await res.text()
      if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${text}`)
      return (text ? JSON.parse(text) : {}) as any
    }
    const setting = (key: string, value: unknown) => api('PUT', `/api/v1/settings/${key}`, { value })
    await setting('nac.portal_redirect_key', KEY)
    for (const [key, value] of Object.entries({ 'mail.smtp_host': '127.0.0.1', 'mail.smtp_port': smtp.port, 'mail.smtp_tls': 'none', 'identity.public_url': b.app.url })) await setting(key, value)
    const sw = await api('POST', '/api/v1/devices', { name: 'sw1', address: `${NAS_IP}/32`, radius_secret: SECRET })
    await api('PUT', `/api/v1/nac/coa-nas/${sw.id}`, { port: nas.port })
    const guests = await api('POST', '/api/v1/nac/endpoint-groups', { name: 'guests' })
    const guestVlan = await api('POST', '/api/v1/nac/authorization-profiles', { name: 'guest-vlan', vlan: 50 })
    await api('POST', '/api/v1/nac/policy/rules', { name: 'guests', conditions: [{ type: 'method', methods: ['mab'] }, { type: 'endpoint_group', group_ids: [guests.id] }], authorization_profile_id: guestVlan.id })
    await api('POST', '/api/v1/captive-portal/portals', {
      name: 'Lobby',
      slug: 'lobby',
      methods: ['hotspot', 'sponsored'],
      guest_endpoint_group_id: guests.id,
      guest_minutes: 60,
      sponsor_domains: ['example.test'],
      branding: { primary_colour: '#1a7f5a', texts: { en: { title: 'Lobby Wi-Fi', welcome: 'Welcome to the lobby network.', terms: 'Be nice to the network.' } } },
    })
    await api('POST', '/api/v1/deploys', { daemon: 'freeradius', comment: 'bench portal' })

    // ---- 1. the landing page vs a static file ----
    console.log(`\n1. The landing page, ${GUESTS} concurrent guests (each request a new guest), vs a static file of the same server; ${DURATION} s a case, ${ROUNDS} rounds`)
    const load = async (path: () => string) => {
      const lat: number[] = []
      let bad = 0
      const inst = autocannon({
        url: b.app.url,
        connections: GUESTS,
        pipelining: 1,
        duration: DURATION,
        timeout: 30,
        requests: [{ method: 'GET', setupRequest: (req) => ({ ...req, path: path(), headers: { ...req.headers, 'x-forwarded-for': nextGuestIp(), 'accept-language': 'en' } }) }],
      })
      inst.on('response', (_c, status, _b, t) => (status === 200 ? lat.push(t) : bad++))
      const r = await inst
      if (bad || r.errors || r.timeouts) throw new Error(`${bad} answers not 200, ${r.errors} errors, ${r.timeouts} timeouts`)
      return { p50: pct(lat, 50), p95: pct(lat, 95), p99: pct(lat, 99), rps: r.requests.average }
    }
    const landingPath = () => `/portal/lobby?${redirectQuery(mac())}`
    // One guest first: the page must be the landing page, not an error page.
    const first = await fetch(b.app.url + landingPath(), { headers: { 'x-forwarded-for': nextGuestIp() } })
    const html = await first.text()
    if (first.status !== 200 || !html.includes('Lobby Wi-Fi')) throw new Error(`the landing page: ${first.status} ${html.slice(0, 300)}`)
    const css = /<link[^>]+href="([^"]+\.css)"/.exec(html)?.[1] ?? '/portal/assets/portal.css'
    if ((await fetch(b.app.url + css)).status !== 200) throw new Error(`the stylesheet ${css} is not served`)
    let landing: PortalBenchResult['landing'] | null = null
    let stat: PortalBenchResult['static'] | null = null
    for (let r = 0; r < ROUNDS; r++) {
      const s = await load(() => css)
      const l = await load(landingPath)
      console.log(`   round ${r + 1}: static ${css} p95 ${f2(s.p95)} ms (${Math.round(s.rps)}/s); landing p95 ${f2(l.p95)} ms (${Math.round(l.rps)}/s)`)
      if (!stat || s.p95 < stat.p95) stat = s
      if (!landing || l.p95 < landing.p95) landing = l
    }
    const sessions = await b.client.query('SELECT count(*)::int AS n FROM portal_sessions')
    console.log(`   static file (bound): p50 ${f2(stat!.p50)} ms, p95 ${f2(stat!.p95)} ms, p99 ${f2(stat!.p99)} ms, ${Math.round(stat!.rps)} requests/s`)
    console.log(`   landing page:        p50 ${f2(landing!.p50)} ms, p95 ${f2(landing!.p95)} ms, p99 ${f2(landing!.p99)} ms, ${Math.round(landing!.rps)} requests/s`)
    console.log(`   ratio landing/static at p95: ${f2(landing!.p95 / stat!.p95)}; ${sessions.rows[0].n} portal sessions started`)

    // ---- 2. approved → CoA ----
    console.log(`\n2. From the sponsor's "approve" to the CoA-Request at the NAS (${APPROVALS} guests)`)
    /** A guest seen at the switch (the ingester's sighting of the redirect's MAB) asking a sponsor; the sponsor request's id. */
    const asking = async (i: number): Promise<{ mac: string; requestId: string }> => {
      const g = mac()
      await b.client.query(`INSERT INTO nac_endpoints (mac, last_nas_ip, last_nas_port, last_seen_at, first_seen_at, last_auth_result) VALUES ($1, $2, 'Gi1/0/7', now(), now(), 'accept')`, [g, NAS_IP])
      const ip = { 'x-forwarded-for': nextGuestIp() }
      const start = await api('POST', '/api/v1/captive-portal/guest/start', { slug: 'lobby', mac: g, nas: NAS_IP, ssid: SSID, sig: portalSignature(KEY, g, NAS_IP, SSID) }, ip)
      const email = `guest-${i}-${randomBytes(3).toString('hex')}@visitor.example`
      await api('POST', '/api/v1/captive-portal/guest/sponsor', { name: `Guest ${i}`, email, sponsor_email: 'host@example.test' }, { ...ip, 'x-guest-token': start.guest_token })
      const pending = await api('GET', '/api/v1/captive-portal/approvals?per_page=100')
      const request = (pending.items as any[]).find((x) => x.guest_email === email)
      if (!request) throw new Error(`no pending approval for ${email}: ${JSON.stringify(pending).slice(0, 500)}`)
      return { mac: g, requestId: request.id }
    }
    const approve = async (g: { mac: string; requestId: string }): Promise<number> => {
      const from = nas.received.length
      const t0 = performance.now()
      await api('POST', `/api/v1/captive-portal/approvals/${g.requestId}/decision`, { decision: 'approve' })
      const coa = await nas.waitForMac(g.mac, { from, ms: 60_000 })
      return coa.at - t0
    }
    const sequential: number[] = []
    for (let i = 0; i < APPROVALS; i++) sequential.push(await approve(await asking(i)))
    console.log(`   a) one after the other: ${fmtStats(stats(sequential))}`)
    // The crowd asks one after the other (not timed: one pg client seeds the sightings), then is approved at once.
    const crowd: { mac: string; requestId: string }[] = []
    for (let i = 0; i < APPROVALS; i++) crowd.push(await asking(APPROVALS + i))
    const burst = await Promise.all(crowd.map(approve))
    console.log(`   b) all ${APPROVALS} at once: ${fmtStats(stats(burst))}`)

    const endpointIds = (await b.client.query('SELECT id FROM nac_endpoints WHERE endpoint_group_id IS NOT NULL LIMIT $1', [APPROVALS])).rows.map((r) => r.id as string)
    const adminCoa: number[] = []
    for (const id of endpointIds) {
      const row = (await b.client.query('SELECT mac FROM nac_endpoints WHERE id = $1', [id])).rows[0]
      const from = nas.received.length
      const t0 = performance.now()
      await api('POST', `/api/v1/nac/endpoints/${id}/coa`, { action: 'reauthenticate' })
      adminCoa.push((await nas.waitForMac(row.mac, { from })).at - t0)
    }
    const deploy: number[] = []
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now()
      await api('POST', '/api/v1/deploys', { daemon: 'freeradius', comment: `bench bound ${i}` })
      deploy.push(performance.now() - t0)
    }
    console.log(`   bound: an administrator's CoA, request → arrival: ${fmtStats(stats(adminCoa))}`)
    console.log(`   bound: a FreeRADIUS deploy (POST /api/v1/deploys): ${fmtStats(stats(deploy))}`)
    const seq = stats(sequential)
    console.log(`   approved → CoA p95 ${f2(seq.p95)} ms (target < 1000 ms); ratio to deploy + admin CoA (p95): ${f2(seq.p95 / (pct(deploy, 95) + pct(adminCoa, 95)))}`)
    console.log(`\nload average after: ${loadAvg()}`)
    return { guests: GUESTS, landing: landing!, static: stat!, ratioP95: landing!.p95 / stat!.p95, approvedToCoa: { sequential: seq, burst: stats(burst), adminCoa: stats(adminCoa), deploy: stats(deploy) } }
  } finally {
    nas.close()
    await smtp.stop()
    await b.stop()
  }
}

runAsMain(import.meta.url, () => runPortal())
