// Another machine's past conversations in the phone client (Debian's Chromium at a
// phone's size): with a second machine, Search and History offer a machine; the
// laptop's sessions are searched and listed through the home bridge, a hit opens
// the laptop's session at its entry, and Resume starts it on the laptop. With a
// single machine, neither screen says "machine".
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { closePhone, launchChromium, openPhone } from '../support/browser'
import { ADMIN, claudePane, tempDir, waitFor, type Bridge } from '../support/harness'
import { historyBridge, historyHome, type HistoryHome } from '../support/history-home'
import { addMachine, startHome, type Home } from '../machines/support'

setDefaultTimeout(60_000)

let browser: Browser
let home: Home
let laptop: Bridge
let h: HistoryHome

beforeAll(async () => {
  browser = await launchChromium()
  h = historyHome()
  laptop = await historyBridge(h)
  home = await startHome([claudePane({ pane_id: 'w1:p1' })], {
    deps: { search: { path: join(tempDir('gothalo-web-home-search-'), 'search.db'), startAfterMs: 0, pollMs: 200 } },
  })
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await home?.stop()
  await laptop?.stop()
})

async function withPhone(run: (page: Page) => Promise<void>) {
  const p = await openPhone(browser, ADMIN)
  try {
    await run(p.page)
    expect(p.errors).toEqual([])
  } finally {
    await closePhone(p)
  }
}

test('a single machine: Search and History say nothing of machines', async () => {
  await withPhone(async (page) => {
    await page.goto(`${home.base}/#/search`)
    await page.getByRole('heading', { name: 'Search' }).waitFor()
    await page.goto(`${home.base}/#/history`)
    await page.getByRole('heading', { name: 'History' }).waitFor()
    await page.locator('p.empty', { hasText: 'No past sessions.' }).waitFor()
    expect(await page.locator('.machine-pick').count()).toBe(0)
    expect((await page.locator('main').textContent())?.toLowerCase()).not.toContain('machine')
  })
})

test("two machines: the laptop's conversations searched through the home, a hit opened at its entry on the laptop", async () => {
  await addMachine(home, 'laptop', laptop)
  await waitFor(async () => (await home.json('/machines')).machines[1]?.state === 'online', 5000, 'online')
  await withPhone(async (page) => {
    await page.goto(`${home.base}/#/search`)
    await page.getByRole('radiogroup', { name: 'machine' }).waitFor()
    await page.getByLabel('Search every conversation').fill('quick tour')
    await page.getByRole('button', { name: 'Search' }).click()
    // the home's own sessions hold no quick tour
    await page.locator('p.indexed', { hasText: 'Nothing found' }).waitFor()
    await page.getByRole('radio', { name: 'laptop' }).check()
    const hit = page.locator('li.hit').first()
    await hit.waitFor()
    expect(await hit.locator('.kind').textContent()).toBe('pi')
    expect((await hit.locator('mark').allTextContents()).map((m) => m.toLowerCase())).toEqual(expect.arrayContaining(['quick', 'tour']))
    const href = (await page.locator('li.hit a').first().getAttribute('href')) ?? ''
    const seq = Number(/\/(\d+)$/.exec(href)?.[1])
    expect(href.startsWith(`#/s/${encodeURIComponent(`laptop/pi:${h.ids.pi}`)}/`)).toBe(true)
    await page.locator('li.hit a').first().click()
    const entry = page.locator(`.hit-entry [data-seq="${seq}"]`)
    await entry.waitFor()
    expect((await entry.textContent())?.toLowerCase()).toContain('quick tour')
    expect(await page.locator('header h1 .on-machine').textContent()).toBe('laptop')
    // back to Search: still the laptop's, asked again
    await page.goBack()
    await page.locator('li.hit').first().waitFor()
    expect(await page.getByRole('radio', { name: 'laptop' }).isChecked()).toBe(true)
  })
})

test("History of the laptop: its sessions by project; one opened; Resume starts it on the laptop's herdr", async () => {
  await withPhone(async (page) => {
    await page.goto(`${home.base}/#/history`)
    await page.getByRole('radio', { name: 'laptop' }).check()
    await page.locator(`section.project-history[data-project="${h.dirs.claude}"]`).waitFor()
    const kinds = await page.locator('section.project-history .kind').allTextContents()
    expect(new Set(kinds)).toEqual(new Set(['claude', 'pi', 'codex', 'opencode']))
    await page.locator(`section.project-history[data-project="${h.dirs.claude}"] li a`).first().click()
    await page.waitForURL(/#\/s\/laptop%2Fclaude%3A/)
    await page.locator('.transcript .bubble').first().waitFor()
    expect(await page.locator('.transcript [data-seq]').count()).toBeGreaterThan(3)
    await page.getByRole('button', { name: 'Resume' }).click()
    await page.waitForURL(/#\/p\/laptop%2Fw\d+%3Ap\d+$/)
    const pane = decodeURIComponent(/#\/p\/([^/]+)$/.exec(page.url())?.[1] ?? '').slice('laptop/'.length)
    expect(laptop.state().panes.find((p) => p.pane_id === pane)?.started_argv).toEqual(['claude', '--resume', h.ids.claude])
    // the home started nothing
    expect(home.state().panes.map((p) => p.pane_id)).toEqual(['w1:p1'])
  })
})
