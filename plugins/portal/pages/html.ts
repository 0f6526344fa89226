/**
 * HTML built by a tagged template that escapes every value put into it: a guest's name, a portal's
 * texts, an error message. Only fragments built by `html` itself (or `trusted`) go in as they are,
 * so nothing typed by anyone becomes markup by forgetting a call.
 */
const BRAND = Symbol('html')

export interface Html {
  readonly [BRAND]: true
  readonly text: string
}

const make = (text: string): Html => ({ [BRAND]: true, text })

export const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`)

type Value = Html | string | number | null | undefined | false | readonly Value[]

function piece(v: Value): string {
  if (v === null || v === undefined || v === false) return ''
  if (Array.isArray(v)) return v.map(piece).join('')
  if (typeof v === 'object' && BRAND in v) return (v as Html).text
  return escapeHtml(String(v))
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0]
  for (let i = 0; i < values.length; i++) out += piece(values[i]) + strings[i + 1]
  return make(out)
}

/** Markup written in this plugin's code (never data). */
export const trusted = (s: string): Html => make(s)

/** A portal's long text (terms, welcome): escaped, paragraphs at blank lines, line breaks kept. */
export function paragraphs(text: string): Html {
  return html`${text
    .split(/\n\s*\n/)
    .filter((p) => p.trim() !== '')
    .map((p) => html`<p>${p.split('\n').map((l, i) => (i ? html`<br>${l}` : html`${l}`))}</p>`)}`
}
