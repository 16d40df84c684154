// The phone client in a real browser: Debian's chromium, headless, at a phone's
// viewport, against the real bridge with the fake herdr and real corpus sessions.
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { appendFileSync, existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { ADMIN, ROOT, claudePane, pairDevice, startBridge, waitFor, type Bridge } from '../support/harness'
import { claudeHome, type ClaudeHome } from '../support/claude-home'

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium'
if (!existsSync(CHROMIUM)) {
  throw new Error(`the browser tests need Chromium at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM to its path)`)
}

const SCREENS = join(ROOT, 'fixtures/screens')
const TIMING = { tailPollMs: 40, sessionPollMs: 200, rosterPollMs: 200 }

let browser: Browser
let b: Bridge
let long: ClaudeHome

beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
  long = claudeHome('cc-long')
  b = await startBridge({
    homes: { claudeDir: long.dir },
    timing: TIMING,
    push: true,
    state: {
      panes: [
        claudePane({
          pane_id: 'w1:p1',
          label: 'long job',
          cwd: long.cwd,
          screen_file: join(SCREENS, 'cc-long/02-done.txt'),
          agent: { agent_status: 'done', state_change_seq: 3, agent_session: { agent: 'claude', kind: 'id', source: 'herdr:claude', value: long.id } as any },
        }),
        claudePane({
          pane_id: 'w1:p2',
          label: 'bash prompt',
          screen_file: join(SCREENS, 'cc-bash-prompt/01-bash-prompt.txt'),
          agent: { agent_status: 'blocked', state_change_seq: 9 },
        }),
        { pane_id: 'w1:p3', workspace_id: 'w1', tab_id: 'w1:t1', screen: '$ ' },
      ],
    },
  })
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await b?.stop()
})

interface Phone {
  ctx: BrowserContext
  page: Page
  /** every URL the page asked for */
  requests: string[]
  /** console errors and uncaught exceptions */
  errors: string[]
}

let phones: Phone[] = []
// A page is stilled before its context closes: its listeners off, then a blank page, so no
// request, socket or service worker fetch of the app is in flight as the context goes. Playwright
// can fail on a network event that races a page's teardown ("Object with guid response@… was not
// bound in the connection", microsoft/playwright#22210), and it fails whichever test is running.
afterEach(async () => {
  for (const p of phones) {
    p.page.removeAllListeners()
    try {
      await p.page.goto('about:blank')
    } finally {
      await p.ctx.close()
    }
  }
  phones = []
})

/**
 * A phone-sized page; with a token, already paired. The app's service worker is blocked unless
 * asked for: only the test of everything a page loads needs it, and the others then have just the
 * requests they drive in flight.
 */
async function phone(token: string | null = ADMIN, o: { serviceWorker?: boolean } = {}): Promise<Phone> {
  const ctx = await browser.newContext({
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
    deviceScaleFactor: 2,
    serviceWorkers: o.serviceWorker ? 'allow' : 'block',
  })
  if (token) await ctx.addInitScript((t) => localStorage.setItem('gothalo.token', t), token)
  const page = await ctx.newPage()
  const p: Phone = { ctx, page, requests: [], errors: [] }
  page.on('request', (r) => p.requests.push(r.url()))
  page.on('console', (m) => {
    // with where it came from: a failed fetch's message does not name its URL
    if (m.type() === 'error') p.errors.push(`${m.text()} @ ${m.location().url}`)
  })
  page.on('pageerror', (e) => p.errors.push(e.message))
  phones.push(p)
  return p
}

const onlyThisHost = (p: Phone) => p.requests.filter((u) => !u.startsWith(b.base) && !u.startsWith(b.wsBase) && !u.startsWith('data:'))

describe('the phone client', () => {
  setDefaultTimeout(60_000)
  test('pairs from the link a QR code encodes, and keeps the device token', async () => {
    const { code } = (await (await b.post('/pair/code', {})).json()) as { code: string }
    const p = await phone(null)
    await p.page.goto(`${b.base}/#pair=${code}`)
    await p.page.getByRole('heading', { name: 'Agents' }).waitFor({ timeout: 10_000 })
    const token = await p.page.evaluate(() => localStorage.getItem('gothalo.token'))
    expect(token).toMatch(/^[A-Za-z0-9_-]{20,}$/)
    expect(p.page.url()).not.toContain(code)
    const devices = await b.json('/devices')
    expect(devices.some((d: any) => d.name.includes('on'))).toBe(true)
    // The same code cannot pair twice.
    const again = await b.post('/pair', { code, device_name: 'x' }, null)
    expect(again.status).toBe(403)
    expect(onlyThisHost(p)).toEqual([])
  })

  test('a wrong code says so and stays on the pairing screen', async () => {
    const p = await phone(null)
    await p.page.goto(`${b.base}/`)
    await p.page.getByLabel('Pairing code').fill('ZZZZ-ZZZZ')
    await p.page.getByRole('button', { name: 'Pair' }).click()
    await expect(p.page.getByRole('alert').textContent()).resolves.toBe('invalid or expired code')
    expect(await p.page.evaluate(() => localStorage.getItem('gothalo.token'))).toBeNull()
  })

  test('lists every pane, blocked first, and follows a status change', async () => {
    const p = await phone()
    await p.page.goto(`${b.base}/#/`)
    const rows = p.page.locator('li.pane')
    await waitFor(async () => (await rows.count()) === 3, 30_000, 'three rows').catch(async (e) => {
      throw new Error(`${e.message}; the page shows: ${await p.page.locator('main').textContent()}`)
    })
    expect(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-pane')))).toEqual(['w1:p2', 'w1:p1', 'w1:p3'])
    await expect(p.page.locator('li.pane.blocked .headline').textContent()).resolves.toBe('Do you want to proceed?')
    await expect(p.page.locator('.attention').textContent()).resolves.toBe('1 agent needs you')

    b.updatePane('w1:p1', (x) => {
      x.agent!.agent_status = 'blocked'
      x.agent!.state_change_seq = 4
      x.screen_file = join(SCREENS, 'cc-askuser/01-question.txt')
    })
    await p.page.locator('li.pane[data-pane="w1:p1"].blocked').waitFor({ timeout: 10_000 })
    await expect(p.page.locator('.attention').textContent()).resolves.toBe('2 agents need you')
    b.updatePane('w1:p1', (x) => {
      x.agent!.agent_status = 'done'
      x.agent!.state_change_seq = 5
      x.screen_file = join(SCREENS, 'cc-long/02-done.txt')
    })
    await p.page.locator('li.pane[data-pane="w1:p1"].done').waitFor({ timeout: 10_000 })
    expect(onlyThisHost(p)).toEqual([])
  })

  test('answers a dialog: the fake herdr receives the keys for the option tapped', async () => {
    const before = b.calls().length
    const p = await phone()
    await p.page.goto(`${b.base}/#/p/${encodeURIComponent('w1:p2')}`)
    const option = p.page.locator('.answer .option', { hasText: 'Yes, and' })
    await option.waitFor({ timeout: 10_000 })
    await expect(p.page.locator('.answer .question').textContent()).resolves.toBe('Do you want to proceed?')
    await option.click()
    const typed = await waitFor(
      () => {
        const keys = b
          .calls()
          .slice(before)
          .filter((c) => c[1] === 'send-keys' || c[1] === 'send-text')
        return keys.length > 0 ? keys : undefined
      },
      10_000,
      'keys sent to the pane',
    )
    // Option 2 of a numbered Claude Code dialog: its digit, typed into w1:p2, and nothing else.
    expect(typed.map((c) => c[2])).toEqual(typed.map(() => 'w1:p2'))
    expect(typed.map((c) => c.slice(3).join(' '))).toEqual(['2'])
  })

  test('a device paired to watch only: the question without buttons, no send box, mode or terminal; the list says view only', async () => {
    const viewer = await pairDevice(b, 'viewer', ['read'])
    const before = b.calls().filter((c) => c[1] === 'send-keys' || c[1] === 'send-text').length
    const p = await phone(viewer.token)
    await p.page.goto(`${b.base}/#/`)
    await p.page.locator('.view-only', { hasText: 'view only' }).waitFor({ timeout: 10_000 })
    // a shell pane is not a link to the terminal
    expect(await p.page.locator('li.pane.shell a').getAttribute('href')).toBeNull()
    await p.page.goto(`${b.base}/#/p/${encodeURIComponent('w1:p2')}`)
    await p.page.locator('.answer.view-only .question', { hasText: 'Do you want to proceed?' }).waitFor({ timeout: 10_000 })
    expect(await p.page.locator('.answer.view-only li').allTextContents()).toEqual([
      'Yes',
      "Yes, and don't ask again for mkdir -p build and date commands in /home/me/cc-bash-prompt/proj",
      'No',
    ])
    await p.page.getByText('This device can watch, not answer.').waitFor()
    expect(await p.page.locator('button.option, form.send, button.mode, a.term-link').count()).toBe(0)
    // the transcript is still there to read
    await p.page.locator('.transcript').waitFor()
    expect(b.calls().filter((c) => c[1] === 'send-keys' || c[1] === 'send-text').length).toBe(before)
    // (w1:p2 has no session file here: its transcript socket and its /usage are refused with 404, which the browser logs)
    expect(p.errors.filter((e) => !/agent-transcript\?pane=w1%3Ap2.*404|404.* @ .*\/usage\?pane=w1%3Ap2$/.test(e))).toEqual([])
  })

  test('attaches a photo: a thumbnail to remove or keep, then the agent gets its path pasted and the message', async () => {
    const png = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d494844520000000100000001', 'hex'), Buffer.alloc(40)])
    const p = await phone()
    await p.page.goto(`${b.base}/#/p/${encodeURIComponent('w1:p1')}`)
    const picker = p.page.locator('form.send input[type=file]')
    await picker.setInputFiles([{ name: 'screen.png', mimeType: 'image/png', buffer: png }])
    await p.page.locator('.thumbs img[alt="screen.png"]').waitFor()
    await p.page.getByRole('button', { name: 'remove screen.png' }).click()
    expect(await p.page.locator('.thumbs').count()).toBe(0)
    await picker.setInputFiles([{ name: 'bug.png', mimeType: 'image/png', buffer: png }])
    await p.page.locator('.thumbs img[alt="bug.png"]').waitFor()
    await p.page.getByPlaceholder('Message the agent…').fill('what is wrong here?')
    const before = b.calls().length
    await p.page.getByRole('button', { name: 'Send', exact: true }).click()
    const typed = await waitFor(
      () => {
        const c = b
          .calls()
          .slice(before)
          .filter((x) => x[1] === 'send-input' || x[1] === 'send-text' || x[1] === 'send-keys')
        return c.length >= 3 ? c : undefined
      },
      10_000,
      'the paste, the message and Enter',
    )
    expect(typed[0]).toEqual(['pane', 'send-input', 'w1:p1', expect.stringMatching(/\/attachments\/[0-9a-f]{32}\.png$/)])
    expect(typed.slice(1)).toEqual([
      ['pane', 'send-text', 'w1:p1', 'what is wrong here?'],
      ['pane', 'send-keys', 'w1:p1', 'enter'],
    ])
    await waitFor(async () => (await p.page.locator('.thumbs').count()) === 0, 5000, 'the thumbnails cleared')
  })

  test('Share → gothalo: the worker keeps the shared photo, the app asks which agent gets it, then sends it there', async () => {
    const png = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d494844520000000100000001', 'hex'), Buffer.alloc(40)])
    const p = await phone(ADMIN, { serviceWorker: true })
    await p.page.goto(`${b.base}/#/`)
    await p.page.getByRole('heading', { name: 'Agents' }).waitFor()
    // the page is controlled by the app's worker once it reloads under it
    await p.page.evaluate(() => (navigator as unknown as { serviceWorker: { ready: Promise<unknown> } }).serviceWorker.ready)
    await p.page.reload()
    await p.page.waitForFunction(() => (navigator as unknown as { serviceWorker: { controller: unknown } }).serviceWorker.controller !== null)
    // what Android's share sheet does: a multipart POST to the manifest's share_target action
    const landed = await p.page.evaluate(
      async (bytes) => {
        const form = new FormData()
        form.append('text', 'the login page is broken')
        form.append('files', new File([new Uint8Array(bytes)], 'shot.png', { type: 'image/png' }))
        const r = await fetch('/share-target', { method: 'POST', body: form })
        return r.url
      },
      [...png],
    )
    expect(landed).toBe(`${b.base}/`)
    await p.page.goto(`${b.base}/#/share`)
    await p.page.getByRole('heading', { name: 'Share with an agent' }).waitFor()
    await p.page.locator('.shared img[alt="shot.png"]').waitFor()
    expect(await p.page.getByPlaceholder('What should it do with it?').inputValue()).toBe('the login page is broken')
    // the agent waits for input (an earlier test's message may have set it working)
    b.updatePane('w1:p1', (x) => {
      x.agent!.agent_status = 'done'
      x.typed = ''
    })
    await waitFor(async () => ((await b.json('/snapshot')) as any).panes.find((r: any) => r.pane_id === 'w1:p1')?.agent_status === 'done', 5000, 'w1:p1 done')
    const before = b.calls().length
    await p.page.locator('ul.agents button', { hasText: 'long job' }).click()
    await p.page.waitForURL(`${b.base}/#/p/w1%3Ap1`)
    const typed = b
      .calls()
      .slice(before)
      .filter((x) => x[1] === 'send-input' || x[1] === 'send-text')
    expect(typed).toEqual([
      ['pane', 'send-input', 'w1:p1', expect.stringMatching(/\/attachments\/[0-9a-f]{32}\.png$/)],
      ['pane', 'send-text', 'w1:p1', 'the login page is broken'],
    ])
    // taken once: the share screen, opened afresh, is empty
    await p.page.goto(`${b.base}/#/share`)
    await p.page.reload()
    await p.page.getByText('Nothing was shared').waitFor()
  })

  test('an admin device reads the audit log (Activity); a device without admin sees no link to it', async () => {
    const viewer = await pairDevice(b, 'viewer-2', ['read'])
    await b.post('/send', { pane: 'w1:p3', text: 'ls\n' })
    const p = await phone()
    await p.page.goto(`${b.base}/#/`)
    await p.page.getByRole('link', { name: 'Activity' }).click()
    await p.page.getByRole('heading', { name: 'Activity' }).waitFor()
    const row = p.page.locator('li.audit-row', { hasText: 'send' }).first()
    await row.waitFor()
    expect(await row.textContent()).toContain('w1:p3')
    expect(await row.textContent()).toContain('3 characters typed')
    expect(await p.page.locator('li.audit-row', { hasText: 'pair.code' }).count()).toBeGreaterThan(0)
    // what the bounded log keeps reads as words: a count of requests without a token, a malformed body by its size
    for (let i = 0; i < 3; i++) await b.post('/send', { pane: 'w1:p3', text: 'x' }, 'not-a-token')
    await b.post('/send', { pane: 'w1:p3', text: 7 })
    await p.page.reload()
    await p.page.locator('li.audit-row', { hasText: 'unauthenticated' }).first().waitFor()
    // the row counts every request without a token from this address this minute (earlier tests' too): the phone shows the bridge's count
    const counted = ((await b.json('/audit?limit=100')) as { rows: { action: string; detail: { count?: number } }[] }).rows.find(
      (r) => r.action === 'unauthenticated',
    )?.detail.count
    expect(counted).toBeGreaterThanOrEqual(3)
    expect(await p.page.locator('li.audit-row', { hasText: 'unauthenticated' }).first().textContent()).toContain(
      `${counted} without a valid token from 127.0.0.1`,
    )
    expect(await p.page.locator('li.audit-row', { hasText: 'send' }).first().textContent()).toContain('a malformed request (25 bytes, not kept)')
    const v = await phone(viewer.token)
    await v.page.goto(`${b.base}/#/`)
    await v.page.getByRole('heading', { name: 'Agents' }).waitFor()
    await v.page.locator('.view-only').waitFor()
    expect(await v.page.getByRole('link', { name: 'Activity' }).count()).toBe(0)
  })

  test('scrolls back through a long transcript, page by page, with no gap', async () => {
    const p = await phone()
    await p.page.goto(`${b.base}/#/p/${encodeURIComponent('w1:p1')}`)
    const seqs = () => p.page.locator('.transcript [data-seq]').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-seq'))))
    await waitFor(async () => (await seqs()).length > 50, 30_000, 'the newest page')
    const first = await seqs()
    const newestOldest = Math.min(...first)
    for (let i = 0; i < 3; i++) {
      const lowest = Math.min(...(await seqs()))
      await p.page.locator('.transcript').evaluate((el) => {
        el.scrollTop = 0
        el.dispatchEvent(new Event('scroll'))
      })
      await waitFor(async () => Math.min(...(await seqs())) < lowest, 30_000, 'an older page')
    }
    const all = await seqs()
    expect(Math.min(...all)).toBeLessThan(newestOldest - 300)
    // Entries are on screen in seq order, each once (tool results ride inside their calls).
    expect([...all].sort((x, y) => x - y)).toEqual(all)
    expect(new Set(all).size).toBe(all.length)
    expect(p.errors).toEqual([])
  })

  test('follows a live append at the bottom', async () => {
    const p = await phone()
    await p.page.goto(`${b.base}/#/p/${encodeURIComponent('w1:p1')}`)
    await waitFor(async () => (await p.page.locator('.transcript [data-seq]').count()) > 50, 30_000, 'the newest page')
    const template = readFileSync(long.file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .findLast((o) => o.type === 'user' && typeof o.message?.content === 'string')
    const line = {
      ...template,
      uuid: crypto.randomUUID(),
      timestamp: new Date().toISOString(),
      message: { ...template.message, content: 'a prompt typed while the phone watched' },
    }
    appendFileSync(long.file, JSON.stringify(line) + '\n')
    const bubble = p.page.locator('.transcript .msg-user', { hasText: 'a prompt typed while the phone watched' })
    await bubble.waitFor({ timeout: 10_000 })
    // Followed: the new entry is in view at the bottom.
    expect(await bubble.isVisible()).toBe(true)
    // (the scroll follows the render: wait for it, as a reader's eye would)
    const atBottom = () => p.page.locator('.transcript').evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight < 60)
    await waitFor(atBottom, 5000, 'the view to follow to the bottom')
    // Something above the transcript appearing late (the usage strip once /usage answers) shrinks
    // its box: a view that follows the tail stays at the bottom.
    await p.page.evaluate(() => {
      const d = (globalThis as any).document
      const tall = d.createElement('div')
      tall.style.height = '160px'
      d.querySelector('.transcript-wrap').before(tall)
    })
    await waitFor(atBottom, 5000, 'the view to stay at the bottom when its box shrinks')
  })

  test('a scroll before the newest page is complete does not stop the view going to the bottom', async () => {
    const p = await phone()
    // backlog_complete is held back, so the page is still filling when the view moves
    let release!: () => void
    const held = new Promise<void>((r) => (release = r))
    let reached!: () => void
    const atComplete = new Promise<void>((r) => (reached = r))
    await p.page.routeWebSocket(/\/agent-transcript/, (ws) => {
      const server = ws.connectToServer()
      server.onMessage(async (m) => {
        if (typeof m === 'string' && m.includes('"type":"backlog_complete"')) {
          reached()
          await held
        }
        ws.send(m)
      })
      ws.onMessage((m) => server.send(m))
    })
    await p.page.goto(`${b.base}/#/p/${encodeURIComponent('w1:p1')}`)
    await atComplete
    await waitFor(async () => (await p.page.locator('.transcript [data-seq]').count()) > 50, 30_000, 'the newest page')
    // the browser moves the view while the page fills (its scroll anchoring can): not the reader
    await p.page.locator('.transcript').evaluate((el) => {
      el.scrollTop = 200
      el.dispatchEvent(new Event('scroll'))
    })
    release()
    const atBottom = () => p.page.locator('.transcript').evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight < 60)
    await waitFor(atBottom, 5000, 'the view at the bottom once the newest page is complete')
  })

  test('no request leaves for another host, and nothing logs an error', async () => {
    const p = await phone(ADMIN, { serviceWorker: true })
    await p.page.goto(`${b.base}/#/`)
    await waitFor(async () => (await p.page.locator('li.pane').count()) === 3, 30_000, 'the list')
    // the worker's install fetches the app shell for its cache: let those finish before asking the page
    // (a response Playwright reports while a call is pending can fail that call, microsoft/playwright#22210)
    await p.page.waitForLoadState('networkidle')
    // the app shell's service worker is installed and running, from this host
    // (the bridge's types have no DOM: the page's navigator is typed here by what the test reads)
    const workerUrl = p.page.evaluate(async () => {
      const sw = (navigator as unknown as { serviceWorker: { ready: Promise<{ active: { scriptURL: string } | null }> } }).serviceWorker
      return (await sw.ready).active?.scriptURL
    })
    await expect(workerUrl).resolves.toBe(`${b.base}/sw.js`)
    await p.page.locator('li.pane[data-pane="w1:p1"] a').click()
    await waitFor(async () => (await p.page.locator('.transcript [data-seq]').count()) > 10, 30_000, 'the transcript')
    await p.page.goto(`${b.base}/#/p/${encodeURIComponent('w1:p3')}/term`)
    await p.page.locator('.xterm').waitFor({ timeout: 10_000 })
    expect(onlyThisHost(p)).toEqual([])
    expect(p.requests.some((u) => u.startsWith(`${b.base}/app.js`))).toBe(true)
    expect(p.errors).toEqual([])
  })
})
