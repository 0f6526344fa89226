/**
 * What a guest sees at each step of a session: the ways in (a form per method the portal offers),
 * the code form, the wait for the sponsor (reloading itself, no script), the employee's second
 * factor, and the result. Every value is escaped by `html`.
 */
import type { EmployeeFactor } from '../services/byod.js'
import type { PortalRow, SessionRow } from '../tables.js'
import { alert, field, form, type FormState } from './forms.js'
import { html, paragraphs, type Html } from './html.js'
import { layout } from './layout.js'
import { pageText, type Lang } from './strings.js'

export interface ViewContext {
  portal: PortalRow
  lang: Lang
  csrf: string
  session: SessionRow | null
  /** A refused form's values and errors. */
  state?: FormState | null
  /** An error about the page as a whole. */
  message?: string | null
  /** The portal has event guest accounts: show their sign-in. */
  hasAccounts?: boolean
  /** The guest's e-mail (code sent to) or the sponsor's (asked). */
  email?: string | null
  byodMfaToken?: string | null
  /** The second factors the employee may use (absent: a code). */
  factors?: EmployeeFactor[]
  /** A push on its way: the challenge to ask about and the number to show. */
  push?: { challenge: string; number: string | null } | null
  /** The onboarding certificate: its one-time download (POST) and the bundle's passphrase. */
  certificate?: { path: string; passphrase: string } | null
  /** The sponsor's link expired before a decision. */
  sponsorExpired?: boolean
  status?: number
}

const base = (p: PortalRow) => `/portal/${encodeURIComponent(p.slug)}`

/** The page for a session's state (the landing page shows this too once a step was taken). */
export function sessionPage(v: ViewContext): { status: number; body: Html; script: boolean } {
  const t = pageText(v.lang)
  const path = base(v.portal)
  const page = (heading: string, body: Html, waitScript = false) => ({
    status: v.status ?? 200,
    body: layout({ lang: v.lang, heading, portal: v.portal, body: html`${alert(v.message)}${body}`, path, waitScript }),
    script: waitScript,
  })
  const s = v.session
  if (v.byodMfaToken && v.push) return page(t.pushTitle, pushWait(v, v.push))
  if (v.byodMfaToken) return page(t.mfaTitle, mfaForm(v))
  switch (s?.state ?? 'started') {
    case 'pending_code':
      return page(t.codeTitle, codeForm(v))
    case 'pending_approval':
      if (v.sponsorExpired) return page(t.expiredTitle, html`<p>${t.expired}</p>`)
      // "Check now" without script; with it, WAIT_SCRIPT checks every 5 s and moves on once decided.
      return page(t.waitingTitle, html`<p role="status" data-wait-poll="${`${path}/status`}">${t.waiting(v.email ?? '')}</p><p><a href="${`${path}/status`}">${t.refreshNow}</a></p>`, true)
    case 'active':
      return page(t.activeTitle, activeBody(v))
    case 'denied':
      return page(t.deniedTitle, html`<p>${t.denied}</p>`)
    case 'ended':
    case 'expired':
      return page(t.endedTitle, html`<p>${t.expired}</p>`)
    default:
      return page(v.portal.branding.texts?.[v.lang]?.title || v.portal.name, landingBody(v))
  }
}

function activeBody(v: ViewContext): Html {
  const t = pageText(v.lang)
  const until = v.session?.expires_at ? new Date(v.session.expires_at).toLocaleString(v.lang === 'ru' ? 'ru-RU' : 'en-GB', { timeZone: 'UTC', timeZoneName: 'short' }) : null
  return html`<p role="status">${t.active}</p>${until ? html`<p>${t.until(until)}</p>` : ''}
${v.certificate ? html`<h2>${t.certificateTitle}</h2><p>${t.certificate}</p><p>${t.passphrase} <strong><code>${v.certificate.passphrase}</code></strong></p><form method="post" action="${v.certificate.path}"><button type="submit">${t.download}</button></form>` : ''}`
}

function landingBody(v: ViewContext): Html {
  const t = pageText(v.lang)
  const texts = v.portal.branding.texts?.[v.lang] ?? {}
  const path = base(v.portal)
  const f = (form_: string, name: string, label: string, o: { type?: 'text' | 'email' | 'password'; required?: boolean; autocomplete?: string } = {}) =>
    field({ form: form_, name, label, state: v.state ?? null, lang: v.lang, required: o.required ?? true, type: o.type, autocomplete: o.autocomplete })
  const sections: Html[] = []
  for (const m of v.portal.methods) {
    if (m === 'hotspot') {
      const err = v.state?.form === 'hs' ? v.state.errors.accept_terms : undefined
      sections.push(html`<section aria-labelledby="hs-h"><h2 id="hs-h">${t.hotspotTitle}</h2>
${texts.terms ? html`<h3>${t.terms}</h3><div class="terms" tabindex="0" role="region" aria-label="${t.terms}">${paragraphs(texts.terms)}</div>` : ''}
${form(`${path}/hotspot`, v.csrf, html`<label class="check" for="hs-accept_terms"><input type="checkbox" id="hs-accept_terms" name="accept_terms" value="yes" required${err ? html` aria-invalid="true" aria-describedby="hs-accept_terms-error"` : ''}> ${t.acceptTerms}</label>
${err ? html`<p class="error" id="hs-accept_terms-error">${err}</p>` : ''}<button type="submit">${t.connect}</button>`)}</section>`)
    } else if (m === 'self_registration') {
      sections.push(html`<section aria-labelledby="reg-h"><h2 id="reg-h">${t.registerTitle}</h2>
${form(`${path}/register`, v.csrf, html`${f('reg', 'name', t.name, { autocomplete: 'name' })}${f('reg', 'email', t.email, { type: 'email', autocomplete: 'email' })}
${v.portal.self_registration_fields.map((x) => f('reg', `fields.${x.name}`, (v.lang === 'ru' ? x.label.ru : undefined) || x.label.en, { required: x.required }))}
<button type="submit">${t.sendCode}</button>`)}</section>`)
    } else if (m === 'sponsored') {
      sections.push(html`<section aria-labelledby="sp-h"><h2 id="sp-h">${t.sponsorTitle}</h2>
${form(`${path}/sponsor`, v.csrf, html`${f('sp', 'name', t.name, { autocomplete: 'name' })}${f('sp', 'email', t.email, { type: 'email', autocomplete: 'email' })}${f('sp', 'sponsor_email', t.sponsorEmail, { type: 'email' })}
<button type="submit">${t.askSponsor}</button>`)}</section>`)
    } else if (m === 'byod') {
      sections.push(html`<section aria-labelledby="emp-h"><h2 id="emp-h">${t.employeeTitle}</h2>
${form(`${path}/login`, v.csrf, html`${f('emp', 'username', t.username, { autocomplete: 'username' })}${f('emp', 'password', t.password, { type: 'password', autocomplete: 'current-password' })}
<button type="submit">${t.signIn}</button>`)}</section>`)
    }
  }
  if (v.hasAccounts) {
    sections.push(html`<section aria-labelledby="acc-h"><h2 id="acc-h">${t.accountTitle}</h2>
${form(`${path}/account`, v.csrf, html`${f('acc', 'username', t.username, { autocomplete: 'username' })}${f('acc', 'password', t.password, { type: 'password', autocomplete: 'current-password' })}
<button type="submit">${t.signIn}</button>`)}</section>`)
  }
  return html`${paragraphs(texts.welcome || t.welcome)}${sections}`
}

function codeForm(v: ViewContext): Html {
  const t = pageText(v.lang)
  const path = base(v.portal)
  return html`<p>${t.codeSent(v.email ?? '')}</p>
${form(`${path}/verify-code`, v.csrf, html`${field({ form: 'code', name: 'code', label: t.code, state: v.state ?? null, lang: v.lang, required: true, autocomplete: 'one-time-code', inputmode: 'numeric' })}<button type="submit">${t.verify}</button>`)}
<h2>${t.resend}</h2>
${form(`${path}/register`, v.csrf, html`<input type="hidden" name="resend" value="yes"><button type="submit" class="secondary">${t.resend}</button>`, t.resend)}`
}

function mfaForm(v: ViewContext): Html {
  const t = pageText(v.lang)
  const factors = v.factors ?? ['totp']
  const token = html`<input type="hidden" name="byod_mfa_token" value="${v.byodMfaToken ?? ''}">`
  const code = factors.includes('totp')
    ? form(`${base(v.portal)}/byod-verify`, v.csrf, html`${token}
${field({ form: 'mfa', name: 'code', label: t.mfaCode, state: v.state ?? null, lang: v.lang, required: true, autocomplete: 'one-time-code', inputmode: 'numeric' })}<button type="submit">${t.verify}</button>`)
    : html``
  // Its own form: the code input's `required` must not stop it.
  const push = factors.includes('push')
    ? html`${factors.includes('totp') ? html`<h2>${t.orPush}</h2>` : ''}${form(`${base(v.portal)}/byod-push`, v.csrf, html`${token}<button type="submit"${factors.includes('totp') ? html` class="secondary"` : ''}>${t.sendPush}</button>`, t.sendPush)}`
    : html``
  return html`${code}${push}`
}

/**
 * The push on its way: the number the phone asks for, big, and the button that asks the server
 * (which waits up to 20 s for the phone). No script and no refresh: the per-page CSP stays.
 */
function pushWait(v: ViewContext, p: { challenge: string; number: string | null }): Html {
  const t = pageText(v.lang)
  const token = html`<input type="hidden" name="byod_mfa_token" value="${v.byodMfaToken ?? ''}">`
  return html`${p.number ? html`<p>${t.pushNumber}</p><p class="push-number"><strong data-push-number>${p.number}</strong></p>` : ''}
<p>${t.pushHint}</p>
${form(`${base(v.portal)}/byod-push-wait`, v.csrf, html`${token}<input type="hidden" name="push_challenge" value="${p.challenge}"><input type="hidden" name="number" value="${p.number ?? ''}"><button type="submit">${t.pushCheck}</button>`, t.pushCheck)}`
}

/** A page for a failure before any session (no portal, a bad redirect): the message alone. */
export function errorPage(portal: PortalRow | null, lang: Lang, message: string, path: string): Html {
  const t = pageText(lang)
  return layout({ lang, heading: t.errorTitle, portal, body: alert(message), path })
}
