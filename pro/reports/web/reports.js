// The console's Reports page (pro-reports; docs/reports.md, docs/ui.md "A plugin's pages"): the
// definitions, their form, "run now", the runs with their state and files, delete after an
// in-page confirmation. Plain DOM, no build step; it talks only to /api/v1/reports/* (and reads
// the group lists for the form's choices). Every text from the server is put in as text.
import { api, CSS, download, h, size, when } from './dom.js'
import { definitionForm } from './form.js'
import { wordsFor } from './words.js'

const POLL_MS = 1500

export function mount(element, host) {
  const w = wordsFor(host.language)
  const canWrite = host.can('reports.write')
  const ctrl = new AbortController()
  let pollTimer = null
  let alive = true
  const state = { sources: [], deviceGroups: [], userGroups: [], definitions: [], runsOf: null }

  const notice = h('div', { class: 'pr-alert pr-info', role: 'status', hidden: true })
  const problem = h('div', { class: 'pr-alert', role: 'alert', hidden: true })
  const main = h('div')
  const runsBox = h('section', { 'data-testid': 'report-runs' })
  const root = h('div', { class: 'pr-root' }, h('style', {}, CSS), h('h1', {}, w.title), h('p', { class: 'pr-muted' }, w.intro), notice, problem, main, runsBox)
  element.append(root)

  const say = (text) => {
    problem.hidden = true
    notice.textContent = text
    notice.hidden = !text
  }
  const fail = (r) => {
    notice.hidden = true
    problem.textContent = (r.body && typeof r.body.detail === 'string' && r.body.detail) || (r.status === 0 ? w.offline : w.failed(r.status))
    problem.hidden = false
  }
  const get = (path) => api(host, 'GET', path, undefined, ctrl.signal)
  const sourceTitle = (id) => (state.sources.find((s) => s.id === id) || { title: id }).title

  async function loadDefinitions() {
    const r = await get('/api/v1/reports/definitions?per_page=100&sort_by=name')
    if (!alive) return
    if (r.status !== 200) return fail(r)
    state.definitions = r.body.items
    showList()
  }

  function showList() {
    const rows = state.definitions.map((d) => h('tr', { 'data-definition': d.id },
      h('td', {}, h('strong', {}, d.name), d.description ? h('div', { class: 'pr-muted' }, d.description) : null),
      h('td', {}, d.sources.map(sourceTitle).join(', ')),
      h('td', {}, d.formats.map((f) => f.toUpperCase()).join(', ')),
      h('td', {}, d.schedule ? `${d.schedule.cron} (${d.schedule.time_zone})` : w.byHand),
      h('td', {}, d.next_run_at ? when(d.next_run_at, host.language) : '—'),
      h('td', {}, h('div', { class: 'pr-bar' },
        canWrite ? h('button', { type: 'button', class: 'pr-primary', onclick: () => runNow(d) }, w.runNow) : null,
        h('button', { type: 'button', onclick: () => showRuns(d) }, w.runs),
        canWrite ? h('button', { type: 'button', onclick: () => showForm(d) }, w.edit) : null,
        canWrite ? h('button', { type: 'button', class: 'pr-danger', onclick: () => confirmDelete(d) }, w.del) : null))))
    main.replaceChildren(
      canWrite ? h('div', { class: 'pr-bar' }, h('button', { type: 'button', class: 'pr-primary', onclick: () => showForm(null) }, w.add)) : null,
      state.definitions.length === 0
        ? h('p', {}, w.none)
        : h('table', { 'data-testid': 'report-definitions' },
          h('thead', {}, h('tr', {}, [w.name, w.sources, w.formats, w.schedule, w.nextRun, ''].map((t) => h('th', {}, t)))),
          h('tbody', {}, rows)))
  }

  function showForm(definition) {
    stopPolling()
    runsBox.replaceChildren()
    say('')
    main.replaceChildren(definitionForm({ host, w, sources: state.sources, deviceGroups: state.deviceGroups, userGroups: state.userGroups }, definition, async (saved) => {
      if (saved) say(w.created)
      await loadDefinitions()
      if (saved) showRuns(saved)
    }))
    main.querySelector('input[name="name"]')?.focus()
  }

  async function runNow(d) {
    const r = await api(host, 'POST', `/api/v1/reports/definitions/${encodeURIComponent(d.id)}/runs`, undefined, ctrl.signal)
    if (r.status !== 202) return fail(r)
    say(w.started)
    await showRuns(d)
  }

  async function showRuns(d) {
    state.runsOf = d
    await refreshRuns()
  }

  async function refreshRuns() {
    stopPolling()
    const d = state.runsOf
    if (!d) return
    const r = await get(`/api/v1/reports/runs?definition_id=${encodeURIComponent(d.id)}&per_page=20`)
    if (!alive || state.runsOf !== d) return
    if (r.status !== 200) return fail(r)
    const runs = r.body.items
    runsBox.replaceChildren(h('h2', {}, w.runsOf(d.name)), runs.length === 0 ? h('p', {}, w.noRuns) : runsTable(runs))
    if (runs.some((x) => x.state === 'queued' || x.state === 'running')) pollTimer = setTimeout(() => refreshRuns().catch(() => {}), POLL_MS)
  }

  function runsTable(runs) {
    const rows = runs.map((run) => h('tr', { 'data-run': run.id, 'data-state': run.state },
      h('td', {}, when(run.queued_at, host.language)),
      h('td', {}, w.triggers[run.trigger] || run.trigger, run.actor_name ? h('div', { class: 'pr-muted' }, run.actor_name) : null),
      h('td', {}, h('span', { class: `pr-state pr-state-${run.state}` }, w.states[run.state] || run.state),
        run.error_detail ? h('div', { class: 'pr-error' }, run.error_detail) : null),
      h('td', {}, run.row_counts.map((c) => h('div', {}, `${sourceTitle(c.source)}: ${c.rows.toLocaleString(host.language === 'ru' ? 'ru-RU' : 'en-US')}`,
        c.truncated ? h('span', { class: 'pr-muted' }, ` (${w.rowsCut})`) : null))),
      h('td', {}, w.mails[run.mail_state] || run.mail_state, run.mail_error ? h('div', { class: 'pr-error' }, run.mail_error) : null),
      h('td', {}, h('div', { class: 'pr-bar' }, run.files.map((f) => h('button', {
        type: 'button',
        'aria-label': `${f.format.toUpperCase()} (${size(f.size)})`,
        onclick: () => download(host, `/api/v1/reports/runs/${encodeURIComponent(run.id)}/files/${encodeURIComponent(f.format)}`, `report.${f.format}`)
          .catch((e) => fail({ status: -1, body: { detail: e.message } })),
      }, f.format.toUpperCase())))),
    ))
    return h('table', {},
      h('thead', {}, h('tr', {}, [w.queued, w.trigger, w.state, w.rows, w.mail, w.files].map((t) => h('th', {}, t)))),
      h('tbody', {}, rows))
  }

  /** The in-page confirmation: a modal dialog, Cancel focused, Escape cancels. */
  function confirmDelete(d) {
    const titleId = 'pr-confirm-title'
    const close = () => back.remove()
    const cancel = h('button', { type: 'button', onclick: close }, w.cancel)
    const confirm = h('button', { type: 'button', class: 'pr-danger pr-primary', onclick: async () => {
      confirm.disabled = true
      const r = await api(host, 'DELETE', `/api/v1/reports/definitions/${encodeURIComponent(d.id)}`, undefined, ctrl.signal)
      close()
      if (r.status !== 204) return fail(r)
      if (state.runsOf && state.runsOf.id === d.id) {
        state.runsOf = null
        stopPolling()
        runsBox.replaceChildren()
      }
      say(w.deleted)
      await loadDefinitions()
    } }, w.del)
    const dialog = h('div', { class: 'pr-dialog', role: 'alertdialog', 'aria-modal': 'true', 'aria-labelledby': titleId },
      h('h2', { id: titleId }, w.confirmTitle), h('p', {}, w.confirmText(d.name)), h('div', { class: 'pr-bar' }, confirm, cancel))
    const back = h('div', { class: 'pr-dialog-back', onkeydown: (e) => { if (e.key === 'Escape') close() } }, dialog)
    root.append(back)
    cancel.focus()
  }

  function stopPolling() {
    if (pollTimer) clearTimeout(pollTimer)
    pollTimer = null
  }

  async function start() {
    const [sources, devices, users] = await Promise.all([
      get('/api/v1/reports/sources'),
      // The groups only name the form's choices: without the permission to list them the choice is "All".
      get('/api/v1/device-groups?per_page=100'),
      get('/api/v1/user-groups?per_page=100'),
    ])
    if (!alive) return
    if (sources.status !== 200) return fail(sources)
    state.sources = sources.body.items
    state.deviceGroups = devices.status === 200 ? devices.body.items : []
    state.userGroups = users.status === 200 ? users.body.items : []
    await loadDefinitions()
  }
  start().catch((e) => { if (alive && !(e && e.name === 'AbortError')) fail({ status: 0, body: null }) })

  return () => {
    alive = false
    stopPolling()
    ctrl.abort()
  }
}
