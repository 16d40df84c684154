// The log: one line per request (method, path without the query, status, ms,
// device id) and per event (pairing, revoke, socket open/close with reason,
// herdr failures); never a token, a pair code or typed text. /healthz tells a
// hung herdr from a missing one.
import { afterEach, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { startFakeHerdrSocket } from '../../src/demo/fake-herdr-socket'
import { createHerdrClient } from '../../src/herdr/client'
import { createLogger, formatLine, isLoopback } from '../../src/server/log'
import { ADMIN, FAKE_HERDR, FrameQueue, claudePane, pairDevice, startBridge, tempDir, waitFor, type Bridge } from '../support/harness'
import { writeFileSync } from 'node:fs'
import { claudeSession } from '../support/claude-home'

let b: Bridge | undefined
afterEach(async () => {
  await b?.stop()
  b = undefined
})

const shell = { pane_id: 'w1:p5', workspace_id: 'w1', tab_id: 'w1:t1', cwd: '/home/me', screen: 'me@box:~$ \n' }

describe('the request and event log', () => {
  test('requests are logged without query or token; pairing, revoke and sockets are events; typed text never appears', async () => {
    b = await startBridge({ state: { panes: [shell] }, timing: { attachPollMs: 50 } })
    const code = ((await (await b.post('/pair/code', {})).json()) as { code: string }).code
    const paired = (await (
      await fetch(`${b.base}/pair`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code, device_name: 'Pixel 9' }),
      })
    ).json()) as { device_id: string; token: string }
    const TYPED = 'echo s3cret-typed-words'
    expect((await b.post('/send', { pane: 'w1:p5', text: TYPED + '\n' }, paired.token)).status).toBe(200)
    expect((await fetch(`${b.base}/snapshot?token=${paired.token}&x=1`)).status).toBe(200)
    expect((await fetch(`${b.base}/snapshot?token=wrong`)).status).toBe(401)
    expect((await fetch(`${b.base}/nope`)).status).toBe(404)

    const sock = new FrameQueue(`${b.wsBase}/attach?pane=w1:p5&token=${paired.token}`)
    await sock.opened
    await sock.next()
    expect((await fetch(`${b.base}/devices/${paired.device_id}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN}` } })).status).toBe(200)
    expect(await sock.closed).toEqual({ code: 1000, reason: 'device revoked' })
    const log = b.logLines
    await waitFor(() => log.some((l) => l.msg === 'socket close'), 5000, 'the socket close event')

    const requests = log.filter((l) => l.msg === 'request')
    expect(requests.map((l) => `${l.method} ${l.path} ${l.status} ${l.device ?? '-'}`)).toEqual([
      'POST /pair/code 200 admin',
      'POST /pair 200 -',
      `POST /send 200 ${paired.device_id}`,
      `GET /snapshot 200 ${paired.device_id}`,
      'GET /snapshot 401 -',
      'GET /nope 404 -',
      `GET /attach 101 ${paired.device_id}`,
      `DELETE /devices/${paired.device_id} 200 admin`,
    ])
    for (const r of requests) expect(typeof r.ms).toBe('number')
    expect(log.find((l) => l.msg === 'device paired')).toMatchObject({ level: 'info', device: paired.device_id, name: 'Pixel 9' })
    expect(log.find((l) => l.msg === 'pair code made')).toMatchObject({ level: 'info' })
    expect(log.find((l) => l.msg === 'device revoked')).toMatchObject({ device: paired.device_id, sockets_closed: 1 })
    expect(log.find((l) => l.msg === 'socket open')).toMatchObject({ socket: 'attach', pane: 'w1:p5', device: paired.device_id })
    expect(log.find((l) => l.msg === 'socket close')).toMatchObject({ socket: 'attach', pane: 'w1:p5', code: 1000, reason: 'device revoked' })

    const all = JSON.stringify(log)
    for (const secret of [paired.token, ADMIN, code, 'wrong', 's3cret-typed-words', 'token=']) expect(all).not.toContain(secret)
  })

  test('an /events socket logs its close like the others: code, reason, seconds open, whose', async () => {
    b = await startBridge({ state: { panes: [shell] } })
    const paired = await pairDevice(b, 'phone')
    const sock = new FrameQueue(`${b.wsBase}/events?token=${paired.token}`)
    expect(await sock.next()).toMatchObject({ type: 'hello' })
    sock.ws.close(1000, 'app in background')
    const close = await waitFor(() => b!.logLines.find((l) => l.msg === 'socket close'), 5000, 'the socket close event')
    expect(close).toEqual({
      ts: expect.any(String),
      level: 'info',
      msg: 'socket close',
      socket: 'events',
      code: 1000,
      reason: 'app in background',
      seconds: expect.any(Number),
      device: paired.device_id,
    })
    expect(b.logLines.find((l) => l.msg === 'socket open')).toMatchObject({ socket: 'events', device: paired.device_id })
  })

  test("the start's warm-up request is the bridge's own: no request line, no herdr call, and the first real request is logged", async () => {
    const { claudeDir, pane } = claudeSession(3)
    b = await startBridge({ state: { panes: [pane] }, homes: { claudeDir }, deps: { warmUp: true } })
    // nobody asked: every round ran, and their garbage was collected while idle (no data dir: nothing to read ahead)
    expect(await b.app.decorator.warmedUp()).toEqual({ rounds: 50, readAhead: 0, collected: true })
    expect(b.calls()).toEqual([]) // its requests (/snapshot, /agent-state, the socket's route) stop at the auth guard
    const sock = new FrameQueue(`${b.wsBase}/agent-transcript?pane=${pane.pane_id}&token=${ADMIN}`)
    const hello = await sock.next()
    expect(hello).toMatchObject({ type: 'hello', total: 3 })
    sock.close()
    expect(b.calls().filter((argv) => argv.includes('warm-up'))).toEqual([])
    const requests = await waitFor(
      () => {
        const r = b!.logLines.filter((l) => l.msg === 'request')
        return r.length ? r : undefined
      },
      5000,
      'the request line',
    )
    // the warm-up's 401s went before it: logged, they would be first
    expect(requests.map((l) => `${l.method} ${l.path} ${l.status}`)).toEqual(['GET /agent-transcript 101'])
  })

  test('the warm-up stops at the first request: it never makes a phone wait for more than one round', async () => {
    b = await startBridge({ deps: { warmUp: true } })
    const first = b.app.handle(new Request(`${b.base}/nope`)) // before the warm-up's first turn
    expect((await first).status).toBe(404)
    expect(await b.app.decorator.warmedUp()).toEqual({ rounds: 0, readAhead: 0, collected: false }) // a request came: no pause for a collection
  })

  test('a refused pairing is a warning with the reason, not the code', async () => {
    b = await startBridge()
    const res = await fetch(`${b.base}/pair`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: 'ZZZZ-ZZZZ', device_name: 'x' }),
    })
    expect(res.status).toBe(403)
    expect(b.logLines.find((l) => l.msg === 'pairing refused')).toMatchObject({ level: 'warn', reason: 'invalid' })
    expect(JSON.stringify(b.logLines)).not.toContain('ZZZZ-ZZZZ')
  })

  test('a transcript socket refused before the upgrade is a request line with its status', async () => {
    b = await startBridge({ state: { panes: [claudePane({ agent: { agent: 'aider' } })] } })
    // aider has no transcript source: refused before the upgrade, logged as a request
    const r = await fetch(`${b.base}/agent-transcript?pane=w1:p2&token=${ADMIN}`, {
      headers: { upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-version': '13' },
    })
    expect(r.status).toBe(404)
    const line = await waitFor(() => b!.logLines.find((l) => l.path === '/agent-transcript'), 5000, 'the request line')
    expect(line).toMatchObject({ msg: 'request', status: 404, device: 'admin' })
  })
})

test('herdr failures reach the log with the command, never the typed text', async () => {
  const dir = tempDir()
  const state = join(dir, 'state.json')
  writeFileSync(state, JSON.stringify({ panes: [] }))
  const failures: unknown[] = []
  // typed text goes to herdr's socket: serve the fake's
  const socketPath = join(dir, 'herdr.sock')
  const socket = await startFakeHerdrSocket({ statePath: state, socketPath })
  const herdr = createHerdrClient({
    bin: FAKE_HERDR,
    env: { ...process.env, FAKE_HERDR_BUN: process.execPath, FAKE_HERDR_STATE: state, HERDR_SOCKET_PATH: socketPath },
    onFailure: (f) => failures.push(f),
  })
  await expect(herdr.agentGet('w9:p9')).rejects.toThrow()
  await expect(herdr.paneSendText('w9:p9', 'my private words')).rejects.toThrow('herdr pane send-text w9:p9 …')
  await socket.close()
  expect(failures).toEqual([
    { command: 'herdr agent get w9:p9', kind: 'not_found', code: 'agent_not_found', message: expect.stringContaining('agent target w9:p9 not found') },
    { command: 'herdr pane send-text w9:p9 …', kind: 'not_found', code: 'pane_not_found', message: expect.stringMatching(/^herdr pane send-text w9:p9 …: /) },
  ])
  expect(JSON.stringify(failures)).not.toContain('private')
})

describe('/healthz: missing, not running, hung', () => {
  test('a herdr that hangs is not_responding, with what timed out', async () => {
    b = await startBridge({ state: { hang: ['api snapshot'], panes: [] }, herdrTimeoutMs: 400 })
    const h: any = await b.json('/healthz', null)
    // (on a loaded machine `herdr --version` itself may be the call that runs out of time)
    expect(h.herdr).toMatchObject({
      found: true,
      server: 'not_responding',
      detail: expect.stringMatching(/^herdr (api snapshot|--version): timed out after 400 ms$/),
    })
  })

  test('a missing herdr is found:false', async () => {
    b = await startBridge({ herdrBin: '/nonexistent/herdr' })
    expect(((await b.json('/healthz', null)) as any).herdr).toEqual({ found: false, version: null, server: 'not_running' })
  })
})

describe('log lines', () => {
  const at = new Date(Date.UTC(2026, 11, 2, 17, 0, 0))
  test('text: level, message, key=value with quoting; json: one object', () => {
    expect(formatLine('text', at, 'info', 'request', { method: 'GET', path: '/a b', status: 200, device: undefined })).toBe(
      '2026-12-02T17:00:00.000Z INFO  request method=GET path="/a b" status=200',
    )
    expect(JSON.parse(formatLine('json', at, 'warn', 'x', { n: 1, s: 'a"b' }))).toEqual({
      ts: '2026-12-02T17:00:00.000Z',
      level: 'warn',
      msg: 'x',
      n: 1,
      s: 'a"b',
    })
  })
  test('the level filters', () => {
    const out: string[] = []
    const log = createLogger({ level: 'warn', write: (l) => out.push(l) })
    log.info('no')
    log.debug('no')
    log.warn('yes')
    log.error('yes')
    expect(out.map((l) => l.split(' ')[1])).toEqual(['WARN', 'ERROR'])
  })
  test('loopback', () => {
    for (const h of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) expect(isLoopback(h)).toBe(true)
    for (const h of ['0.0.0.0', '::', '192.168.1.2', '100.64.0.1']) expect(isLoopback(h)).toBe(false)
  })
})
