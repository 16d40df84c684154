// Issue 40 in Debian's Chromium at a phone's size: an option's description (Claude Code
// 2.1.332's dim " · auto mode handles these prompts for you", captured in
// fixtures/screens/cc332-card4) is shown under its label, smaller, and is no part of the
// button's label; the attach button's paperclip is drawn (an SVG), not a character a font
// may lack.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { closePhone, launchChromium, openPhone } from '../support/browser'
import { ADMIN, ROOT, claudePane, startBridge, type Bridge } from '../support/harness'

const SCREENS = join(ROOT, 'fixtures/screens')
let browser: Browser
let b: Bridge

beforeAll(async () => {
  browser = await launchChromium()
  b = await startBridge({
    state: {
      panes: [
        claudePane({
          pane_id: 'w1:p1',
          label: 'stamp',
          screen_file: join(SCREENS, 'cc332-card4/08-bash-prompt-descriptions.txt'),
          ansi_file: join(SCREENS, 'cc332-card4/08-bash-prompt-descriptions.ansi'),
          agent: { agent_status: 'blocked', state_change_seq: 4 },
        }),
      ],
    },
  })
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await b?.stop()
})

test('a description under its label, smaller; the attach icon is an SVG', async () => {
  setDefaultTimeout(60_000)
  const p = await openPhone(browser, ADMIN)
  try {
    await p.page.goto(`${b.base}/#/p/${encodeURIComponent('w1:p1')}`)
    const option = p.page.locator('.answer .option', { hasText: 'switch to auto mode' })
    await option.waitFor({ timeout: 10_000 })
    expect(await option.locator('.label').textContent()).toBe('Yes, and switch to auto mode')
    expect(await option.locator('.desc').textContent()).toBe('auto mode handles these prompts for you')
    // options without a description show none
    expect(await p.page.locator('.answer .option', { hasText: 'No' }).last().locator('.desc').count()).toBe(0)
    const label = (await option.locator('.label').boundingBox())!
    const desc = (await option.locator('.desc').boundingBox())!
    expect(desc.y).toBeGreaterThanOrEqual(label.y + label.height - 1) // under it
    const size = (sel: string) => option.locator(sel).evaluate((el) => Number.parseFloat((globalThis as any).getComputedStyle(el).fontSize))
    expect(await size('.desc')).toBeLessThan(await size('.label'))
    expect(await p.page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth <= (globalThis as any).innerWidth + 1)).toBe(true)

    const attach = p.page.locator('button.attach')
    expect(await attach.locator('svg').count()).toBe(1)
    expect((await attach.textContent())?.trim()).toBe('')
    const icon = (await attach.locator('svg').boundingBox())!
    expect(icon.width).toBeGreaterThan(10)
    if (process.env.GOTHALO_SHOTS) await p.page.screenshot({ path: join(process.env.GOTHALO_SHOTS, 'descriptions.png') })
    expect(p.errors).toEqual([])
  } finally {
    await closePhone(p)
  }
})
