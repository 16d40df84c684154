// On a plain-http address that is not this machine, the browser offers no push,
// no install and no service worker: the app says so instead of hiding its switch.
// Chromium reaches the bridge as http://gothalo-box.test (mapped to 127.0.0.1),
// which it does not treat as a secure context.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { chromium, type Browser } from 'playwright-core'
import { chromiumPath } from '../support/browser'
import { ADMIN, startBridge, type Bridge } from '../support/harness'

let browser: Browser
let b: Bridge
beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--host-resolver-rules=MAP gothalo-box.test 127.0.0.1'],
  })
  b = await startBridge({ push: true })
})
afterAll(async () => {
  await browser?.close()
  await b?.stop()
})

test('plain http from another host: a note says what is off and how to get it; on this machine, none', async () => {
  const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, serviceWorkers: 'block' })
  try {
    await ctx.addInitScript((t) => localStorage.setItem('gothalo.token', t), ADMIN)
    const page = await ctx.newPage()
    const port = new URL(b.base).port
    await page.goto(`http://gothalo-box.test:${port}/#/`)
    await page.getByRole('heading', { name: 'Agents' }).waitFor()
    const note = page.getByRole('note')
    await note.waitFor()
    expect(await note.textContent()).toContain('not on HTTPS')
    expect(await page.locator('label.notify').count()).toBe(0)
    await page.goto(`${b.base}/#/`)
    await page.getByRole('heading', { name: 'Agents' }).waitFor()
    await page.locator('label.notify').waitFor()
    expect(await page.getByRole('note').count()).toBe(0)
  } finally {
    await ctx.close()
  }
})
