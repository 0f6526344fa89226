// Small helpers of the reports page (plain browser JS, no build step; docs/ui.md "A plugin's pages").
// Every text goes into the page as a text node or an attribute value, never as markup: a report
// name or an error detail holding `<script>` shows as those characters.

/** An element: `attrs` are attributes, `on…` functions are listeners; children are nodes or text. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v)
    else if (k === 'value') el.value = v
    else if (k === 'checked') el.checked = Boolean(v)
    else el.setAttribute(k, v === true ? '' : String(v))
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c instanceof Node ? c : String(c))
  return el
}

/** Calls the API: `{ status, body }`, body parsed when JSON; a network failure answers status 0. */
export async function api(host, method, path, body, signal) {
  const init = { method, signal, headers: {} }
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json'
    init.body = JSON.stringify(body)
  }
  let r
  try {
    r = await host.fetch(path, init)
  } catch (e) {
    if (e && e.name === 'AbortError') throw e
    return { status: 0, body: null }
  }
  const type = r.headers.get('Content-Type') || ''
  const parsed = type.includes('json') ? await r.json().catch(() => null) : null
  return { status: r.status, body: parsed }
}

/** A file from the API saved under the name the server gives (the token rides in a header, so no plain link). */
export async function download(host, path, fallbackName) {
  const r = await host.fetch(path)
  if (!r.ok) {
    const body = await r.json().catch(() => null)
    throw new Error((body && body.detail) || `HTTP ${r.status}`)
  }
  const disposition = r.headers.get('Content-Disposition') || ''
  const m = /filename="([^"]+)"/.exec(disposition)
  const blob = await r.blob()
  const href = URL.createObjectURL(blob)
  const a = h('a', { href, download: m ? m[1] : fallbackName, hidden: true })
  document.body.append(a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(href), 60_000)
}

/** A time stamp in the reader's language and zone. */
export function when(iso, language) {
  if (!iso) return '—'
  const d = new Date(iso)
  return Number.isNaN(d.getTime()) ? String(iso) : d.toLocaleString(language === 'ru' ? 'ru-RU' : 'en-GB', { dateStyle: 'medium', timeStyle: 'short' })
}

export function size(bytes) {
  if (bytes < 1024) return `${bytes} B`
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`
}

/** The page's look, scoped under .pr-root; the console's CSP allows inline styles. */
export const CSS = `
.pr-root { max-width: 1200px; font-size: 14px; }
.pr-root [hidden] { display: none !important; }
.pr-root h1 { font-size: 26px; margin: 0 0 12px 0; }
.pr-root h2 { font-size: 19px; margin: 20px 0 8px 0; }
.pr-bar { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; margin: 8px 0; }
.pr-root button { font: inherit; padding: 5px 12px; border-radius: 4px; border: 1px solid #1c7ed6; background: #fff; color: #1c7ed6; cursor: pointer; }
.pr-root button.pr-primary { background: #1c7ed6; color: #fff; }
.pr-root button.pr-danger { border-color: #e03131; color: #e03131; }
.pr-root button.pr-danger.pr-primary { background: #e03131; color: #fff; }
.pr-root button:disabled { opacity: .5; cursor: default; }
.pr-root table { border-collapse: collapse; width: 100%; }
.pr-root th, .pr-root td { text-align: left; padding: 6px 8px; border-bottom: 1px solid #dee2e6; vertical-align: top; }
.pr-root th { background: #f1f3f5; }
.pr-muted { color: #666; font-size: 12px; }
.pr-alert { padding: 8px 12px; border-radius: 4px; margin: 8px 0; background: #fff5f5; color: #c92a2a; border: 1px solid #ffc9c9; }
.pr-info { background: #e7f5ff; color: #1864ab; border-color: #a5d8ff; }
.pr-form { display: grid; gap: 14px; max-width: 760px; }
.pr-field label.pr-label, .pr-field legend { display: block; font-weight: 600; margin-bottom: 4px; }
.pr-field input[type=text], .pr-field input[type=datetime-local], .pr-field select, .pr-field textarea { font: inherit; width: 100%; box-sizing: border-box; padding: 5px 8px; border: 1px solid #ced4da; border-radius: 4px; }
.pr-field [aria-invalid=true] { border-color: #e03131; }
.pr-field fieldset { border: 1px solid #dee2e6; border-radius: 4px; padding: 8px 12px; margin: 0; }
.pr-check { display: flex; gap: 6px; align-items: baseline; margin: 2px 0; }
.pr-error { color: #e03131; font-size: 13px; margin-top: 3px; }
.pr-state { font-weight: 600; }
.pr-state-done { color: #2b8a3e; } .pr-state-failed { color: #e03131; } .pr-state-running, .pr-state-queued { color: #1864ab; }
.pr-dialog-back { position: fixed; inset: 0; background: rgba(0,0,0,.35); display: flex; align-items: center; justify-content: center; z-index: 1000; }
.pr-dialog { background: #fff; padding: 18px 20px; border-radius: 6px; max-width: 460px; box-shadow: 0 4px 24px rgba(0,0,0,.25); }
`
