// The bridge's own endpoints, end to end: the real app on port 0, the fake
// herdr executable (real CLI shapes), plain-text errors, auth everywhere.
import { expect, test } from 'bun:test'
// each describe runs against herdr 0.8.2 (protocol 20) and 0.9.3 (protocol 22)
import { describe, eachHerdrPass, herdrMode } from '../support/herdr-modes'
import { join } from 'node:path'
import { ADMIN, FrameQueue, ROOT, WS_HANDSHAKE, claudePane, startBridge, type Bridge } from '../support/harness'
import type { FakeState } from '../../src/demo/fake-herdr'

const SCREENS = join(ROOT, 'fixtures/screens-bridge')

function state(): FakeState {
  return {
    workspaces: [{ workspace_id: 'w1', number: 1, label: 'api', focused: true, pane_count: 3, tab_count: 1, active_tab_id: 'w1:t1', agent_status: 'blocked' }],
    tabs: [{ tab_id: 'w1:t1', workspace_id: 'w1', number: 1, label: 'main', focused: true, pane_count: 3, agent_status: 'blocked' }],
    panes: [
      { pane_id: 'w1:p1', workspace_id: 'w1', tab_id: 'w1:t1', cwd: '/home/me', focused: true, screen: '$ ls\n' },
      claudePane({
        pane_id: 'w1:p2',
        screen_file: join(SCREENS, 'bash-prompt.txt'),
        label: 'builder',
        agent: { agent_status: 'blocked', state_change_seq: 7, terminal_title_stripped: 'Set up build', name: 'builder' },
      }),
      {
        pane_id: 'w1:p3',
        workspace_id: 'w1',
        tab_id: 'w1:t1',
        cwd: '/home/me/pi',
        agent: { agent: 'pi', agent_status: 'idle', state_change_seq: 3 },
        screen: 'π ready\n',
      },
    ],
  }
}

let b: Bridge
// a bridge of each pass's herdr release
eachHerdrPass(
  async () => {
    b = await startBridge({ state: state(), timing: { attachPollMs: 30 } })
  },
  () => b.stop(),
)

describe('healthz and conventions', () => {
  test('healthz needs no auth and reports herdr', async () => {
    const r = await b.get('/healthz', null)
    expect(r.status).toBe(200)
    const { version, protocol } = herdrMode()!
    expect(await r.json()).toEqual({ ok: true, version: 'test', herdr: { found: true, version, server: 'running', server_version: version, protocol } })
  })

  test('unknown path is 404 not found, in plain text', async () => {
    const r = await b.get('/nope')
    expect(r.status).toBe(404)
    expect(await r.text()).toBe('not found')
  })

  test('missing token, wrong header token and wrong query token are 401', async () => {
    for (const r of [await b.get('/snapshot', null), await b.get('/snapshot', 'wrong'), await b.get('/snapshot?token=wrong', null)]) {
      expect(r.status).toBe(401)
      expect(await r.text()).toBe('unauthorized')
    }
  })

  test('a bad token wins over a missing parameter', async () => {
    const r = await b.get('/agent-state', 'wrong')
    expect(r.status).toBe(401)
  })

  test('?token= works like the header', async () => {
    const r = await b.get(`/snapshot?token=${ADMIN}`, null)
    expect(r.status).toBe(200)
  })
})

describe('GET /snapshot', () => {
  test('one row per pane in herdr order; agent fields absent for shells', async () => {
    const r = await b.get('/snapshot')
    expect(r.status).toBe(200)
    const body: any = await r.json()
    expect(body.herdr).toEqual({ version: herdrMode()!.version, protocol: herdrMode()!.protocol })
    expect(body.panes.map((p: any) => p.pane_id)).toEqual(['w1:p1', 'w1:p2', 'w1:p3'])
    expect(body.panes[0]).toEqual({
      pane_id: 'w1:p1',
      workspace_id: 'w1',
      tab_id: 'w1:t1',
      workspace_label: 'api',
      tab_label: 'main',
      cwd: '/home/me',
      focused: true,
      agent_status: 'unknown',
    })
    expect(body.panes[1]).toMatchObject({
      pane_id: 'w1:p2',
      label: 'builder',
      agent_kind: 'claude',
      agent_name: 'builder',
      agent_status: 'blocked',
      state_change_seq: 7,
      title: 'Set up build',
    })
  })
})

describe('POST /send', () => {
  test('types text; each \\n is one Enter', async () => {
    const before = b.calls().length
    const r = await b.post('/send', { pane: 'w1:p1', text: 'ls -la\necho hi\n' })
    expect(r.status).toBe(200)
    expect(await r.json()).toEqual({ sent: true })
    expect(b.calls().slice(before)).toEqual([
      ['pane', 'send-text', 'w1:p1', 'ls -la'],
      ['pane', 'send-keys', 'w1:p1', 'enter'],
      ['pane', 'send-text', 'w1:p1', 'echo hi'],
      ['pane', 'send-keys', 'w1:p1', 'enter'],
    ])
  })

  test('oversize text, control characters, bad JSON and wrong types are 400', async () => {
    const cases: [unknown, string | RegExp][] = [
      [{ pane: 'w1:p1', text: 'x'.repeat(4097) }, 'text longer than 4096 characters'],
      [{ pane: 'w1:p1', text: 'a\u0003b' }, /control characters/],
      [{ pane: 'w1:p1', text: 'a\tb' }, /control characters/],
      ['{"pane": "w1:p1", "text": ', 'bad request body'],
      [{ pane: 'w1:p1', text: 42 }, 'want {"pane": pane_id, "text": string}'],
      [{ text: 'x' }, 'want {"pane": pane_id, "text": string}'],
    ]
    const before = b.calls().length
    for (const [body, msg] of cases) {
      const r = await b.post('/send', body)
      expect(r.status).toBe(400)
      const t = await r.text()
      if (typeof msg === 'string') expect(t).toBe(msg)
      else expect(t).toMatch(msg)
    }
    expect(b.calls().length).toBe(before)
  })

  // C1 controls are refused as C0 ones are (issue 10, item 10): U+009B is an 8-bit CSI that a terminal may act on.
  test('U+0080, U+009B (8-bit CSI) and U+009F are 400; nothing is typed', async () => {
    const before = b.calls().length
    for (const c of ['\u0080', '\u009b', '\u009f']) {
      const r = await b.post('/send', { pane: 'w1:p1', text: `ls ${c}31m` })
      expect([r.status, await r.text()]).toEqual([400, 'control characters other than \\n are not allowed'])
    }
    expect(
      b
        .calls()
        .slice(before)
        .filter((c) => c[0] === 'pane' && c[1].startsWith('send')),
    ).toEqual([])
  })

  test('the printable neighbours U+007E and U+00A0..U+00FF still go through', async () => {
    const r = await b.post('/send', { pane: 'w1:p1', text: '~\u00a0é\u00ff' })
    expect(r.status).toBe(200)
  })

  test('4096 characters exactly is accepted', async () => {
    const r = await b.post('/send', { pane: 'w1:p1', text: 'é'.repeat(4096) })
    expect(r.status).toBe(200)
  })

  test('unknown pane is 404 no such pane', async () => {
    const r = await b.post('/send', { pane: 'w1:p9', text: 'x' })
    expect(r.status).toBe(404)
    expect(await r.text()).toBe('no such pane')
  })

  test('a pane id that looks like a flag never reaches herdr', async () => {
    const before = b.calls().length
    const r = await b.post('/send', { pane: '--help', text: 'x' })
    expect(r.status).toBe(404)
    expect(b.calls().length).toBe(before)
  })
})

describe('POST /approve', () => {
  test('presses Enter once when blocked at that seq; a repeat is a duplicate', async () => {
    const before = b.calls().length
    const r1 = await b.post('/approve', { agent: 'w1:p2', seq: 7 })
    expect(r1.status).toBe(200)
    expect(await r1.json()).toEqual({ sent: true })
    const r2 = await b.post('/approve', { agent: 'w1:p2', seq: 7 })
    expect(await r2.json()).toEqual({ sent: false, duplicate: true })
    const presses = b
      .calls()
      .slice(before)
      .filter((c) => c[1] === 'send-keys')
    expect(presses).toEqual([['agent', 'send-keys', 'w1:p2', 'enter']])
  })

  test('two taps racing press once', async () => {
    b.updatePane('w1:p2', (p) => (p.agent!.state_change_seq = 8))
    const before = b.calls().length
    const [r1, r2] = await Promise.all([b.post('/approve', { agent: 'w1:p2', seq: 8 }), b.post('/approve', { agent: 'w1:p2', seq: 8 })])
    const bodies: any[] = [await r1.json(), await r2.json()].sort((x: any, y: any) => Number(y.sent) - Number(x.sent))
    expect(bodies).toEqual([{ sent: true }, { sent: false, duplicate: true }])
    expect(
      b
        .calls()
        .slice(before)
        .filter((c) => c[1] === 'send-keys').length,
    ).toBe(1)
  })

  test('stale seq and not blocked are 409', async () => {
    const stale = await b.post('/approve', { agent: 'w1:p2', seq: 5 })
    expect(stale.status).toBe(409)
    expect(await stale.text()).toBe('stale seq')
    const idle = await b.post('/approve', { agent: 'w1:p3', seq: 3 })
    expect(idle.status).toBe(409)
    expect(await idle.text()).toBe('not blocked')
    // A refused approve is not recorded: once blocked at that seq, it presses.
    b.updatePane('w1:p3', (p) => (p.agent!.agent_status = 'blocked'))
    const now = await b.post('/approve', { agent: 'w1:p3', seq: 3 })
    expect(await now.json()).toEqual({ sent: true })
  })

  test('unknown agent is 404, bad body 400', async () => {
    const r = await b.post('/approve', { agent: 'w1:p9', seq: 1 })
    expect(r.status).toBe(404)
    expect(await r.text()).toBe('no such agent')
    const bad = await b.post('/approve', { agent: 'w1:p2', seq: 'x' })
    expect(bad.status).toBe(400)
    expect(await bad.text()).toBe('want {"agent": pane_id, "seq": state_change_seq, "fingerprint"?: string}')
  })
})

describe('WS /attach', () => {
  test('pre-upgrade failures are plain-text statuses', async () => {
    const cases: [string, number, string][] = [
      [`/attach?pane=w1:p1`, 401, 'unauthorized'],
      [`/attach?token=${ADMIN}`, 400, 'want ?pane=<pane_id>'],
      [`/attach?pane=w1:p9&token=${ADMIN}`, 404, 'no such pane'],
    ]
    for (const [path, status, body] of cases) {
      const r = await fetch(b.base + path, { headers: WS_HANDSHAKE })
      expect(r.status).toBe(status)
      expect(await r.text()).toBe(body)
    }
  })

  test('streams the screen as binary, types input, accepts resize', async () => {
    const q = new FrameQueue(`${b.wsBase}/attach?pane=w1:p1&token=${ADMIN}`)
    await q.opened
    const first = await q.next()
    expect(first).toBeInstanceOf(Uint8Array)
    expect(new TextDecoder().decode(first)).toBe('\x1b[H\x1b[2J$ ls\r\n')
    q.send(JSON.stringify({ type: 'resize', cols: 100, rows: 30 }))
    q.send('pwd\r')
    q.send(new TextEncoder().encode('1'))
    const typed = () =>
      b
        .calls()
        .filter((c) => c[1] === 'send-text' && c[2] === 'w1:p1')
        .map((c) => c[3])
    const { waitFor } = await import('../support/harness')
    await waitFor(() => typed().includes('1') && typed().includes('pwd\r'), 5000, 'typed input')
    // The screen changes → a repaint arrives.
    b.updatePane('w1:p1', (p) => (p.screen = '$ pwd\n/home/me\n'))
    const next = await q.next()
    expect(new TextDecoder().decode(next)).toBe('\x1b[H\x1b[2J$ pwd\r\n/home/me\r\n')
    // resize is not typed
    expect(typed().some((t) => t.includes('resize'))).toBe(false)
    q.ws.close(1000)
    expect((await q.closed).code).toBe(1000)
  })
})

describe('Swagger', () => {
  test('the UI loads Scalar from the bridge itself, and the document lists the routes', async () => {
    const html = await (await b.get('/swagger', null)).text()
    expect(html).toContain('src="/swagger/scalar.js"')
    expect(html).not.toContain('cdn.jsdelivr')
    const js = await b.get('/swagger/scalar.js', null)
    expect(js.status).toBe(200)
    expect(js.headers.get('content-type')).toContain('javascript')
    expect((await js.text()).length).toBeGreaterThan(1_000_000)
    const doc: any = await b.json('/swagger/json', null)
    for (const p of ['/healthz', '/snapshot', '/send', '/approve', '/agent-mode/cycle', '/agent-state', '/pair', '/pair/code', '/devices'])
      expect(Object.keys(doc.paths)).toContain(p)
  })
})
