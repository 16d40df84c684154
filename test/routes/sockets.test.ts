// Socket lifetime (issue 10, items 1 and 2): a device revoked while its
// upgrade is in flight gets no socket, and a client that stops reading for
// good releases its stream, file, tail poll and herdr poller.
import { afterEach, describe, expect, test } from 'bun:test'
import { ADMIN, FrameQueue, gatedHerdr, pairDevice, startBridge, waitFor, type Bridge } from '../support/harness'
import { claudeSession } from '../support/claude-home'
import { clientFrame, rawSocket } from '../support/raw-socket'

let b: Bridge | undefined
afterEach(async () => {
  await b?.stop()
  b = undefined
})

describe('a device revoked while its upgrade is in flight has no socket', () => {
  for (const [route, method] of [
    ['/attach', 'paneRead'],
    ['/agent-transcript', 'agentGet'],
  ] as const) {
    test(`${route}: the socket closes with 1000 'device revoked' and nothing typed reaches the pane`, async () => {
      const s = claudeSession(3)
      let gate!: ReturnType<typeof gatedHerdr>
      b = await startBridge({
        wrapHerdr: (inner) => (gate = gatedHerdr(inner, method)).client,
        homes: { claudeDir: s.claudeDir },
        state: { panes: [{ ...s.pane, screen: '$ \n' }] },
        timing: { attachPollMs: 20 },
      })
      const dev = await pairDevice(b)
      const q = new FrameQueue(`${b.wsBase}${route}?pane=w1:p2&token=${dev.token}`)
      await gate.reached // the upgrade is waiting on herdr
      const del = await fetch(`${b.base}/devices/${dev.device_id}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN}` } })
      expect(del.status).toBe(200)
      gate.open()
      const closed = await Promise.race([q.closed, new Promise<'still open'>((r) => setTimeout(() => r('still open'), 3000))])
      expect(closed).toEqual({ code: 1000, reason: 'device revoked' })
      if (route === '/attach') {
        try {
          q.send('hunter2')
        } catch {}
        await Bun.sleep(100)
        expect(b.calls().filter((c) => c[1] === 'send-text')).toEqual([])
      }
    })
  }
})

describe('a client that stops reading for good releases everything', () => {
  test('paused mid-backlog with pages pending: stream, file, tail poll and herdr watcher are released', async () => {
    const s = claudeSession(1500, 8000) // ~12 MB of frames: far past any socket buffer
    b = await startBridge({
      homes: { claudeDir: s.claudeDir },
      state: { panes: [s.pane] },
      // no linger: the watcher stopping shows the socket let go of it
      timing: { stalledSocketMs: 1500, sessionPollMs: 50, herdrPollMs: 100, herdrLingerMs: 0 },
    })
    const { jsonl: jsonlCounters, stream: streamCounters } = b.app.decorator.counters // the bridge's own
    const tailersBefore = jsonlCounters.activeTailers
    const pausedBefore = streamCounters.paused
    const sock = await rawSocket(b.base, `/agent-transcript?pane=w1:p2&token=${ADMIN}`, { pauseAfterUpgrade: true })
    for (let before = 1350; before > 1; before -= 500) sock.write(clientFrame(JSON.stringify({ type: 'load_older', before_seq: before, limit: 500 })))
    await waitFor(() => streamCounters.paused > pausedBefore, 10_000, 'the stream to back up')
    // The socket is open: the herdr watcher runs for its rotation checks.
    const polled = b.calls().length
    await waitFor(() => b!.calls().length > polled + 2, 5000, 'the session poller')
    expect(jsonlCounters.activeTailers).toBeGreaterThan(tailersBefore)
    // Nobody reads and nobody closes: within the stall limit everything is let go,
    // through the one release that also drops the socket's pane watch and roster poll.
    await waitFor(() => jsonlCounters.activeTailers === tailersBefore, 10_000, 'the tailer to stop')
    expect(streamCounters.paused).toBe(pausedBefore)
    expect(b.logs.some((l) => l.includes('client stopped reading for 1500 ms; closing'))).toBe(true)
    await Bun.sleep(600) // a poll already in flight may still land
    const after = b.calls().length
    await Bun.sleep(500)
    expect(b.calls().length).toBe(after) // the herdr watcher stopped with its last user
    sock.destroy()
  }, 25_000)
})
