// Pane routes for another machine's pane (`LABEL/PANE`), forwarded to its bridge:
// same answers as asking it directly, scopes checked on both sides, the remote's
// audit row naming the home bridge and the phone; and every way a remote fails.
import { afterEach, expect, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ADMIN, FrameQueue, claudePane, fakePane, startBridge, waitFor, type Bridge } from '../support/harness'
import { FORWARDED_MAX_BYTES } from '../../src/machines/forward'
import { writeMachines } from '../../src/machines/store'
import { addMachine, fakeRemote, pairDevice, startHome, type Home } from './support'

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function homeAndLaptop(scopes?: string[], o: Parameters<typeof startHome>[1] = {}) {
  const home = await startHome([claudePane({ pane_id: 'w1:p1' })], o)
  cleanups.push(() => home.stop())
  const laptop = await startBridge({ state: { panes: [claudePane({ pane_id: 'w1:p1' }), claudePane({ pane_id: 'w1:p3' })] }, herdrSocket: true })
  cleanups.push(() => laptop.stop())
  await addMachine(home, 'laptop', laptop, scopes)
  await online(home, 'laptop')
  return { home, laptop }
}

async function online(home: Bridge, label: string) {
  await waitFor(async () => (await home.json('/machines')).machines.find((m: { id: string }) => m.id === label)?.state === 'online', 5000, `${label} online`)
}

const post = (b: Bridge, path: string, body: unknown, token: string) =>
  fetch(b.base + path, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })

test('GET routes answer as the remote does for its plain pane id; an unknown label is the route’s own 404', async () => {
  const { home, laptop } = await homeAndLaptop()
  const phone = await pairDevice(home, 'Pixel 9')
  for (const path of ['/agent-state?pane=', '/usage?pane=']) {
    const [a, b] = [await home.get(`${path}laptop/w1:p3`, phone.token), await laptop.get(`${path}w1:p3`)]
    expect(a.status).toBe(b.status)
    expect(a.headers.get('content-type')).toBe(b.headers.get('content-type'))
    expect(await a.text()).toBe(await b.text())
  }
  const nope = await home.get('/agent-state?pane=desk/w1:p1', phone.token)
  expect([nope.status, await nope.text()]).toEqual([404, 'no such agent'])
  const gone = await home.get('/agent-state?pane=laptop/w9:p9', phone.token)
  expect([gone.status, await gone.text()]).toEqual([404, 'no such agent'])
})

test("a write is checked at home against the phone's scopes, at the remote against the home's; both audit rows, the remote's naming the phone", async () => {
  const { home, laptop } = await homeAndLaptop(['read', 'answer', 'type'])
  const phone = await pairDevice(home, 'Pixel 9')
  const viewer = await pairDevice(home, 'Viewer', ['read'])
  const r = await post(home, '/send', { pane: 'laptop/w1:p3', text: 'hello' }, phone.token)
  expect([r.status, await r.json()]).toEqual([200, { sent: true }])
  const homeDevice = readHomeDevice(await laptop.json('/devices'))
  const remoteRow = (await laptop.json('/audit')).rows[0]
  expect(remoteRow).toMatchObject({ device_id: homeDevice, action: 'send', pane: 'w1:p3', status: 200, detail: { via: 'Pixel 9', text: { length: 5 } } })
  const homeRow = (await home.json('/audit')).rows.find((x: { action: string }) => x.action === 'send')
  expect(homeRow).toMatchObject({ device_id: phone.device_id, action: 'send', pane: 'laptop/w1:p3', status: 200 })
  expect(homeRow.detail.via).toBeUndefined()

  // the viewer may not type: refused at home, nothing reaches the remote
  const before = (await laptop.json('/audit')).rows.length
  const v = await post(home, '/send', { pane: 'laptop/w1:p3', text: 'x' }, viewer.token)
  expect([v.status, await v.text()]).toEqual([403, 'forbidden: needs scope type'])
  expect((await laptop.json('/audit')).rows.length).toBe(before)
})

function readHomeDevice(devices: { device_id: string; name: string }[]): string {
  return devices.find((d) => d.name.startsWith('gothalo bridge on '))!.device_id
}

test('a remote can grant the home less: its own 403 comes back', async () => {
  const { home } = await homeAndLaptop(['read'])
  const phone = await pairDevice(home, 'Pixel 9')
  const r = await post(home, '/send', { pane: 'laptop/w1:p3', text: 'x' }, phone.token)
  expect([r.status, await r.text()]).toEqual([403, 'forbidden: needs scope type'])
  // reading is granted
  expect((await home.get('/agent-state?pane=laptop/w1:p3', phone.token)).status).toBe(200)
})

async function homeWithFake(answers: Parameters<typeof fakeRemote>[0], deadlineMs = 15_000): Promise<{ home: Home; remote: ReturnType<typeof fakeRemote> }> {
  const remote = fakeRemote(answers)
  cleanups.push(() => remote.stop())
  const home = await startHome([claudePane({ pane_id: 'w1:p1' })], { timing: { requestDeadlineMs: deadlineMs } })
  cleanups.push(() => home.stop())
  writeMachines(home.dataDir, [{ label: 'odd', target: remote.base, device_id: 'dev_home', token: 'tok_home', added_at: 0 }])
  await online(home, 'odd')
  return { home, remote }
}

test('a remote answering garbage is 502, never its body', async () => {
  const { home } = await homeWithFake({
    '/agent-state': () => new Response('<html>oops', { headers: { 'content-type': 'application/json' } }),
    '/usage': () => new Response('<html>oops', { headers: { 'content-type': 'text/html' } }),
    '/changes': () => new Response('Error: boom\n    at stack (x.ts:1)', { status: 500, headers: { 'content-type': 'text/plain' } }),
  })
  const a = await home.get('/agent-state?pane=odd/w1:p1')
  expect([a.status, await a.text()]).toEqual([502, 'machine odd answered garbage (200)'])
  const u = await home.get('/usage?pane=odd/w1:p1')
  expect([u.status, await u.text()]).toEqual([502, 'machine odd answered garbage (200)'])
  const c = await home.get('/changes?pane=odd/w1:p1')
  expect([c.status, await c.text()]).toEqual([502, 'machine odd: Error: boom'])
})

test('a remote that answers without end: 502 past 16 MiB, the rest never read', async () => {
  const chunk = new Uint8Array(256 * 1024).fill(0x20)
  let pulled = 0
  const { home } = await homeWithFake({
    '/agent-state': () =>
      new Response(
        new ReadableStream({
          pull(c) {
            pulled += chunk.length
            c.enqueue(chunk)
          },
        }),
        { headers: { 'content-type': 'application/json' } },
      ),
  })
  const a = await home.get('/agent-state?pane=odd/w1:p1')
  expect([a.status, await a.text()]).toEqual([502, `machine odd answered more than ${FORWARDED_MAX_BYTES / 1024 / 1024} MiB`])
  // what the remote could send before the home stopped: the limit and what the sockets between hold
  expect(pulled).toBeGreaterThan(FORWARDED_MAX_BYTES)
  expect(pulled).toBeLessThan(3 * FORWARDED_MAX_BYTES)
})

test('a remote that hangs meets the request deadline (504); one that goes away mid-answer is 502', async () => {
  let hung!: () => void
  const reached = new Promise<void>((r) => (hung = r))
  const { home } = await homeWithFake(
    {
      '/agent-state': () => {
        hung()
        return new Promise<Response>(() => {})
      },
      '/usage': () =>
        new Response(
          new ReadableStream({
            start(c) {
              c.enqueue(new TextEncoder().encode('{"pane_id":'))
              setTimeout(() => c.error(new Error('gone')), 30)
            },
          }),
          { headers: { 'content-type': 'application/json' } },
        ),
    },
    600,
  )
  const t0 = performance.now()
  const a = await home.get('/agent-state?pane=odd/w1:p1')
  await reached
  expect([a.status, await a.text()]).toEqual([504, 'machine odd did not answer in time'])
  expect(performance.now() - t0).toBeLessThan(3000)
  const u = await home.get('/usage?pane=odd/w1:p1')
  expect(u.status).toBe(502)
  expect(await u.text()).toStartWith('machine odd')
  expect((await home.get('/healthz')).status).toBe(200)
})

test('a remote dropping its /events socket: the phone hears it offline, then online again by itself (the row no longer stale)', async () => {
  const { home, remote } = await homeWithFake({})
  const q = new FrameQueue(`${home.wsBase}/events?token=${ADMIN}`)
  cleanups.push(() => q.close())
  await q.opened
  expect((await q.next()).machines.map((m: { state: string }) => m.state)).toEqual(['online', 'online'])
  remote.dropSockets()
  const seen = await q.until((f) => f.type === 'machine' && f.machine.state === 'online')
  expect(seen.map((f: { machine: { state: string } }) => f.machine.state)).toEqual(['offline', 'online'])
  const snap = await home.json('/snapshot')
  expect(snap.panes.find((r: { pane_id: string }) => r.pane_id === 'odd/w1:p1').stale).toBeUndefined()
})

test('an attachment for a remote pane is uploaded to that bridge (stored there), and /send hands it over there', async () => {
  const home = await startHome([claudePane({ pane_id: 'w1:p1' })])
  cleanups.push(() => home.stop())
  const laptop = await startBridge({
    herdrSocket: true,
    state: { panes: [fakePane('pi', { pane_id: 'w1:p2', screen: '> ', agent: { agent_status: 'idle', state_change_seq: 1 } })] },
  })
  cleanups.push(() => laptop.stop())
  await addMachine(home, 'laptop', laptop)
  await online(home, 'laptop')
  const phone = await pairDevice(home, 'Pixel 9')
  const up = await fetch(`${home.base}/attachments?pane=laptop/w1:p2`, {
    method: 'POST',
    headers: { authorization: `Bearer ${phone.token}`, 'content-type': 'text/plain' },
    body: 'notes for the agent',
  })
  expect(up.status).toBe(201)
  const a = (await up.json()) as { id: string; path: string }
  expect(a.path.startsWith(join(laptop.dir, 'attachments'))).toBe(true)
  expect(readFileSync(a.path, 'utf8')).toBe('notes for the agent')
  expect(existsSync(join(home.dir, 'attachments', `${a.id}.txt`))).toBe(false)
  const r = await post(home, '/send', { pane: 'laptop/w1:p2', text: 'read this', attachments: [a.id] }, phone.token)
  expect([r.status, await r.json()]).toEqual([200, { sent: true }])
  // pi takes the path in the message, at the remote
  expect(laptop.calls().some((c) => c[1] === 'send-text' && c[2] === 'w1:p2' && c.join(' ').includes(a.path))).toBe(true)
})

test('an older remote without a route: 502 saying so, not its unknown-route 404 (which reads as the pane gone); its own 404s pass', async () => {
  const { home } = await homeWithFake({
    '/agent-state': () => new Response('no such agent', { status: 404, headers: { 'content-type': 'text/plain;charset=utf-8' } }),
  })
  const u = await home.get('/usage?pane=odd/w1:p1')
  expect([u.status, await u.text()]).toEqual([502, 'machine odd does not know /usage (an older gothalo there?)'])
  const s = await home.get('/sessions?machine=odd')
  expect([s.status, await s.text()]).toEqual([502, 'machine odd does not know /sessions (an older gothalo there?)'])
  const a = await home.get('/agent-state?pane=odd/w1:p1')
  expect([a.status, await a.text()]).toEqual([404, 'no such agent'])
})

test("a hostile remote's answer never renders as a page from the home's origin: its type is the home's own, nosniff and a sandbox always", async () => {
  const page = '<script>parent.localStorage</script>'
  const { home } = await homeWithFake({
    // a download the remote asks the browser to show inline, as HTML
    '/files': (req) =>
      new URL(req.url).searchParams.get('path') === 'a.svg'
        ? new Response(`<svg xmlns="http://www.w3.org/2000/svg">${page}</svg>`, { headers: { 'content-type': 'image/svg+xml' } })
        : new Response(page, { headers: { 'content-type': 'text/html', 'content-disposition': 'inline' } }),
    // text/plain to the home's check, text/html to a browser (the last type of a list wins)
    '/usage': () => new Response(page, { headers: { 'content-type': 'text/plain, text/html' } }),
    // JSON to the home's check (a JSON string is HTML too), HTML to a browser
    '/agent-state': () => new Response(JSON.stringify(page), { headers: { 'content-type': 'text/html; x=json' } }),
    '/changes': () =>
      new Response('{}', { headers: { 'content-type': 'application/json', 'content-security-policy': "default-src *; script-src 'unsafe-inline'" } }),
  })
  const asked = [
    '/files?pane=odd/w1:p1&path=a.html&raw=1',
    '/files?pane=odd/w1:p1&path=a.svg&raw=1',
    '/usage?pane=odd/w1:p1',
    '/agent-state?pane=odd/w1:p1',
    '/changes?pane=odd/w1:p1',
  ]
  for (const path of asked) {
    const r = await home.get(path)
    await r.arrayBuffer()
    const type = r.headers.get('content-type') ?? ''
    expect({ path, type: /html|svg|xml|,/.test(type) ? type : 'safe' }).toEqual({ path, type: 'safe' })
    expect({ path, csp: r.headers.get('content-security-policy') }).toEqual({ path, csp: "default-src 'none'; sandbox" })
    expect({ path, nosniff: r.headers.get('x-content-type-options') }).toEqual({ path, nosniff: 'nosniff' })
    const disposition = r.headers.get('content-disposition')
    if (disposition !== null) expect({ path, disposition: disposition.startsWith('attachment') }).toEqual({ path, disposition: true })
  }
})
