// Starting, resuming and stopping agents from the phone client, in Debian's
// Chromium at a phone's size, against the real bridge and the fake herdr.
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { closePhone, launchChromium } from '../support/browser'
import { ADMIN, ROOT, homesIn, pairDevice, startBridge, tempDir, waitFor, type Bridge } from '../support/harness'

let browser: Browser
let b: Bridge
let home: string
let project: string
let sessionId: string

beforeAll(async () => {
  browser = await launchChromium()
  home = tempDir('gothalo-start-web-')
  project = join(home, 'shop')
  mkdirSync(join(project, '.git'), { recursive: true })
  mkdirSync(join(home, 'fresh'))
  const homes = homesIn(home)
  // a real Claude Code session, moved to the project
  const src = join(ROOT, 'fixtures/claude/cc-tools-mix/projects')
  const dir = readdirSync(src)[0]!
  const file = readdirSync(join(src, dir)).find((f) => f.endsWith('.jsonl'))!
  sessionId = file.slice(0, -6)
  const dst = join(homes.claudeDir, 'projects', project.replaceAll('/', '-'))
  mkdirSync(dst, { recursive: true })
  writeFileSync(join(dst, file), readFileSync(join(src, dir, file), 'utf8').replaceAll('/home/me/cc-tools-mix/proj', project))
  b = await startBridge({ homes, herdrSocket: true, state: { panes: [] }, deps: { projectRoots: [home], agentInstalled: () => true } })
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await b?.stop()
})

let open: { ctx: BrowserContext; page: Page }[] = []
afterEach(async () => {
  for (const p of open) await closePhone(p)
  open = []
})

async function phone(token = ADMIN): Promise<Page> {
  const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, serviceWorkers: 'block' })
  await ctx.addInitScript((t) => localStorage.setItem('gothalo.token', t), token)
  const page = await ctx.newPage()
  page.on('dialog', (d) => void d.accept())
  open.push({ ctx, page })
  return page
}

const started = () => b.calls().filter((c) => c[0] === 'agent' && c[1] === 'start')
const paneFromUrl = (url: string) => decodeURIComponent(/#\/p\/([^/]+)$/.exec(url)?.[1] ?? '')

describe('new agent, resume, stop (Chromium)', () => {
  setDefaultTimeout(60_000)

  test('from the list: a recent project, an agent, a prompt; the new agent opens', async () => {
    const page = await phone()
    await page.goto(`${b.base}/#/`)
    await page.getByRole('link', { name: '+ New agent' }).click()
    await page.getByRole('heading', { name: 'New agent' }).waitFor()
    await page.locator('button.project', { hasText: 'shop' }).click()
    await page.getByLabel('pi').check()
    await page.getByLabel('What should it do? (optional)').fill('add a README')
    const before = started().length
    await page.getByRole('button', { name: 'Start' }).click()
    await page.waitForURL(/#\/p\/w\d+%3Ap\d+$/)
    const pane = paneFromUrl(page.url())
    expect(started().slice(before)).toEqual([
      ['agent', 'start', expect.stringMatching(/^pi-[0-9a-f]{4}$/), '--kind', 'pi', '--pane', pane, '--timeout', '30000'],
    ])
    await waitFor(() => b.calls().some((c) => c[1] === 'prompt' && c[3] === 'add a README'), 5000, 'the prompt')
    expect(b.state().panes.find((p) => p.pane_id === pane)?.cwd).toBe(project)
  })

  test("a project's session: Resume starts its agent with the session", async () => {
    const page = await phone()
    await page.goto(`${b.base}/#/new`)
    await page.locator('button.project', { hasText: 'shop' }).click()
    const row = page.locator('.sessions li', { hasText: 'Give me a tour of your tools' })
    await row.getByRole('button', { name: 'Resume' }).click()
    await page.waitForURL(/#\/p\/w\d+%3Ap\d+$/)
    const pane = paneFromUrl(page.url())
    expect(b.state().panes.find((p) => p.pane_id === pane)?.started_argv).toEqual(['claude', '--resume', sessionId])
  })

  test('browse to a folder; then Stop on the agent closes its pane', async () => {
    const page = await phone()
    await page.goto(`${b.base}/#/new`)
    await page.getByRole('button', { name: 'Browse folders…' }).click()
    await page.locator('button.dir', { hasText: home }).click()
    await page.locator('button.dir', { hasText: 'fresh' }).click()
    await page.getByRole('button', { name: 'Use this folder' }).click()
    await page.locator('.chosen code', { hasText: join(home, 'fresh') }).waitFor()
    await page.getByRole('button', { name: 'Start' }).click()
    await page.waitForURL(/#\/p\/w\d+%3Ap\d+$/)
    const pane = paneFromUrl(page.url())
    expect(b.state().panes.find((p) => p.pane_id === pane)?.cwd).toBe(join(home, 'fresh'))
    await page.getByRole('button', { name: 'Stop' }).click()
    await page.waitForURL(`${b.base}/#/`)
    expect(b.state().panes.some((p) => p.pane_id === pane)).toBe(false)
  })

  test('a start that timed out opens its pane, and Stop closes the shell left in it', async () => {
    b.setState({ ...b.state(), start: { pi: 'not-on-path' } })
    try {
      const page = await phone()
      await page.goto(`${b.base}/#/new`)
      await page.locator('button.project', { hasText: 'shop' }).click()
      await page.locator('input[name=kind][value=pi]').check()
      await page.getByRole('button', { name: 'Start' }).click()
      await page.waitForURL(/#\/p\/w\d+%3Ap\d+$/, { timeout: 30_000 })
      const pane = paneFromUrl(page.url())
      expect(b.state().panes.find((p) => p.pane_id === pane)?.agent).toBeUndefined()
      await page.getByRole('button', { name: 'Stop' }).click()
      await page.waitForURL(`${b.base}/#/`)
      expect(b.state().panes.some((p) => p.pane_id === pane)).toBe(false)
    } finally {
      b.setState({ ...b.state(), start: {} })
    }
  })

  test('Resume on a session that became live in a pane meanwhile opens that pane; nothing is started', async () => {
    const page = await phone()
    await page.goto(`${b.base}/#/new`)
    await page.locator('button.project', { hasText: 'shop' }).click()
    const row = page.locator('.sessions li', { hasText: 'Give me a tour of your tools' })
    const resume = row.getByRole('button', { name: 'Resume' })
    await resume.waitFor()
    // another phone resumed it: a pane shows it now
    b.setState({
      ...b.state(),
      panes: [
        ...b.state().panes,
        {
          pane_id: 'w50:p1',
          workspace_id: 'w50',
          tab_id: 'w50:t1',
          cwd: project,
          agent: { agent: 'claude', agent_status: 'idle', cwd: project, agent_session: { agent: 'claude', kind: 'id', value: sessionId } } as never,
        },
      ],
    })
    const before = started().length
    await resume.click()
    await page.waitForURL(/#\/p\/w50%3Ap1$/)
    expect(started().length).toBe(before)
  })

  test('a device without the start scope sees no New agent and no Stop', async () => {
    const viewer = await pairDevice(b, 'viewer', ['read', 'answer'])
    const page = await phone(viewer.token)
    await page.goto(`${b.base}/#/`)
    await page.getByRole('heading', { name: 'Agents' }).waitFor()
    await page.locator('li.pane').first().waitFor()
    expect(await page.getByRole('link', { name: '+ New agent' }).count()).toBe(0)
    await page.locator('li.pane a').first().click()
    await page.locator('.transcript, .card').first().waitFor()
    expect(await page.getByRole('button', { name: 'Stop' }).count()).toBe(0)
  })
})
