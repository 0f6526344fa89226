/**
 * The browser kit itself (test/kit/browser.ts, test/kit/png.ts), on pages a loopback server serves
 * under the strictest Content-Security-Policy (no script at all, as the captive portal's pages):
 * axe-core still runs and names what is wrong, a clean page passes, an overflow at phone width is
 * measured, and a colour is found in (and only in) the screenshot that shows it.
 */
import { expect } from 'chai'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser } from 'playwright-core'
import { runsOn } from './app.js'
import { axe, context, expectAccessible, horizontalOverflow, launch, needChromium, screenshot } from './browser.js'
import { countColour, decodePng } from './png.js'

const page = (body: string, head = '') => `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Kit</title>${head}<link rel="stylesheet" href="/s.css"></head><body>${body}</body></html>`
const PAGES: Record<string, string> = {
  '/good': page('<main><h1>Welcome</h1><form method="post"><label for="e">E-mail</label><input id="e" name="e" type="email"><button type="submit">Send</button></form></main>'),
  '/bad': page('<div><img src="/x.png"><input name="e" type="text"><a href="/a"></a></div>'),
  '/wide': page('<main><h1>Wide</h1><div class="wide">x</div></main>'),
  '/brand': page('<main><h1>Brand</h1><div class="brand">x</div></main>'),
}
const CSS = 'body{margin:0;font-family:sans-serif} .wide{width:600px} .brand{width:200px;height:100px;background:#1a7f5a}'

;(runsOn('postgres') ? describe : describe.skip)('test kit: the browser (chromium, axe-core, screenshots)', function () {
  this.timeout(120_000)
  let server: Server
  let url: string
  let browser: Browser

  before(async function () {
    needChromium(this)
    server = createServer((req, res) => {
      const csp = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; base-uri 'none'"
      if (req.url === '/s.css') return res.writeHead(200, { 'Content-Type': 'text/css', 'Content-Security-Policy': csp }).end(CSS)
      const html = PAGES[req.url ?? '']
      if (!html) return res.writeHead(404, { 'Content-Security-Policy': csp }).end()
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': csp }).end(html)
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    browser = await launch()
  })
  after(async () => {
    await browser?.close()
    await new Promise((r) => server?.close(r))
  })

  it('axe runs under a CSP that allows no script, names the violations of a bad page and fails on them; a clean page passes', async () => {
    const p = await (await context(browser, { locale: 'en-US' })).newPage()
    await p.goto(`${url}/bad`)
    const ids = (await axe(p)).map((v) => v.id)
    expect(ids).to.include.members(['image-alt', 'label', 'link-name'])
    let failure = ''
    await expectAccessible(p, 'the bad page').catch((e: Error) => (failure = e.message))
    expect(failure).to.match(/accessibility of the bad page/).and.match(/critical image-alt/).and.match(/label/)
    // After a navigation the script is injected again.
    await p.goto(`${url}/good`)
    await expectAccessible(p, 'the good page')
  })

  it('measures a horizontal overflow at phone width; none on a fluid page', async () => {
    const p = await (await context(browser, { locale: 'en-US', width: 375, height: 700 })).newPage()
    await p.goto(`${url}/wide`)
    expect(await horizontalOverflow(p)).to.equal(225)
    await p.goto(`${url}/good`)
    expect(await horizontalOverflow(p)).to.equal(0)
  })

  it("finds a page's colour in its screenshot's pixels (decoded with zlib), and not a colour it lacks", async () => {
    const p = await (await context(browser, { locale: 'en-US', width: 375, height: 300 })).newPage()
    await p.goto(`${url}/brand`)
    const img = decodePng(await screenshot(p))
    expect([img.width, img.height]).to.deep.equal([375, 300])
    // 200 × 100 CSS pixels of the brand colour (device scale 1).
    expect(countColour(img, '#1a7f5a')).to.be.within(19_000, 20_000)
    expect(countColour(img, '#ff00ff')).to.equal(0)
    await p.goto(`${url}/good`)
    expect(countColour(decodePng(await screenshot(p)), '#1a7f5a')).to.equal(0)
  })
})
