// herdr missing, its server not running, hanging past the time limit, failing:
// the bridge still answers, with herdr's own message, and never hangs.
// Misbehaving herdr (issue 10, items 5 and 8): malformed output is 502, not
// 500; quoted stderr is short and clean; a request is bounded in time whatever
// herdr does, and its work stops when the client leaves. Those cases run the
// bridge against a misbehaving copy of the fake herdr.
import { afterEach, describe, expect, test } from 'bun:test'
import { chmodSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ADMIN, FAKE_HERDR, WS_HANDSHAKE, claudePane, startBridge, tempDir, waitFor, type Bridge } from '../support/harness'
import { QUOTED_STDERR_MAX } from '../../src/herdr/client'

let b: Bridge | undefined
afterEach(async () => {
  await b?.stop()
  b = undefined
})

test('herdr missing: healthz says so, agent endpoints answer 502', async () => {
  b = await startBridge({ herdrBin: '/nonexistent/herdr' })
  const h: any = await b.json('/healthz', null)
  expect(h.herdr).toEqual({ found: false, version: null, server: 'not_running' })
  const r = await b.get('/agent-state?pane=w1:p2')
  expect(r.status).toBe(502)
  expect(await r.text()).toBe('herdr agent get w1:p2: herdr not found (/nonexistent/herdr)')
})

test('server not running: 502 with herdr stderr', async () => {
  b = await startBridge({ state: { server: 'not_running', panes: [claudePane()] } })
  const h: any = await b.json('/healthz', null)
  expect(h.herdr).toEqual({ found: true, version: '0.8.2', server: 'not_running' })
  const r = await b.get('/snapshot')
  expect(r.status).toBe(502)
  const body = await r.text()
  expect(body.startsWith('herdr api snapshot: {"id":"cli:api:snapshot","error":{"code":"server_not_running"')).toBe(true)
})

test('a hung herdr is killed at the time limit: 502, not a hung request', async () => {
  b = await startBridge({ state: { hang: ['agent get'], panes: [claudePane()] }, herdrTimeoutMs: 400 })
  const t0 = performance.now()
  const r = await b.get('/agent-state?pane=w1:p2')
  const took = performance.now() - t0
  expect(r.status).toBe(502)
  expect(await r.text()).toBe('herdr agent get w1:p2: timed out after 400 ms')
  expect(took).toBeLessThan(3000)
})

test('any other herdr error is 502 with its stderr', async () => {
  b = await startBridge({ state: { fail: { 'api snapshot': { code: 'internal', message: 'boom' } }, panes: [] } })
  const r = await b.get('/snapshot')
  expect(r.status).toBe(502)
  expect(await r.text()).toBe('herdr api snapshot: {"error":{"code":"internal","message":"boom"},"id":"cli:api:snapshot"}')
})

/** A herdr stand-in from a shell script body ($1.. are herdr's arguments). */
function herdrScript(body: string): string {
  const f = join(tempDir(), 'herdr')
  writeFileSync(f, `#!/bin/sh\n${body}\n`)
  chmodSync(f, 0o755)
  return f
}

/** Same as the fake herdr, except for the subcommands `cases` names (`agent get`, `pane send-keys`, …). */
function fakeExcept(cases: Record<string, string>): string {
  const branches = Object.entries(cases)
    .map(([cmd, body]) => `  "${cmd}") ${body} ;;`)
    .join('\n')
  return herdrScript(`case "$1 $2" in\n${branches}\nesac\nexec "${FAKE_HERDR}" "$@"`)
}

const PANE = claudePane({ screen: '> \n' })

describe('malformed herdr output is 502, not 500', () => {
  test('{"result":null} on every JSON command: 502 on each route that reads it', async () => {
    b = await startBridge({
      state: { panes: [PANE] },
      herdrBin: fakeExcept({ 'agent get': `echo '{"result":null}'; exit 0`, 'api snapshot': `echo '{"result":null}'; exit 0` }),
    })
    const answers = [
      await b.get('/agent-state?pane=w1:p2'),
      await b.get('/snapshot'),
      await b.post('/approve', { agent: 'w1:p2', seq: 7 }),
      await b.post('/agent-mode/cycle', { pane: 'w1:p2' }),
      await b.post('/send', { pane: 'w1:p2', text: '1\n' }),
      await fetch(`${b.base}/agent-transcript?pane=w1:p2&token=${ADMIN}`, { headers: WS_HANDSHAKE }),
    ]
    const seen = await Promise.all(answers.map(async (r) => [r.status, await r.text()]))
    for (const [status, body] of seen) {
      expect(status).toBe(502)
      expect(body).toMatch(/^herdr (agent get|api snapshot)\b.*: unreadable output$/)
    }
  })

  test('a result of the wrong shape (agent without pane_id, snapshot without panes) is 502 too', async () => {
    b = await startBridge({
      state: { panes: [PANE] },
      herdrBin: fakeExcept({
        'agent get': `echo '{"id":"cli:agent:get","result":{"agent":{"agent":"claude"},"type":"agent_info"}}'`,
        'api snapshot': `echo '{"id":"cli:api:snapshot","result":{"snapshot":{"panes":7},"type":"session_snapshot"}}'`,
      }),
    })
    expect((await b.get('/agent-state?pane=w1:p2')).status).toBe(502)
    expect((await b.get('/snapshot')).status).toBe(502)
  })

  test('50 MB of stderr with control characters: the 502 quotes a few hundred clean characters', async () => {
    b = await startBridge({
      state: { panes: [PANE] },
      herdrBin: fakeExcept({
        'agent get': `printf 'boom\\033[31m\\a\\302\\233evil\\r\\n' >&2; head -c 52428800 /dev/zero | tr '\\0' 'x' >&2; exit 1`,
      }),
    })
    const r = await b.get('/agent-state?pane=w1:p2')
    expect(r.status).toBe(502)
    const body = await r.text()
    expect(body.length).toBeLessThan(QUOTED_STDERR_MAX + 100)
    expect(body).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/)
    expect(body).toStartWith('herdr agent get w1:p2: boom[31mevil xxx')
  }, 20_000)
})

describe('a request is bounded in time', () => {
  test('a herdr whose grandchild keeps stdout open: answered within the herdr limit, not when the grandchild ends', async () => {
    b = await startBridge({
      state: { panes: [PANE] },
      herdrTimeoutMs: 800,
      herdrBin: fakeExcept({ 'agent get': `(sleep 30) & "${FAKE_HERDR}" "$@"; exit 0` }),
    })
    const t0 = Date.now()
    const r = await b.get('/agent-state?pane=w1:p2').catch((e) => e as Error)
    expect(r instanceof Error ? r.message : r.status).toBe(502)
    expect(Date.now() - t0).toBeLessThan(4000)
  }, 20_000)

  test('/agent-mode/cycle with screen reads that hang: answered by the request deadline', async () => {
    b = await startBridge({
      state: { panes: [claudePane({ screen: '> \n  ⏵⏵ accept edits on (shift+tab to cycle)\n' })], hang: ['agent read'] },
      herdrTimeoutMs: 1000,
      timing: { requestDeadlineMs: 2500 },
    })
    const t0 = Date.now()
    const r = await fetch(`${b.base}/agent-mode/cycle`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ pane: 'w1:p2' }),
      signal: AbortSignal.timeout(12_000),
    })
    expect(r.status).toBe(502)
    expect(Date.now() - t0).toBeLessThan(5000)
  }, 20_000)

  test('/send with 400 newlines stops typing once the client has gone', async () => {
    b = await startBridge({ state: { panes: [{ pane_id: 'w1:p1', workspace_id: 'w1', tab_id: 'w1:t1', screen: '$ \n' }] } })
    const enters = () => b!.calls().filter((c) => c[1] === 'send-keys').length
    const ctl = new AbortController()
    const sent = fetch(`${b.base}/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ pane: 'w1:p1', text: 'a\n'.repeat(400) }),
      signal: ctl.signal,
    }).catch(() => 'aborted')
    await waitFor(() => enters() >= 3, 10_000, 'typing to start')
    ctl.abort()
    expect(await sent).toBe('aborted')
    // once it has stopped, it stays stopped
    let last = -1
    await waitFor(
      async () => {
        const n = enters()
        if (n === last) return true
        last = n
        await Bun.sleep(700)
        return false
      },
      10_000,
      'typing to stop',
    )
    expect(enters()).toBeLessThan(20)
  }, 30_000)
})
