/**
 * The console's view of the cluster in a real browser (headless chromium):
 * two nodes on one PostgreSQL database, node A supervising a real FreeRADIUS
 * (server option daemons.supervise), node B not. The Deploys screen's nodes
 * panel shows per node the release it serves: node B, stopped while a deploy
 * is made, is shown behind in the warning colours (in the panel and in the
 * deploy's details), never hidden by the history's "active", and the panel
 * turns in sync by itself once B is started again and catches up. The
 * dashboard shows A's supervised FreeRADIUS (state, pid, release, its last
 * output lines, folded) and the cluster in one line linking to the panel. A
 * reader without `cluster.read` sees neither the panel nor the line.
 */
import { expect } from 'chai'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { startTestApp, type TestApp } from '../../../test/kit/app.js'
import { runsOn } from '../../../test/kit/app.js'
import { skipBecause } from '../../../test/kit/skip.js'
import { FREERADIUS_PRESENT, FREERADIUS_SKIP, freeUdpPort } from '../../radius/test/e2e-support.js'
import { clearRateLimits, context, launch, needConsole, screenshot, signInAt, startWithAdmin, answerConfirm, signInWithToken } from './browser.js'

const PASSWORD = 'Portcullis-Cluster-2026!'
const PLUGINS = ['inventory', 'radius', 'console']

interface NodeDaemon { daemon: string; state: string; deploy_id: string | null; release: string | null }
interface ClusterNode { node_id: string; this_node: boolean; daemons: NodeDaemon[] }

;(runsOn('postgres') ? describe : describe.skip)('console: the cluster nodes and the supervised daemons in a browser', function () {
  this.timeout(300_000)
  let a: TestApp
  let b: TestApp | undefined
  let bDir: string
  let browser: Browser
  beforeEach(() => clearRateLimits(a))

  /** Node B: the same database and master key as A, its own DATA_DIR (kept across its restart: its node id is there). */
  const startB = () => startTestApp({ databaseUrl: a.databaseUrl!, masterKey: a.masterKey, dataDir: bDir, plugins: PLUGINS })
  const nodes = async (): Promise<ClusterNode[]> => {
    const r = await a.admin('GET', '/api/v1/cluster/nodes')
    expect(r.status, r.text).to.equal(200)
    return r.body.items
  }
  /** Polls the API until `ok` holds for the freeradius daemon of every node listed, or fails with what it saw. */
  const waitNodes = async (ok: (n: ClusterNode, d: NodeDaemon | undefined) => boolean, what: string) => {
    const deadline = Date.now() + 60_000
    for (;;) {
      const items = await nodes()
      if (items.length === 2 && items.every((n) => ok(n, n.daemons.find((d) => d.daemon === 'freeradius')))) return items
      if (Date.now() > deadline) throw new Error(`${what}: ${JSON.stringify(items, null, 1)}`)
      await new Promise((r) => setTimeout(r, 250))
    }
  }
  const signIn = (page: Page, to: string) => signInAt(page, a.url + to, 'admin', PASSWORD)

  before(async function () {
    needConsole(this)
    if (!FREERADIUS_PRESENT) skipBecause(this, FREERADIUS_SKIP)
    a = await startWithAdmin({ engine: 'postgres', plugins: PLUGINS, env: { DAEMONS_SUPERVISE: '["freeradius"]' } }, PASSWORD)
    bDir = mkdtempSync(path.join(os.tmpdir(), 'portcullis-node-b-'))
    b = await startB()
    // A's supervised FreeRADIUS on loopback at free ports (the test machine's 1812 may be taken).
    for (const [key, value] of [['radius.listen_address', '127.0.0.1'], ['radius.auth_port', await freeUdpPort()], ['radius.acct_port', await freeUdpPort()]] as const) {
      const r = await a.admin('PUT', `/api/v1/settings/${key}`, { body: { value } })
      expect(r.status, r.text).to.be.oneOf([200, 204])
    }
    const first = await a.admin('POST', '/api/v1/deploys', { body: { daemon: 'freeradius', comment: 'first' } })
    expect(first.status, first.text).to.equal(201)
    const id = first.body.deploys[0].id as string
    await waitNodes((_, d) => d?.deploy_id === id && d.state === 'serving', 'the first release on both nodes')
    browser = await launch()
  })
  after(async () => {
    await browser?.close()
    await b?.stop()
    await a?.stop()
    if (bDir) rmSync(bDir, { recursive: true, force: true })
  })

  it('shows a node that missed the deploy as behind, in the panel and the deploy, until it catches up', async () => {
    const bId = (await nodes()).find((n) => !n.this_node)!.node_id
    const aId = (await nodes()).find((n) => n.this_node)!.node_id
    // Node B is down while the next release is deployed: it keeps serving the first one.
    await b!.stop()
    b = undefined
    const dev = await a.admin('POST', '/api/v1/devices', { body: { name: 'edge-sw-1', address: '10.9.0.1', radius_secret: 'radius-secret-9' } })
    expect(dev.status, dev.text).to.equal(201)

    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await signIn(page, '/deploys')
    await page.getByRole('heading', { name: 'Deploys', level: 1 }).waitFor()
    await page.getByRole('button', { name: 'Deploy freeradius' }).click()
    await answerConfirm(page)
    await page.getByTestId('deploy-result').getByText(/Deployed: freeradius/).waitFor()
    const second = (await a.admin('GET', '/api/v1/deploys?daemon=freeradius&status=active')).body.items[0]

    // The history says active; the panel says B still serves the first release, in the warning colours, with the alert naming it.
    const panel = page.getByTestId('cluster-nodes')
    const rowOf = (id: string, state = '') => panel.locator(`tr[data-node-id="${id}"][data-daemon="freeradius"]${state && `[data-state="${state}"]`}`)
    await rowOf(bId, 'behind').waitFor()
    await rowOf(aId, 'serving').waitFor()
    expect(await rowOf(aId).textContent()).to.include(second.release)
    expect(await rowOf(bId).textContent()).not.to.include(second.release)
    await rowOf(bId).getByText('behind', { exact: true }).waitFor()
    await panel.getByTestId('nodes-behind').waitFor()
    expect(await panel.getByTestId('nodes-summary').textContent()).to.equal('2 nodes, 1 in sync')
    await panel.scrollIntoViewIfNeeded()
    await screenshot(page, 'deploys-nodes-behind')

    // The deploy's details: per node whether its release arrived; B not yet.
    await page.getByTestId('history').getByRole('button', { name: `Details of freeradius ${second.release}` }).click()
    const arrival = page.getByTestId('deploy-nodes')
    await arrival.locator(`tr[data-node-id="${bId}"][data-state="behind"]`).waitFor()
    await arrival.locator(`tr[data-node-id="${aId}"][data-state="serving"]`).getByText('arrived').waitFor()
    await page.getByTestId('deploy-nodes-behind').waitFor()
    await page.keyboard.press('Escape')

    // B starts again and catches up; the open page follows without a reload.
    b = await startB()
    await rowOf(bId, 'serving').waitFor({ timeout: 60_000 })
    expect(await rowOf(bId).textContent()).to.include(second.release)
    expect(await panel.getByTestId('nodes-behind').count()).to.equal(0)
    expect(await panel.getByTestId('nodes-summary').textContent()).to.equal('2 nodes, 2 in sync')
    await page.context().close()
  })

  it('shows the supervised FreeRADIUS on the dashboard, its last output folded, and the cluster line leading to the nodes', async () => {
    await waitNodes((_, d) => d?.state === 'serving', 'both nodes in sync')
    const info = await a.admin('GET', '/api/v1/dashboard/system-info')
    const radius = (info.body.daemons as { daemon: string; state: string; pid: number; release: string; output_tail: string[] }[]).find((d) => d.daemon === 'freeradius')!
    expect(radius.state).to.equal('running')
    expect(radius.output_tail, 'FreeRADIUS says something when it starts').to.not.be.empty

    const page = await (await context(browser, { locale: 'en-US' })).newPage()
    await signIn(page, '/')
    const block = page.getByTestId('supervised-daemons')
    const row = block.locator('tr[data-daemon="freeradius"][data-state="running"]')
    await row.getByText('running', { exact: true }).waitFor()
    expect(await row.textContent()).to.include(String(radius.pid)).and.include(radius.release)
    // The output is folded until asked for.
    const output = block.getByTestId('daemon-output')
    expect(await output.isVisible()).to.equal(false)
    await block.getByText(/^Last output \(\d+ lines?\)$/).click()
    expect(await output.textContent()).to.include(radius.output_tail[radius.output_tail.length - 1])
    await block.scrollIntoViewIfNeeded()
    await screenshot(page, 'dashboard-daemons')

    // The cluster in one line, a link to the Deploys screen's nodes panel.
    const line = page.getByTestId('cluster-summary')
    await line.getByText('2 nodes, 2 in sync').click()
    await page.getByRole('heading', { name: 'Deploys', level: 1 }).waitFor()
    expect(new URL(page.url()).hash).to.equal('#nodes')
    await page.getByTestId('cluster-nodes').waitFor()
    await page.context().close()
  })

  it('shows the daemons in Russian', async () => {
    const page = await (await context(browser, { locale: 'ru-RU' })).newPage()
    await signIn(page, '/')
    await page.getByTestId('supervised-daemons').locator('tr[data-daemon="freeradius"]').getByText('работает', { exact: true }).waitFor()
    await page.getByTestId('cluster-summary').getByText('Узлов: 2, синхронизировано: 2').waitFor()
    await page.context().close()
  })

  it('shows no nodes panel and no cluster line to a reader without cluster.read', async () => {
    const token = await a.token({ permissions: ['deploy.read', 'system.info.read'] })
    const c = await context(browser, { locale: 'en-US' })
    await signInWithToken(c, a.url, token)
    const page = await c.newPage()
    await page.goto(a.url + '/')
    // What the reader may see is there; the cluster is not.
    await page.getByTestId('supervised-daemons').locator('tr[data-daemon="freeradius"]').waitFor()
    expect(await page.getByTestId('cluster-summary').count()).to.equal(0)
    await page.goto(a.url + '/deploys')
    // Once the page has what it asked for (the history's rows, the pending daemons), nothing about the cluster is shown.
    await page.getByTestId('history').locator('tbody tr').first().waitFor()
    await page.getByTestId('pending').getByRole('row', { name: /freeradius/ }).waitFor()
    expect(await page.getByTestId('cluster-nodes').count()).to.equal(0)
    expect(await page.getByTestId('error-alert').count(), 'nothing asked that the server refuses').to.equal(0)
    await c.close()
  })
})
