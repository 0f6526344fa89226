/**
 * The frame of every portal page: language, viewport for phones, the plugin's stylesheet and the
 * portal's colours (both served by the plugin: the pages' Content-Security-Policy allows no inline
 * style or script), a banner with the logo and title, one main landmark, the language switch.
 */
import type { PortalRow } from '../tables.js'
import { html, type Html } from './html.js'
import { pageText, type Lang } from './strings.js'

/** What the pages may load: their own stylesheets and images (the logo), forms posting to this server; nothing else. */
export const PAGE_CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
/** The sponsor wait's page, the one with a script (WAIT_SCRIPT, from this server) that fetches its status page. */
export const WAIT_CSP = "default-src 'none'; style-src 'self'; img-src 'self'; script-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

export const STYLESHEET = '/portal/assets/portal.css'
export const WAIT_SCRIPT = '/portal/assets/wait.js'

/**
 * The sponsor wait, checked again while the guest waits. Only an enhancement: without script the
 * page says to press "Check now". Not a refresh of the page (a meta refresh or a Refresh header):
 * a page that reloads itself on a timer takes the reader's place away from them (WCAG 2.2.1); this
 * leaves the page alone and moves on only once the decision is there.
 */
export const WAIT_JS = `(function () {
  var el = document.querySelector('[data-wait-poll]');
  if (!el) return;
  var url = el.getAttribute('data-wait-poll');
  function check() {
    fetch(url, { credentials: 'same-origin', headers: { Accept: 'text/html' } })
      .then(function (r) { return r.text(); })
      .then(function (text) {
        if (text.indexOf('data-wait-poll') < 0) window.location.assign(url);
        else setTimeout(check, 5000);
      })
      .catch(function () { setTimeout(check, 10000); });
  }
  setTimeout(check, 5000);
})();
`

export interface LayoutOptions {
  lang: Lang
  /** The page's own heading (h1) and window title. */
  heading: string
  portal: PortalRow | null
  body: Html
  /** The page the language switch reloads (path only). */
  path: string
  /** Load WAIT_SCRIPT (the sponsor wait). */
  waitScript?: boolean
}

export const portalTitle = (p: PortalRow, lang: Lang) => p.branding.texts?.[lang]?.title || p.name

export function layout(o: LayoutOptions): Html {
  const t = pageText(o.lang)
  const other: Lang = o.lang === 'en' ? 'ru' : 'en'
  const site = o.portal ? portalTitle(o.portal, o.lang) : 'Portcullis'
  const slug = o.portal ? encodeURIComponent(o.portal.slug) : null
  return html`<!doctype html>
<html lang="${o.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${o.heading} · ${site}</title>
<link rel="stylesheet" href="${STYLESHEET}">
${slug ? html`<link rel="stylesheet" href="${`/portal/${slug}/theme.css`}">` : ''}
${o.waitScript ? html`<script src="${WAIT_SCRIPT}" defer></script>` : ''}
</head>
<body>
<a class="skip" href="#main">${t.skip}</a>
<header class="banner">
${o.portal?.logo_type ? html`<img class="logo" src="${`/portal/${slug}/logo`}" alt="${site}">` : ''}
<p class="site">${site}</p>
</header>
<main id="main">
<h1>${o.heading}</h1>
${o.body}
</main>
<footer>
<nav aria-label="${o.lang === 'ru' ? 'Язык' : 'Language'}"><a href="${`${o.path}${o.path.includes('?') ? '&' : '?'}lang=${other}`}" lang="${other}" hreflang="${other}">${t.switchTo}</a></nav>
</footer>
</body>
</html>
`
}
