// Notifications that act, end to end in a real browser: the bridge pushes to a
// push-service stand-in, which decrypts each message (RFC 8291) and hands it to
// the app's installed service worker in Debian's Chromium through the DevTools
// protocol (ServiceWorker.deliverPushMessage), as a push service would. Then we
// look at what the worker shows and closes, and press its buttons.
import { afterAll, afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createECDH, randomBytes } from 'node:crypto'
import { join } from 'node:path'
import ece from 'http_ece'
import type { Browser, BrowserContext, CDPSession, Page, Worker } from 'playwright-core'
import { closePhone, launchChromium } from '../support/browser'
import { ROOT, claudePane, pairDevice, startBridge, waitFor, type Bridge } from '../support/harness'

const S = (f: string) => join(ROOT, 'fixtures/screens-bridge', f)

// What the page and the worker see (the bridge's type check has no DOM or worker lib): typed where read.
declare const self: any
declare const indexedDB: any

let browser: Browser
let b: Bridge
let dev: { device_id: string; token: string }
/** what the push service stand-in received, decrypted */
const delivered: any[] = []
let deliver: (plaintext: string) => Promise<void> = async () => {}
let pushServer: ReturnType<typeof Bun.serve>

beforeAll(async () => {
  browser = await launchChromium()
  b = await startBridge({
    herdrSocket: true,
    push: { backoffMs: 50, timeoutMs: 5000 },
    pushCoalesceMs: 2500,
    state: {
      panes: ['w1:p2', 'w1:p3'].map((id) =>
        claudePane({ pane_id: id, label: `job ${id.slice(-1)}`, screen_file: S('mode-default.txt'), agent: { agent_status: 'working', state_change_seq: 1 } }),
      ),
    },
  })
  dev = await pairDevice(b, 'Chromium')
  // The browser's subscription keys: headless Chromium reaches no real push service, so the keys
  // are made here and the stand-in decrypts with them, then delivers the plaintext to the worker.
  const ecdh = createECDH('prime256v1')
  ecdh.generateKeys()
  const auth = randomBytes(16)
  pushServer = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const body = Buffer.from(await req.arrayBuffer())
      const plain = ece.decrypt(body, { version: 'aes128gcm', privateKey: ecdh, authSecret: auth.toString('base64url') }).toString('utf8')
      delivered.push(JSON.parse(plain))
      await deliver(plain).catch(() => {}) // a phone closed meanwhile: the push service took it all the same
      return new Response(null, { status: 201 })
    },
  })
  const sub = {
    endpoint: `http://127.0.0.1:${pushServer.port}/push/chromium`,
    keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
  }
  expect((await b.post('/push/subscriptions', { subscription: sub, events: ['blocked', 'done'] }, dev.token)).status).toBe(200)
  await waitFor(() => b.app.decorator.events.ready, 5000, 'the event hub')
}, 60_000)

afterAll(async () => {
  await browser?.close()
  pushServer?.stop(true)
  await b?.stop()
})

interface Phone {
  ctx: BrowserContext
  page: Page
  cdp: CDPSession
  worker: Worker
  registrationId: string
}
let phone: Phone | undefined

afterEach(async () => {
  deliver = async () => {}
  if (phone) await closePhone(phone)
  phone = undefined
})

/** The app, paired, with its worker installed and holding the token; then the page leaves (no window of the app). */
async function openPhone(o: { stay?: boolean } = {}): Promise<Phone> {
  const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, serviceWorkers: 'allow' })
  await ctx.grantPermissions(['notifications'], { origin: b.base })
  await ctx.addInitScript((t) => localStorage.setItem('gothalo.token', t), dev.token)
  const page = await ctx.newPage()
  const cdp = await ctx.newCDPSession(page)
  const regs: { registrationId: string; scopeURL: string; isDeleted: boolean }[] = []
  cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => regs.push(...(e.registrations as typeof regs)))
  await cdp.send('ServiceWorker.enable')
  const workerSeen = ctx.waitForEvent('serviceworker')
  await page.goto(`${b.base}/`)
  await page.getByRole('heading', { name: 'Agents' }).waitFor()
  await page.evaluate(() => (navigator as any).serviceWorker.ready.then(() => undefined))
  const worker = ctx.serviceWorkers()[0] ?? (await workerSeen)
  // the app copies its token where the worker reads it
  await waitFor(() => worker.evaluate(readToken).then((t) => t === dev.token), 5000, "the worker's copy of the token")
  await waitFor(() => regs.some((r) => !r.isDeleted && r.scopeURL.startsWith(b.base)), 5000, 'the registration')
  const registrationId = regs.find((r) => !r.isDeleted && r.scopeURL.startsWith(b.base))!.registrationId
  // the app says it is on screen: the bridge is quiet for this device
  await waitFor(() => b.app.decorator.presence.watching(dev.device_id), 5000, 'the visibility report')
  if (!o.stay) {
    await page.goto('about:blank')
    await waitFor(() => !b.app.decorator.presence.watching(dev.device_id), 5000, 'the app gone')
  }
  const p: Phone = { ctx, page, cdp, worker, registrationId }
  deliver = (data) => p.cdp.send('ServiceWorker.deliverPushMessage', { origin: b.base, registrationId, data }).then(() => undefined)
  phone = p
  return p
}

function readToken(): Promise<string | null> {
  return new Promise((res) => {
    const open = indexedDB.open('gothalo', 1)
    open.onupgradeneeded = () => open.result.createObjectStore('kv')
    open.onsuccess = () => {
      const get = open.result.transaction('kv').objectStore('kv').get('token')
      get.onsuccess = () => res(get.result ?? null)
      get.onerror = () => res(null)
    }
    open.onerror = () => res(null)
  })
}

interface Shown {
  title: string
  body: string
  tag: string
  actions: { action: string; title: string }[]
  data: any
}

const shown = (p: Phone): Promise<Shown[]> =>
  p.worker.evaluate(async () =>
    (await self.registration.getNotifications()).map((n: any) => ({
      title: n.title,
      body: n.body,
      tag: n.tag,
      actions: n.actions.map((a: any) => ({ action: a.action, title: a.title })),
      data: n.data,
    })),
  )

const handled = (p: Phone): Promise<{ pushes: number; clicks: number }> => p.worker.evaluate(() => ({ ...self.handled }))

/**
 * The notifications shown once the worker has handled this many pushes and clicks. Read only
 * then: a read of the notifications while the worker shows one can lose it in Chromium.
 */
async function shownAfter(p: Phone, n: { pushes?: number; clicks?: number }): Promise<Shown[]> {
  await waitFor(
    async () => {
      const h = await handled(p)
      return h.pushes >= (n.pushes ?? 0) && h.clicks >= (n.clicks ?? 0)
    },
    10_000,
    `the worker to handle ${JSON.stringify(n)}`,
  )
  return shown(p)
}

/** Presses a notification's button (or its body, with action ''), as the platform would. */
const press = (p: Phone, tag: string, action: string) =>
  p.worker.evaluate(
    async ([tag, action]) => {
      const n = (await self.registration.getNotifications()).find((x: any) => x.tag === tag)
      if (!n) throw new Error(`no notification ${tag}`)
      self.dispatchEvent(new self.NotificationEvent('notificationclick', { notification: n, action }))
    },
    [tag, action],
  )

const setPane = (pane: string, screen: string, status: string, seq: number) =>
  b.updatePane(pane, (p) => {
    p.screen_file = S(screen)
    p.agent!.agent_status = status as any
    p.agent!.state_change_seq = seq
  })

const keys = () => b.calls().filter((c) => c[1] === 'send-keys' || c[1] === 'send-text')

let seq = 10
const next = () => ++seq

describe('notifications that act (Chromium)', () => {
  setDefaultTimeout(60_000)

  test('a blocked agent: its question with two buttons; a button answers through /answer and the notification says Sent; answered, it is closed', async () => {
    const p = await openPhone()
    const s = next()
    setPane('w1:p2', 'bash-prompt.txt', 'blocked', s)
    const [n, ...more] = await shownAfter(p, { pushes: 1 })
    expect(more).toEqual([])
    expect(n.title).toBe('job 2 needs you')
    expect(n.body).toBe('Do you want to proceed?')
    expect(n.tag).toBe('w1:p2')
    expect(n.actions).toEqual([
      { action: 'choose:1', title: 'Yes' },
      { action: 'choose:2', title: "Yes, and don't ask again for mkdir -p build and date commands in /home/me/cc-bash-prompt/proj" },
    ])
    expect(n.data).toMatchObject({ pane_id: 'w1:p2', seq: s, fingerprint: delivered.at(-1).fingerprint })

    const before = keys().length
    await press(p, 'w1:p2', 'choose:1')
    expect(await shownAfter(p, { pushes: 1, clicks: 1 })).toMatchObject([{ tag: 'w1:p2', title: 'job 2: sent', body: 'Sent “Yes”.', actions: [] }])
    expect(keys().slice(before)).toEqual([['pane', 'send-keys', 'w1:p2', '1']])

    // the agent moves on: the bridge retracts, the worker closes it and shows nothing new
    setPane('w1:p2', 'mode-default.txt', 'working', next())
    expect(await shownAfter(p, { pushes: 2 })).toEqual([])
    expect(delivered.at(-1)).toMatchObject({ pane_id: 'w1:p2', resolved: true })
  })

  test('409: the dialog changed under the notification; nothing is pressed, and it shows the new question', async () => {
    const p = await openPhone()
    const s = next()
    setPane('w1:p2', 'bash-prompt.txt', 'blocked', s)
    expect((await shownAfter(p, { pushes: 1 })).map((n) => n.body)).toEqual(['Do you want to proceed?'])
    // another dialog replaces it before herdr's seq moves (the race the fingerprint exists for)
    b.updatePane('w1:p2', (x) => (x.screen_file = S('askuser.txt')))
    const card = (await b.json('/agent-state?pane=w1:p2')) as any
    const before = keys().length
    await press(p, 'w1:p2', 'choose:1')
    const [n, ...more] = await shownAfter(p, { pushes: 1, clicks: 1 })
    expect(more).toEqual([])
    expect(n.title).toBe('Not sent: the dialog changed — job 2 asks')
    expect(n.body).toBe(card.blocked.question)
    expect(n.data).toMatchObject({ fingerprint: card.blocked.fingerprint, seq: s })
    expect(n.actions.map((a) => a.title)).toEqual(
      card.blocked.options
        .filter((o: any) => !o.free_text)
        .slice(0, 2)
        .map((o: any) => o.label),
    )
    expect(keys().slice(before)).toEqual([])
    setPane('w1:p2', 'mode-default.txt', 'working', next())
    expect(await shownAfter(p, { pushes: 2 })).toEqual([])
  })

  test('several agents within the window: one notification for all, which opens the list; answering one takes it out', async () => {
    const p = await openPhone()
    setPane('w1:p2', 'bash-prompt.txt', 'blocked', next())
    expect((await shownAfter(p, { pushes: 1 })).map((n) => n.tag)).toEqual(['w1:p2'])
    setPane('w1:p3', 'bash-prompt.txt', 'blocked', next())
    // held for the window, then one group that replaces the first
    const [g, ...more] = await shownAfter(p, { pushes: 2 })
    expect(more).toEqual([])
    expect(delivered.at(-1)).toMatchObject({ group: true, count: 2 })
    expect(g).toMatchObject({ tag: 'gothalo:blocked', title: '2 agents need you', body: 'job 2: Do you want to proceed?\njob 3: Do you want to proceed?' })

    setPane('w1:p3', 'mode-default.txt', 'working', next())
    expect(await shownAfter(p, { pushes: 3 })).toMatchObject([{ tag: 'gothalo:blocked', title: 'job 2 needs you', body: 'job 2: Do you want to proceed?' }])

    // the body opens the list (in the app's window: a test's click is not a user's, and may not open a new one)
    await p.page.goto(`${b.base}/#/p/w1%3Ap3`)
    await press(p, 'gothalo:blocked', '')
    expect(await shownAfter(p, { clicks: 1 })).toEqual([])
    await p.page.waitForURL(`${b.base}/#/`)
    await p.page.getByRole('heading', { name: 'Agents' }).waitFor()
    setPane('w1:p2', 'mode-default.txt', 'working', next())
  })

  test("tapping a pane's notification opens that agent", async () => {
    const p = await openPhone()
    setPane('w1:p2', 'bash-prompt.txt', 'blocked', next())
    expect((await shownAfter(p, { pushes: 1 })).map((n) => n.tag)).toEqual(['w1:p2'])
    await p.page.goto(`${b.base}/`)
    await p.page.getByRole('heading', { name: 'Agents' }).waitFor()
    await press(p, 'w1:p2', '')
    expect(await shownAfter(p, { clicks: 1 })).toEqual([])
    await p.page.waitForURL(`${b.base}/#/p/w1%3Ap2`)
    await p.page.getByText('Do you want to proceed?').first().waitFor()
    setPane('w1:p2', 'mode-default.txt', 'working', next())
  })

  test('quiet while looking: the app reports its window, the bridge pushes nothing; the worker shows nothing while the app has focus; the app closes stale ones', async () => {
    const p = await openPhone({ stay: true })
    // the bridge is quiet: the socket hears the change, no push goes out
    const n0 = delivered.length
    const s = next()
    setPane('w1:p2', 'bash-prompt.txt', 'blocked', s)
    await waitFor(async () => (await p.page.locator('li.pane.blocked').count()) === 1, 10_000, 'the list shows it')
    await b.app.decorator.pushIdle()
    expect(delivered.length).toBe(n0)
    // a push that arrives anyway (sent before the window came up) is not shown while the app has focus
    await deliver(JSON.stringify({ pane_id: 'w1:p2', agent_kind: 'claude', agent_status: 'blocked', name: 'job 2', headline: 'h', seq: s, event_seq: 1 }))
    expect(await shownAfter(p, { pushes: 1 })).toEqual([])

    // away from the app: a notification left from before, for a dialog since answered
    await p.page.goto('about:blank')
    await deliver(JSON.stringify({ pane_id: 'w1:p3', agent_kind: 'claude', agent_status: 'blocked', name: 'job 3', headline: 'h', seq: 1, event_seq: 1 }))
    expect((await shownAfter(p, { pushes: 2 })).map((n) => n.tag)).toEqual(['w1:p3'])
    // back in the app: the list shows w1:p3 working, so the app closes it
    await p.page.goto(`${b.base}/`)
    await waitFor(async () => (await shown(p)).length === 0, 10_000, 'the stale notification closed')
    setPane('w1:p2', 'mode-default.txt', 'working', next())
  })
})
