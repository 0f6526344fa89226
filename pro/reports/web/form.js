// The report definition's form: create and edit. The server checks everything (the browser's own
// validation is off): its 422 answer names a field (`schedule.cron`, `sources[1]`, `time_range.to`)
// and the detail is shown under that field's input, the input marked invalid.
import { api, h } from './dom.js'

const RANGES = ['last_24h', 'last_7d', 'last_30d', 'last_month', 'custom']
const FORMATS = ['pdf', 'xlsx', 'html']

/** `2026-11-28T10:00:00Z` as the browser's local `2026-11-28T13:00` for a datetime-local input. */
function toLocalInput(iso) {
  if (!iso) return ''
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return ''
  const p = (n) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`
}

const fromLocalInput = (v) => (v ? new Date(v).toISOString() : null)

function browserZone() {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'
  } catch {
    return 'UTC'
  }
}

/**
 * The form as an element. `ctx`: { host, w, sources, deviceGroups, userGroups }; `definition`: the
 * one edited, or null for a new one; `done(saved|null)` when saved or cancelled.
 */
export function definitionForm(ctx, definition, done) {
  const { host, w } = ctx
  const d = definition
  const fields = new Map()
  let seq = 0

  /** A labelled field; `controls` are the inputs marked invalid when its error shows. */
  const field = (key, label, control, controls, hint) => {
    const errId = `pr-err-${key.replace(/[^a-z0-9]+/gi, '-')}`
    const err = h('div', { class: 'pr-error', id: errId, hidden: true })
    const wrap = h('div', { class: 'pr-field', 'data-field': key }, label, control, hint ? h('div', { class: 'pr-muted' }, hint) : null, err)
    fields.set(key, { wrap, err, errId, controls })
    return wrap
  }
  const input = (key, label, attrs, hint) => {
    const id = `pr-in-${++seq}`
    const el = h(attrs.tag || 'input', { id, name: key, type: attrs.tag ? undefined : attrs.type || 'text', ...attrs, tag: undefined })
    return [field(key, h('label', { class: 'pr-label', for: id }, label), el, [el], hint), el]
  }
  const select = (key, label, options, value) => {
    const id = `pr-in-${++seq}`
    const el = h('select', { id, name: key }, options.map(([v, text]) => h('option', { value: v, selected: v === value }, text)))
    return [field(key, h('label', { class: 'pr-label', for: id }, label), el, [el]), el]
  }
  const checks = (key, legend, items) => {
    const boxes = items.map((it) => h('input', { type: 'checkbox', name: key, value: it.value, id: `pr-in-${++seq}`, checked: it.checked }))
    const set = h('fieldset', {}, h('legend', {}, legend),
      items.map((it, i) => h('div', { class: 'pr-check' }, boxes[i], h('label', { for: boxes[i].id }, it.label, it.hint ? h('span', { class: 'pr-muted' }, ` — ${it.hint}`) : null))))
    return [field(key, null, set, boxes), boxes]
  }

  const [nameField, name] = input('name', w.name, { value: d ? d.name : '', maxlength: 128, autocomplete: 'off' })
  const [descField, description] = input('description', w.description, { tag: 'textarea', rows: 2, value: d && d.description ? d.description : '' })
  const sourceItems = ctx.sources.map((s) => ({
    value: s.id,
    label: s.title,
    checked: d ? d.sources.includes(s.id) : false,
    hint: [s.description, s.filters.includes('device_group') ? w.acceptsDevice : null, s.filters.includes('user_group') ? w.acceptsUser : null].filter(Boolean).join('; '),
  }))
  // A source the definition names that the caller cannot list any more still shows, checked, by id.
  if (d) for (const id of d.sources) if (!ctx.sources.some((s) => s.id === id)) sourceItems.push({ value: id, label: id, checked: true })
  const [sourcesField, sourceBoxes] = checks('sources', w.sources, sourceItems)
  if (sourceItems.length === 0) sourcesField.querySelector('fieldset').append(h('p', { class: 'pr-muted' }, w.noSources))
  const range = d ? d.time_range : { relative: 'last_7d' }
  const [rangeField, relative] = select('time_range.relative', w.range, RANGES.map((r) => [r, w.ranges[r]]), range.relative)
  const [fromField, from] = input('time_range.from', w.from, { type: 'datetime-local', value: toLocalInput(range.from) })
  const [toField, to] = input('time_range.to', w.to, { type: 'datetime-local', value: toLocalInput(range.to) })
  const custom = h('div', { class: 'pr-bar' }, fromField, toField)
  const showCustom = () => { custom.hidden = relative.value !== 'custom' }
  relative.addEventListener('change', showCustom)
  showCustom()
  const groupOptions = (groups, current) => {
    const opts = [['', w.anyGroup], ...groups.map((g) => [g.id, g.name])]
    if (current && !groups.some((g) => g.id === current)) opts.push([current, current])
    return opts
  }
  const [deviceField, deviceGroup] = select('device_group_id', w.deviceGroup, groupOptions(ctx.deviceGroups, d && d.device_group_id), d ? d.device_group_id || '' : '')
  const [userField, userGroup] = select('user_group_id', w.userGroup, groupOptions(ctx.userGroups, d && d.user_group_id), d ? d.user_group_id || '' : '')
  const [formatsField, formatBoxes] = checks('formats', w.formats, FORMATS.map((f) => ({ value: f, label: f.toUpperCase(), checked: d ? d.formats.includes(f) : f === 'pdf' })))
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : []
  const [zoneField, zone] = input('time_zone', w.zone, { value: d ? d.time_zone : browserZone(), list: 'pr-zones', autocomplete: 'off' })
  const zoneList = h('datalist', { id: 'pr-zones' }, zones.map((z) => h('option', { value: z })))
  const [languageField, language] = select('language', w.language, [['en', w.languages.en], ['ru', w.languages.ru]], d ? d.language : host.language)
  const scheduled = h('input', { type: 'checkbox', id: `pr-in-${++seq}`, name: 'scheduled', checked: Boolean(d && d.schedule) })
  const [cronField, cron] = input('schedule.cron', w.cron, { value: d && d.schedule ? d.schedule.cron : '0 7 * * 1', autocomplete: 'off', spellcheck: 'false' }, w.cronHint)
  const showCron = () => { cronField.hidden = !scheduled.checked }
  scheduled.addEventListener('change', showCron)
  showCron()
  const [recipientsField, recipients] = input('recipients', w.recipients, { tag: 'textarea', rows: 3, value: d ? d.recipients.join('\n') : '', spellcheck: 'false' }, w.recipientsHint)

  const alert = h('div', { class: 'pr-alert', role: 'alert', hidden: true })
  const save = h('button', { type: 'submit', class: 'pr-primary' }, w.save)
  const form = h('form', { class: 'pr-form', novalidate: true, 'data-testid': 'report-form' },
    h('h2', {}, d ? `${w.edit}: ${d.name}` : w.add),
    alert, nameField, descField, sourcesField, rangeField, custom, deviceField, userField, formatsField, zoneField, zoneList, languageField,
    h('div', { class: 'pr-check' }, scheduled, h('label', { for: scheduled.id }, w.scheduled)), cronField, recipientsField,
    h('div', { class: 'pr-bar' }, save, h('button', { type: 'button', onclick: () => done(null) }, w.cancel)))

  const clearErrors = () => {
    alert.hidden = true
    for (const f of fields.values()) {
      f.err.hidden = true
      f.err.textContent = ''
      for (const c of f.controls) {
        c.removeAttribute('aria-invalid')
        c.removeAttribute('aria-describedby')
      }
    }
  }
  /** The form's field for the API's `field`: `sources[1]` → sources, `schedule.time_zone` → the zone, `time_range` → its kind. */
  const fieldFor = (apiField) => {
    if (!apiField) return null
    const f = String(apiField).replace(/\[\d+\]/g, '')
    if (fields.has(f)) return fields.get(f)
    if (f === 'schedule.time_zone') return fields.get('time_zone')
    const top = f.split('.')[0]
    if (top === 'schedule') return fields.get('schedule.cron')
    if (top === 'time_range') return fields.get('time_range.relative')
    return fields.get(top) || null
  }
  const showError = (body, status) => {
    const detail = body && typeof body.detail === 'string' ? body.detail : status === 0 ? w.offline : w.failed(status)
    const f = fieldFor(body && body.field)
    if (f && !f.wrap.closest('[hidden]')) {
      f.err.textContent = detail
      f.err.hidden = false
      for (const c of f.controls) {
        c.setAttribute('aria-invalid', 'true')
        c.setAttribute('aria-describedby', f.errId)
      }
      f.controls[0].focus()
    } else {
      alert.textContent = detail
      alert.hidden = false
    }
  }

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault()
    clearErrors()
    const zoneValue = zone.value.trim()
    const body = {
      name: name.value,
      description: description.value.trim() === '' ? null : description.value,
      sources: sourceBoxes.filter((b) => b.checked).map((b) => b.value),
      time_range: relative.value === 'custom'
        ? { relative: 'custom', from: fromLocalInput(from.value), to: fromLocalInput(to.value) }
        : { relative: relative.value },
      device_group_id: deviceGroup.value || null,
      user_group_id: userGroup.value || null,
      formats: formatBoxes.filter((b) => b.checked).map((b) => b.value),
      time_zone: zoneValue,
      schedule: scheduled.checked ? { cron: cron.value.trim(), time_zone: zoneValue } : null,
      recipients: recipients.value.split(/[\s,;]+/).map((s) => s.trim()).filter(Boolean),
      language: language.value,
    }
    save.disabled = true
    try {
      const r = d
        ? await api(host, 'PATCH', `/api/v1/reports/definitions/${encodeURIComponent(d.id)}`, body)
        : await api(host, 'POST', '/api/v1/reports/definitions', body)
      if (r.status === 200 || r.status === 201) done(r.body)
      else showError(r.body, r.status)
    } finally {
      save.disabled = false
    }
  })
  return form
}
