// The Swagger UI as a browser sees it (headless Chromium): it renders the
// routes with no request to any other host (none is reachable here either:
// every other host is refused), uses no web font, and has a favicon.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { Browser } from 'playwright-core'
import { launchChromium } from '../support/browser'
import { startBridge, type Bridge } from '../support/harness'

let b: Bridge
let browser: Browser
beforeAll(async () => {
  b = await startBridge()
  browser = await launchChromium()
})
afterAll(async () => {
  await browser?.close()
  await b?.stop()
})

test('renders offline: every request stays on the bridge; a favicon; no web fonts', async () => {
  const page = await browser.newPage()
  const elsewhere: string[] = []
  const seen: { url: string; status: number }[] = []
  await page.route('**/*', (route) => {
    const url = route.request().url()
    if (url.startsWith(b.base) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue()
    elsewhere.push(url)
    return route.abort()
  })
  page.on('response', (r) => seen.push({ url: r.url(), status: r.status() }))
  await page.goto(`${b.base}/swagger`)
  // the Scalar UI drew the operations from /swagger/json
  await page.locator('a[href="/asyncapi.json"]').first().waitFor({ timeout: 20_000 }) // the description, as markdown
  await page.getByText('/healthz').first().waitFor({ timeout: 10_000 }) // an operation from /swagger/json
  for (const tag of ['pairing', 'panes', 'actions', 'agents']) expect(await page.getByText(tag, { exact: true }).count()).toBeGreaterThan(0)
  const icon = await page.locator('link[rel="icon"]').getAttribute('href')
  expect(icon).toBe('/favicon.svg')
  const favicon = await page.request.get(`${b.base}${icon}`)
  expect(favicon.status()).toBe(200)
  expect(favicon.headers()['content-type']).toBe('image/svg+xml')
  expect((await page.request.get(`${b.base}/favicon.ico`)).status()).toBe(200)
  expect(elsewhere).toEqual([])
  expect(seen.filter((r) => /\.(woff2?|ttf|otf)(\?|$)/.test(r.url))).toEqual([])
  expect(seen.find((r) => r.url === `${b.base}/swagger/json`)?.status).toBe(200)
  // stilled before it closes, as in test/web/browser.test.ts: nothing in flight to race the teardown
  page.removeAllListeners()
  await page.unrouteAll({ behavior: 'ignoreErrors' })
  await page.goto('about:blank')
  await page.close()
}, 30_000)
