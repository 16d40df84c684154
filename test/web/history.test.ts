// Every past conversation in the phone client, in Debian's Chromium at a phone's
// size, against the real bridge with its search index over real sessions of all
// four agents: search with filters and marked matches, a hit opened at its entry,
// the History list per project, and resuming a past session.
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { closePhone, launchChromium, openPhone } from '../support/browser'
import { ADMIN, type Bridge } from '../support/harness'
import { historyBridge, historyHome, piUserLine, type HistoryHome } from '../support/history-home'

let browser: Browser
let b: Bridge
let h: HistoryHome

beforeAll(async () => {
  browser = await launchChromium()
  h = historyHome()
  b = await historyBridge(h)
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await b?.stop()
})

let open: { ctx: BrowserContext; page: Page; errors: string[] }[] = []
afterEach(async () => {
  for (const p of open) {
    expect(p.errors).toEqual([])
    await closePhone(p)
  }
  open = []
})

async function phone(): Promise<Page> {
  const p = await openPhone(browser, ADMIN)
  p.page.on('dialog', (d) => void d.accept())
  open.push(p)
  return p.page
}

describe('history and search (Chromium)', () => {
  setDefaultTimeout(60_000)

  test('search from the list: results with the matched words marked; filters; a tap opens the conversation at the hit', async () => {
    const page = await phone()
    await page.goto(`${b.base}/#/`)
    await page.getByRole('link', { name: 'Search conversations' }).click()
    await page.getByRole('heading', { name: 'Search' }).waitFor()
    await page.getByLabel('Search every conversation').fill('quick tour')
    await page.getByRole('button', { name: 'Search' }).click()
    const hit = page.locator('li.hit').first()
    await hit.waitFor()
    expect(await hit.locator('.kind').textContent()).toBe('pi')
    const marks = await hit.locator('mark').allTextContents()
    expect(marks.map((m) => m.toLowerCase())).toEqual(expect.arrayContaining(['quick', 'tour']))
    // the agent filter: codex has no quick tour
    await page.getByLabel('Agent').selectOption('codex')
    await page.locator('p.indexed', { hasText: 'Nothing found' }).waitFor()
    expect(await page.locator('li.hit').count()).toBe(0)
    await page.getByLabel('Agent').selectOption('pi')
    await page.locator('li.hit').first().waitFor()
    // the project filter names the projects by folder
    const projects = await page.getByLabel('Project').locator('option').allTextContents()
    expect(projects).toEqual(expect.arrayContaining(['every project', 'proj']))
    const href = await page.locator('li.hit a').first().getAttribute('href')
    const seq = Number(/\/(\d+)$/.exec(href ?? '')?.[1])
    expect(seq).toBeGreaterThan(0)
    await page.locator('li.hit a').first().click()
    await page.waitForURL(/#\/s\/pi%3A/)
    const entry = page.locator(`.hit-entry [data-seq="${seq}"]`)
    await entry.waitFor()
    expect((await entry.textContent())?.toLowerCase()).toContain('quick tour')
    expect(await entry.isVisible()).toBe(true)
  })

  test('History: every past session by project; one opens readable; Resume starts its agent with the session', async () => {
    const page = await phone()
    await page.goto(`${b.base}/#/`)
    await page.getByRole('link', { name: 'History' }).click()
    await page.getByRole('heading', { name: 'History' }).waitFor()
    await page.locator('section.project-history').first().waitFor()
    const kinds = await page.locator('section.project-history .kind').allTextContents()
    expect(new Set(kinds)).toEqual(new Set(['claude', 'pi', 'codex', 'opencode']))
    const claude = page.locator(`section.project-history[data-project="${h.dirs.claude}"] li a`).first()
    await claude.click()
    await page.waitForURL(/#\/s\/claude%3A/)
    await page.locator('.transcript .bubble').first().waitFor()
    expect(await page.locator('.transcript [data-seq]').count()).toBeGreaterThan(3)
    await page.getByRole('button', { name: 'Resume' }).click()
    await page.waitForURL(/#\/p\/w\d+%3Ap\d+$/)
    const pane = decodeURIComponent(/#\/p\/([^/]+)$/.exec(page.url())?.[1] ?? '')
    expect(b.state().panes.find((p) => p.pane_id === pane)?.started_argv).toEqual(['claude', '--resume', h.ids.claude])
  })

  test("History's More, tapped twice while the next page loads: each session once", async () => {
    // 120 old pi sessions (a year back: after every other), so the list has a second page of 100
    const dir = join(h.homes.piDir, 'sessions', '--many--')
    mkdirSync(dir, { recursive: true })
    const year = (Date.now() - 365 * 86_400_000) / 1000
    for (let i = 0; i < 120; i++) {
      const id = `01a30000-0000-7000-8000-${String(i).padStart(12, '0')}`
      const file = join(dir, `2025-01-01T00-00-00-000Z_${id}.jsonl`)
      writeFileSync(
        file,
        `${JSON.stringify({ type: 'session', version: 3, id, timestamp: '2025-01-01T00:00:00.000Z', cwd: h.dirs.pi })}\n${piUserLine(1, `old ${i}`)}`,
      )
      utimesSync(file, year - i, year - i)
    }
    const total = ((await b.json('/sessions?limit=200')) as { sessions: unknown[] }).sessions.length
    expect(total).toBeGreaterThan(100)
    const page = await phone()
    // the next page answers slowly (a phone on a poor link)
    await page.route(/\/sessions\?.*before=/, async (route) => {
      await new Promise((r) => setTimeout(r, 300))
      await route.continue()
    })
    await page.goto(`${b.base}/#/history`)
    await page.getByRole('heading', { name: 'History' }).waitFor()
    const more = page.getByRole('button', { name: 'More' })
    await more.waitFor()
    expect(await page.locator('section.project-history li').count()).toBe(100)
    await more.dblclick()
    await more.waitFor({ state: 'detached' })
    const rows = await page.locator('section.project-history li a').evaluateAll((as) => as.map((a) => a.getAttribute('href')))
    expect(new Set(rows).size).toBe(total)
    expect(rows.length).toBe(total)
  })
})
