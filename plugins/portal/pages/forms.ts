/** Form pieces: every input has its label, a wrong one says so next to it (aria-describedby), every form carries the CSRF token. */
import { html, type Html } from './html.js'
import { pageText, type Lang } from './strings.js'

/** What a refused form brings back: the values typed (never a password) and the field errors. */
export interface FormState {
  form: string
  values: Record<string, string>
  errors: Record<string, string>
}

export interface FieldSpec {
  form: string
  name: string
  label: string
  type?: 'text' | 'email' | 'password'
  required?: boolean
  autocomplete?: string
  inputmode?: 'numeric'
  state: FormState | null
  lang: Lang
}

export function field(f: FieldSpec): Html {
  const id = `${f.form}-${f.name.replace(/[^a-z0-9_-]/gi, '_')}`
  const mine = f.state?.form === f.form ? f.state : null
  const err = mine?.errors[f.name]
  const value = f.type === 'password' ? '' : (mine?.values[f.name] ?? '')
  const t = pageText(f.lang)
  return html`<label for="${id}">${f.label}${f.required ? html` <span class="req">(${t.required})</span>` : ''}</label>
<input id="${id}" name="${f.name}" type="${f.type ?? 'text'}" value="${value}"${f.required ? html` required` : ''}${f.autocomplete ? html` autocomplete="${f.autocomplete}"` : ''}${f.inputmode ? html` inputmode="${f.inputmode}" pattern="[0-9]{6}" maxlength="6"` : ''}${err ? html` aria-invalid="true" aria-describedby="${`${id}-error`}"` : ''}>
${err ? html`<p class="error" id="${`${id}-error`}">${err}</p>` : ''}`
}

/** A form posting to the portal, with the session's CSRF token. */
export function form(action: string, csrf: string, inner: Html, label?: string): Html {
  return html`<form method="post" action="${action}"${label ? html` aria-label="${label}"` : ''}>
<input type="hidden" name="csrf" value="${csrf}">
${inner}
</form>`
}

/** A message about the whole form or page (an error the guest must read first). */
export const alert = (message: string | null | undefined): Html => (message ? html`<div class="alert" role="alert"><p class="error">${message}</p></div>` : html``)
