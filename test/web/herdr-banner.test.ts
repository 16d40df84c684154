// The phone's banner for a herdr that cannot serve it, in Debian's Chromium at a
// phone's size: herdr's CLI refusing its running server after `herdr update` shows
// /healthz's advice (restart the herdr server) on the list; once the server is
// restarted, a fresh look shows no banner.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import type { Browser } from 'playwright-core'
import { launchChromium, openPhone } from '../support/browser'
import { ADMIN, claudePane, startBridge, waitFor, type Bridge } from '../support/harness'

let browser: Browser
let b: Bridge
let now = 1_000_000

beforeAll(async () => {
  browser = await launchChromium()
  b = await startBridge({
    // herdr 0.9.3's CLI beside the 0.8.2 server still running
    state: { version: '0.8.2', protocol: 20, cli_version: '0.9.3', cli_protocol: 22, panes: [claudePane({ pane_id: 'w1:p1' })] },
    herdrSocket: true,
    deps: { clock: () => now },
  })
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await b?.stop()
})

test('a protocol mismatch: the list says to restart the herdr server; gone once it is restarted', async () => {
  setDefaultTimeout(60_000)
  const { ctx, page, errors } = await openPhone(browser, ADMIN)
  try {
    await page.goto(`${b.base}/#/`)
    const banner = page.locator('.herdr-banner')
    await banner.waitFor()
    expect(await banner.getAttribute('role')).toBe('alert')
    expect(await banner.textContent()).toBe(
      "herdr's CLI speaks protocol 22 and its running server 20 (herdr was updated, its server not restarted): restart the herdr server (`herdr server stop`, then start herdr)",
    )
    // the list itself still works: the watcher reads herdr's socket
    await page.locator('li.pane[data-pane="w1:p1"]').waitFor()
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth <= (globalThis as any).innerWidth + 1)).toBe(true)

    // the user restarts the server; past /healthz's 1 s cache, a fresh look has no banner
    b.setState({ ...b.state(), version: '0.9.3', protocol: 22 })
    now += 1500
    await waitFor(async () => (await b.json('/healthz', null)).herdr.server === 'running', 5000, 'herdr running')
    await page.reload()
    await page.locator('li.pane[data-pane="w1:p1"]').waitFor()
    await page.locator('.conn.c-open').waitFor()
    expect(await banner.count()).toBe(0)
    expect(errors).toEqual([])
  } finally {
    await ctx.close()
  }
})
