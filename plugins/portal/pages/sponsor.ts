/** The sponsor's page (the mailed link): who asks, escaped, and two buttons posting the decision to the same path. */
import { html, type Html } from './html.js'
import { layout } from './layout.js'
import { pageText, type Lang } from './strings.js'

export interface AskingGuest {
  name: string
  email: string
  fields: Record<string, string>
  mac: string
  portal: string
}

const PATH = '/api/v1/captive-portal/sponsor/callback'

export function sponsorPage(lang: Lang, token: string, g: AskingGuest): Html {
  const t = pageText(lang)
  const decide = (decision: 'approve' | 'deny', label: string, cls: string) =>
    html`<form method="post" action="${PATH}"><input type="hidden" name="token" value="${token}"><input type="hidden" name="decision" value="${decision}"><button type="submit" class="${cls}">${label}</button></form>`
  return layout({
    lang,
    heading: t.sponsorPageTitle,
    portal: null,
    path: `${PATH}?token=${encodeURIComponent(token)}`,
    body: html`<p>${t.sponsorAsks}</p>
<dl><dt>${t.name}</dt><dd>${g.name}</dd><dt>${t.email}</dt><dd>${g.email}</dd>
${Object.entries(g.fields).map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}
<dt>${t.device}</dt><dd>${g.mac}</dd><dt>${t.portal}</dt><dd>${g.portal}</dd></dl>
<div class="actions">${decide('approve', t.approve, '')}${decide('deny', t.deny, 'secondary')}</div>`,
  })
}

export function sponsorDonePage(lang: Lang, decision: 'approve' | 'deny'): Html {
  const t = pageText(lang)
  return layout({ lang, heading: decision === 'approve' ? t.approvedTitle : t.deniedByYouTitle, portal: null, path: PATH, body: html`<p role="status">${decision === 'approve' ? t.approved : t.deniedByYou}</p>` })
}
