// Usage in Debian's Chromium at a phone's size: the agent's screen shows the
// context bar, tokens and codex's plan limits from GET /usage; the list row shows
// the context figure once it passes 80%, and not before.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { appendFileSync, cpSync, mkdirSync, readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import type { Browser } from 'playwright-core'
import { launchChromium, openPhone } from '../support/browser'
import { ADMIN, ROOT, startBridge, tempDir, waitFor, type Bridge } from '../support/harness'
import { agentPane } from '../support/transcript-socket'

const CODEX = 'fixtures/codex/codex-approval/sessions/2026/12/02/rollout-2026-12-02T16-00-10-01a2377c-1e15-7bf3-8026-e781f4373dde.jsonl'
const ID = '01a2377c-1e15-7bf3-8026-e781f4373dde'
let browser: Browser
let b: Bridge
let file: string

beforeAll(async () => {
  browser = await launchChromium()
  const codexDir = tempDir('gothalo-usage-web-')
  file = join(codexDir, 'sessions/2026/12/02', basename(CODEX))
  mkdirSync(join(codexDir, 'sessions/2026/12/02'), { recursive: true })
  cpSync(join(ROOT, CODEX), file)
  const pane = agentPane('codex', '/home/me/codex-approval/proj', { kind: 'id', value: ID }, 'w1:p1')
  pane.agent!.agent_status = 'done'
  b = await startBridge({ state: { panes: [pane] }, homes: { codexDir }, timing: { tailPollMs: 50, sessionPollMs: 100, rosterPollMs: 100 } })
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await b?.stop()
})

test('the context bar, tokens and limits on the agent; the list row once the context passes 80%', async () => {
  setDefaultTimeout(60_000)
  const { ctx, page, errors } = await openPhone(browser, ADMIN)
  try {
    // 1% full (the bridge has read it): the list says nothing about the context
    await waitFor(async () => (await b.json('/snapshot')).panes[0].context_pct === 1)
    await page.goto(`${b.base}/#/`)
    const row = page.locator('li.pane[data-pane="w1:p1"]')
    await row.locator('.headline, .row3').first().waitFor()
    expect(await row.locator('.ctx-hot').count()).toBe(0)

    await page.goto(`${b.base}/#/p/${encodeURIComponent('w1:p1')}`)
    await page.locator('.usage .ctx-text').waitFor()
    expect(await page.locator('.usage .ctx-text').textContent()).toBe('context 1% · 2.4k of 258k')
    expect(await page.locator('.usage .tokens').textContent()).toBe('in 9.5k · out 168')
    expect(await page.locator('.usage .model').textContent()).toBe('gpt-5.5')
    expect(await page.locator('.usage .cost').count()).toBe(0) // codex records no cost
    expect(await page.locator('.usage .limits').count()).toBe(0)

    // the session grows past 80%, and the plan reports its limits
    const last = JSON.parse(
      readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.includes('"token_count"'))
        .pop()!,
    )
    last.payload.info.last_token_usage.input_tokens = 220000
    last.payload.rate_limits.primary = { used_percent: 42.5, window_minutes: 300, resets_at: 1796230800 }
    appendFileSync(file, `${JSON.stringify(last)}\n`)
    await page.locator('.usage .limits li').waitFor()
    expect(await page.locator('.usage .ctx-text').textContent()).toBe('context 85% · 220k of 258k')
    expect(await page.locator('.usage .ctx-bar.ctx-full').count()).toBe(1)
    expect(await page.locator('.usage .limits li').textContent()).toMatch(/^5h limit 43% · resets /)
    expect(await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth <= (globalThis as any).innerWidth + 1)).toBe(true)
    if (process.env.GOTHALO_SHOTS) await page.screenshot({ path: join(process.env.GOTHALO_SHOTS, 'usage.png') })

    await page.goto(`${b.base}/#/`)
    await row.locator('.ctx-hot').waitFor()
    expect(await row.locator('.ctx-hot').textContent()).toBe('context 85%')
    expect(errors).toEqual([])
  } finally {
    await ctx.close()
  }
})
