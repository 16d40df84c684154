// Several machines in the phone client (Debian's Chromium at a phone's size): the
// list grouped by machine with each machine's state, an offline machine dimmed
// with its last-seen time, a remote agent answered from its card (the keys reach
// the remote's herdr), the machine named on the agent screen; and no machine words
// on a single machine.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { closePhone, launchChromium, openPhone } from '../support/browser'
import { ADMIN, ROOT, claudePane, startBridge, waitFor, type Bridge } from '../support/harness'
import { addMachine, startHome, type Home } from '../machines/support'

setDefaultTimeout(60_000)
const SCREENS = join(ROOT, 'fixtures/screens')

let browser: Browser
let home: Home
let laptop: Bridge
let desk: Bridge
let deskStopped = false

beforeAll(async () => {
  browser = await launchChromium()
  home = await startHome([claudePane({ pane_id: 'w1:p1', label: 'home job' })])
  laptop = await startBridge({
    herdrSocket: true,
    state: {
      panes: [
        claudePane({
          pane_id: 'w1:p2',
          label: 'laptop prompt',
          screen_file: join(SCREENS, 'cc-bash-prompt/01-bash-prompt.txt'),
          agent: { agent_status: 'blocked', state_change_seq: 9 },
        }),
      ],
    },
  })
  desk = await startBridge({ herdrSocket: true, state: { panes: [claudePane({ pane_id: 'w1:p1', label: 'desk job' })] } })
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await home?.stop()
  await laptop?.stop()
  if (!deskStopped) await desk?.stop()
})

test('a single machine: the list as before, not one machine word', async () => {
  const p = await openPhone(browser, ADMIN)
  await p.page.goto(home.base)
  await p.page.locator('li.pane[data-pane="w1:p1"]').waitFor({ timeout: 15_000 })
  expect(await p.page.locator('.machine, .machine-head, .on-machine').count()).toBe(0)
  expect((await p.page.locator('main').textContent())?.toLowerCase()).not.toContain('machine')
  await p.page.goto(`${home.base}/#/new`)
  await p.page.getByRole('heading', { name: 'Project' }).waitFor()
  expect((await p.page.locator('main').textContent())?.toLowerCase()).not.toContain('machine')
  await closePhone(p)
})

test('grouped by machine; an offline machine dimmed with its last-seen time; a remote agent answered from its card', async () => {
  await addMachine(home, 'laptop', laptop)
  await addMachine(home, 'desk', desk)
  const p = await openPhone(browser, ADMIN)
  await p.page.goto(home.base)
  await p.page.locator('section.machine[data-machine="desk"] li.pane').waitFor({ timeout: 15_000 })
  await p.page.locator('section.machine[data-machine="laptop"] li.pane').waitFor({ timeout: 15_000 })
  expect(await p.page.locator('section.machine').evaluateAll((els) => els.map((e) => e.getAttribute('data-machine')))).toEqual(['local', 'laptop', 'desk'])
  expect(await p.page.locator('.machine-head .machine-name').allTextContents()).toEqual(['This machine', 'laptop', 'desk'])
  expect(await p.page.locator('section.machine[data-machine="laptop"] li.pane').getAttribute('data-pane')).toBe('laptop/w1:p2')
  await expect(p.page.locator('section.machine[data-machine="laptop"] .on-machine').textContent()).resolves.toBe('laptop')

  // the desk goes away: its section dimmed, with when it was last seen; its row stays
  await desk.stop()
  deskStopped = true
  const deskSection = p.page.locator('section.machine.m-offline[data-machine="desk"]')
  await deskSection.waitFor({ timeout: 15_000 })
  await expect(deskSection.locator('.last-seen').textContent()).resolves.toBe('last seen just now')
  expect(await deskSection.locator('li.pane.stale').count()).toBe(1)
  const opacity = await deskSection
    .locator('.panes')
    .evaluate((e) => (globalThis as unknown as { getComputedStyle(e: unknown): { opacity: string } }).getComputedStyle(e).opacity)
  expect(Number(opacity)).toBeLessThan(1)

  // the laptop's agent, answered from its card through the home
  const before = laptop.calls().length
  await p.page.locator('section.machine[data-machine="laptop"] li.pane a').click()
  await expect(p.page.locator('.agent-machine').textContent()).resolves.toBe(' on laptop')
  const option = p.page.locator('.answer .option', { hasText: 'Yes, and' })
  await option.waitFor({ timeout: 15_000 })
  await option.click()
  const typed = await waitFor(() => {
    const keys = laptop
      .calls()
      .slice(before)
      .filter((c) => c[1] === 'send-keys' || c[1] === 'send-text')
    return keys.length > 0 ? keys : undefined
  }, 15_000)
  expect(typed.map((c) => [c[2], c.slice(3).join(' ')])).toEqual([['w1:p2', '2']])
  expect(p.errors).toEqual([])

  // starting an agent asks which machine (an offline one cannot be picked)
  await p.page.goto(`${home.base}/#/new`)
  const choice = p.page.getByRole('radiogroup', { name: 'machine' })
  await choice.waitFor({ timeout: 10_000 })
  expect(await choice.locator('label').allTextContents()).toEqual([' This machine', ' laptop', ' desk'])
  expect(await choice.locator('input[value="desk"]').isDisabled()).toBe(true)
  await closePhone(p)
})
