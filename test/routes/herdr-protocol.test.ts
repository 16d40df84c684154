// herdr's CLI refusing its running server (`protocol_mismatch`: herdr updated, the
// server not restarted, docs/reference/herdr-0.9.md §1.2 #1): /healthz names it and
// says to restart the herdr server, the log says so once, agent routes answer 502
// saying so; and /healthz reports the server's version and protocol.
import { afterEach, expect, test } from 'bun:test'
import { FrameQueue, claudePane, startBridge, waitFor, type Bridge } from '../support/harness'
import type { FakeState } from '../../src/demo/fake-herdr'

let b: Bridge | undefined
const queues: FrameQueue[] = []
afterEach(async () => {
  for (const q of queues.splice(0)) q.close()
  await b?.stop()
  b = undefined
})

const blocked = () => claudePane({ pane_id: 'w1:p2', agent: { agent_status: 'blocked', state_change_seq: 7 } })
/** herdr 0.9.3's CLI (after `herdr update`) beside the 0.8.2 server still running */
const updated = (): FakeState => ({ version: '0.8.2', protocol: 20, cli_version: '0.9.3', cli_protocol: 22, panes: [blocked()] })

test('/healthz reports the running server’s version and protocol, in either release', async () => {
  for (const [version, protocol] of [
    ['0.8.2', 20],
    ['0.9.3', 22],
  ] as const) {
    b = await startBridge({ state: { version, protocol, panes: [blocked()] } })
    expect((await b.json('/healthz', null)).herdr).toEqual({ found: true, version, server: 'running', server_version: version, protocol })
    await b.stop()
    b = undefined
  }
})

test('a CLI that refuses its server while the socket still answers: /healthz says restart the herdr server, agent routes 502 saying so, one log line', async () => {
  let now = 1_000_000
  b = await startBridge({ state: updated(), herdrSocket: true, logHerdrFailures: true, deps: { clock: () => now } })
  // the watcher reads herdr's socket, which answers: /events and /snapshot go on
  const q = new FrameQueue(`${b.wsBase}/events?token=test-admin-token`)
  queues.push(q)
  expect((await q.next()).panes.map((p: { agent_status: string }) => p.agent_status)).toEqual(['blocked'])
  await waitFor(() => b!.app.decorator.watch.mode === 'socket', 3000, 'socket mode')
  expect((await b.get('/snapshot')).status).toBe(200)

  const h = (await b.json('/healthz', null)).herdr
  expect(h).toMatchObject({ found: true, version: '0.9.3', server: 'protocol_mismatch', server_version: '0.8.2', protocol: 20 })
  expect(h.detail).toBe(
    "herdr's CLI speaks protocol 22 and its running server 20 (herdr was updated, its server not restarted): restart the herdr server (`herdr server stop`, then start herdr)",
  )

  for (let i = 0; i < 3; i++) {
    const r = await b.get('/agent-state?pane=w1:p2')
    expect(r.status).toBe(502)
    expect(await r.text()).toBe(`herdr agent get w1:p2: ${h.detail}`)
  }
  const approve = await b.post('/approve', { agent: 'w1:p2', seq: 7 })
  expect(approve.status).toBe(502)
  expect(await approve.text()).toContain('restart the herdr server')
  // every refused call (the cards' screen reads, the probe, the routes'), one line
  const lines = b.logs.filter((l) => l.startsWith('herdr'))
  expect(lines.length).toBe(1)
  expect(lines[0].startsWith('herdr server needs a restart: herdr ')).toBe(true)
  expect(lines[0].endsWith(h.detail)).toBe(true)

  // the user restarts the server: the CLI's next call goes through, /healthz (its 1 s cache past) says running
  b.setState({ ...b.state(), version: '0.9.3', protocol: 22 })
  expect((await b.get('/agent-state?pane=w1:p2')).status).toBe(200)
  now += 1500
  expect((await b.json('/healthz', null)).herdr).toEqual({ found: true, version: '0.9.3', server: 'running', server_version: '0.9.3', protocol: 22 })
})

test('no watcher running: the CLI’s own refusal is the verdict, with the server protocol herdr named', async () => {
  b = await startBridge({ state: updated() })
  const h = (await b.json('/healthz', null)).herdr
  expect(h).toEqual({
    found: true,
    version: '0.9.3',
    server: 'protocol_mismatch',
    protocol: 20,
    detail:
      "herdr's CLI speaks protocol 22 and its running server 20 (herdr was updated, its server not restarted): restart the herdr server (`herdr server stop`, then start herdr)",
  })
  const r = await b.get('/snapshot')
  expect(r.status).toBe(502)
  expect(await r.text()).toBe(`herdr api snapshot: ${h.detail}`)
})

test('a CLI older than its server: the 502 says to upgrade it or restart the server from its version', async () => {
  b = await startBridge({ state: { version: '0.9.3', protocol: 22, cli_version: '0.8.2', cli_protocol: 20, panes: [blocked()] } })
  const r = await b.get('/agent-state?pane=w1:p2')
  expect(r.status).toBe(502)
  expect(await r.text()).toBe(
    "herdr agent get w1:p2: herdr's CLI speaks protocol 20 and its running server 22 (the CLI the bridge runs is older than the server): upgrade that CLI, or restart the herdr server from the CLI's own version",
  )
  expect((await b.json('/healthz', null)).herdr).toMatchObject({ server: 'protocol_mismatch', protocol: 22 })
})
