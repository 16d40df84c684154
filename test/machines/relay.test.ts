// WS /agent-transcript and WS /attach for another machine's pane, relayed by the
// home bridge: the phone sees what the remote's own socket sends, typing reaches
// the remote's pane, and a remote that goes away closes the phone's socket with a
// code it can retry (1013), never leaving it open and silent.
import { afterEach, expect, test } from 'bun:test'
import { ADMIN, FrameQueue, claudePane, startBridge, waitFor } from '../support/harness'
import { claudeHome, paneOn } from '../support/claude-home'
import { addMachine, pairDevice, removeMachine, startHome } from './support'

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function open(url: string) {
  const q = new FrameQueue(url)
  cleanups.push(() => q.close())
  await q.opened
  return q
}

async function setUp(remoteOpts: Parameters<typeof startBridge>[0]) {
  const home = await startHome([claudePane({ pane_id: 'w1:p1' })])
  cleanups.push(() => home.stop())
  const laptop = await startBridge({ herdrSocket: true, ...remoteOpts })
  let stopped = false
  cleanups.push(() => (stopped ? undefined : laptop.stop()))
  await addMachine(home, 'laptop', laptop)
  await waitFor(async () => (await home.json('/machines')).machines[1]?.state === 'online', 5000, 'online')
  return { home, laptop, stopLaptop: async () => ((stopped = true), await laptop.stop()) }
}

test('a remote transcript through the home: the same frames as at the remote; the remote going away mid-transcript closes the phone with 1013', async () => {
  const cc = claudeHome('cc-long')
  cleanups.push(() => cc.cleanup())
  const { home, laptop, stopLaptop } = await setUp({ homes: { claudeDir: cc.dir }, state: { panes: [paneOn(cc)] } })
  const phone = await pairDevice(home, 'Pixel 9')
  const direct = await open(`${laptop.wsBase}/agent-transcript?pane=w1:p2&token=${ADMIN}`)
  const relayed = await open(`${home.wsBase}/agent-transcript?pane=laptop/w1:p2&token=${phone.token}`)
  const a = await direct.until((f) => f.type === 'backlog_complete')
  const b = await relayed.until((f) => f.type === 'backlog_complete')
  expect(b).toEqual(a)
  // paging goes through too
  relayed.send(JSON.stringify({ type: 'load_older', before_seq: a[0].oldest_loaded_seq, limit: 5 }))
  const page = await relayed.until((f) => f.type === 'page_complete')
  expect(page.filter((f) => f.type === 'entry')).toHaveLength(5)
  // the remote's log names the relayed socket once, as the home bridge's device
  expect(laptop.logLines.filter((l) => l.msg === 'socket open' && l.socket === 'agent-transcript')).toHaveLength(2)

  await stopLaptop()
  const closed = await relayed.closed
  expect(closed.code).toBe(1013)
  expect(closed.reason).toStartWith('machine laptop went away')
})

test('scopes and refusals before the upgrade: 401, 403 needs scope, 404 for a pane the remote lacks, 503 offline', async () => {
  const { home, stopLaptop } = await setUp({ state: { panes: [claudePane({ pane_id: 'w1:p1' })] } })
  const viewer = await pairDevice(home, 'Viewer', ['read'])
  const upgrade = (path: string, token?: string) =>
    fetch(`${home.base}${path}${token ? `&token=${token}` : ''}`, {
      headers: { upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-version': '13' },
    })
  const r401 = await upgrade('/attach?pane=laptop/w1:p1')
  expect([r401.status, await r401.text()]).toEqual([401, 'unauthorized'])
  const r403 = await upgrade('/attach?pane=laptop/w1:p1', viewer.token)
  expect([r403.status, await r403.text()]).toEqual([403, 'forbidden: needs scope terminal'])
  const r404 = await upgrade('/agent-transcript?pane=laptop/w9:p9', viewer.token)
  expect([r404.status, await r404.text()]).toEqual([404, 'no such agent'])
  await stopLaptop()
  await waitFor(async () => (await home.json('/machines')).machines[1].state !== 'online', 5000, 'offline')
  const r503 = await upgrade('/agent-transcript?pane=laptop/w1:p1', viewer.token)
  expect([r503.status, await r503.text()]).toEqual([503, 'machine laptop is offline'])
})

test("a remote terminal through the home: typed frames reach the remote's pane", async () => {
  const { home, laptop } = await setUp({ state: { panes: [{ pane_id: 'w1:p1', workspace_id: 'w1', tab_id: 'w1:t1', screen: '$ \n' }] } })
  const q = await open(`${home.wsBase}/attach?pane=laptop/w1:p1&token=${ADMIN}`)
  await q.next() // the screen
  q.send('ls\r')
  const typed = await waitFor(() => laptop.calls().find((c) => c[1] === 'send-text'), 5000, 'typed at the remote')
  expect(typed).toEqual(['pane', 'send-text', 'w1:p1', 'ls\r'])
  // the remote's row for the session names the home bridge's device and, as via, who asked at the home
  q.close()
  const row = await waitFor(async () => (await laptop.json('/audit')).rows.find((r: { action: string }) => r.action === 'terminal'), 5000, 'the session row')
  expect(row).toMatchObject({ pane: 'w1:p1', status: 101, detail: { bytes_typed: 3, via: 'admin' } })
  expect(row.device_id).toStartWith('dev_')

  // the machine removed from the store: a socket relayed to it ends with it, retryably
  const again = await open(`${home.wsBase}/attach?pane=laptop/w1:p1&token=${ADMIN}`)
  await again.next()
  await removeMachine(home, 'laptop')
  expect(await again.closed).toEqual({ code: 1013, reason: 'machine laptop was removed' })
})
