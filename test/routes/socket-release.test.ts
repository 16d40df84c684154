// Issue 43: a socket its client ended is let go at once, whatever the bridge
// was doing. A client that resets its connection (no close frame), ends it, or
// sends a close frame while its backlog is being written, or while it is paused
// by back-pressure, is released within a second: its registry entry, its
// subscriptions and pollers, and its session file's descriptor. The 60 s
// "stopped reading" rule is for a client that is there but does not read
// (test/routes/sockets.test.ts). Raw TCP clients do the upgrade by hand, so
// they can stop reading and leave without a close frame for real.
import { afterEach, describe, expect, test } from 'bun:test'
import { readdirSync, readlinkSync } from 'node:fs'
import type { Socket } from 'node:net'
import { ADMIN, gatedHerdr, startBridge, waitFor, type Bridge } from '../support/harness'
import { claudeSession } from '../support/claude-home'
import { clientClose, clientFrame, rawSocket } from '../support/raw-socket'

let b: Bridge | undefined
const socks: Socket[] = []
afterEach(async () => {
  for (const s of socks.splice(0)) s.destroy()
  await b?.stop()
  b = undefined
})

/** This process's descriptors open on `path` (the app runs in it). */
function fdsOn(path: string): number {
  let n = 0
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${fd}`) === path) n++
    } catch {} // closed while listed
  }
  return n
}

/** How a client leaves. */
const leave = {
  /** a TCP reset: no close frame, no FIN (a phone's network dropped and came back) */
  reset: (s: Socket) => s.resetAndDestroy(),
  /** a FIN without a close frame (the app killed) */
  end: (s: Socket) => s.end(),
  /** a close frame, and nothing read after it */
  'close frame': (s: Socket) => void s.write(clientClose(1000)),
}

/** A bridge on a big session (1500 entries of `size` bytes): its pages take a while to write. */
async function bigSession(size = 8000) {
  const s = claudeSession(1500, size)
  b = await startBridge({
    homes: { claudeDir: s.claudeDir },
    state: { panes: [s.pane] },
    // the stall rule is far off: only noticing the client's leaving can release it in time
    timing: { stalledSocketMs: 60_000 },
  })
  return s.file
}

/** Everything a transcript socket held is let go within a second of its client leaving. */
async function releasedWithinASecond(file: string, what: string) {
  const { jsonl } = b!.app.decorator.counters
  await waitFor(() => b!.app.decorator.sockets.open() === 0 && jsonl.activeTailers === 0 && fdsOn(file) === 0, 1000, `${what} released`)
  const close = b!.logLines.find((l) => l.msg === 'socket close')
  expect(close).toMatchObject({ socket: 'agent-transcript', pane: 'w1:p2' })
  expect(close!.seconds as number).toBeLessThan(60)
}

describe('a transcript socket whose client leaves mid-backlog is released at once', () => {
  for (const [how, drop] of Object.entries(leave)) {
    test(`${how} right after the 101, while the newest page is being written`, async () => {
      const file = await bigSession(20_000)
      const sock = await rawSocket(b!.base, `/agent-transcript?pane=w1:p2&token=${ADMIN}`)
      socks.push(sock)
      // the socket is registered at its open, before the 101 goes out: the bridge holds it, its file and a tail
      expect(b!.app.decorator.sockets.open()).toBe(1)
      drop(sock)
      await releasedWithinASecond(file, how)
    })

    test(`${how} while paused by back-pressure with pages asked for and unread`, async () => {
      const file = await bigSession()
      const { stream } = b!.app.decorator.counters
      const sock = await rawSocket(b!.base, `/agent-transcript?pane=w1:p2&token=${ADMIN}`, { pauseAfterUpgrade: true })
      socks.push(sock)
      for (let before = 1350; before > 1; before -= 500) sock.write(clientFrame(JSON.stringify({ type: 'load_older', before_seq: before, limit: 500 })))
      await waitFor(() => stream.paused > 0, 5000, 'the stream to back up')
      drop(sock)
      await releasedWithinASecond(file, how)
    })

    test(`${how} after asking for more pages than are queued (its reading paused)`, async () => {
      const file = await bigSession()
      const sock = await rawSocket(b!.base, `/agent-transcript?pane=w1:p2&token=${ADMIN}`, { pauseAfterUpgrade: true })
      socks.push(sock)
      // 40 pages asked for at once: past the queue's bound, the bridge stops reading this client
      for (let k = 0; k < 40; k++) sock.write(clientFrame(JSON.stringify({ type: 'load_older', before_seq: 1300 - k * 10, limit: 10 })))
      await waitFor(() => b!.logLines.some((l) => l.msg === 'socket open'), 5000, 'the socket')
      await Bun.sleep(300) // the requests read and queued (nothing to await: the client reads nothing)
      drop(sock)
      await releasedWithinASecond(file, how)
    })
  }
})

describe('/events and /attach', () => {
  test('an /events socket reset after its hello is released and logged at once', async () => {
    b = await startBridge({ state: { panes: [] } })
    const sock = await rawSocket(b.base, `/events?token=${ADMIN}`)
    socks.push(sock)
    await waitFor(() => b!.app.decorator.sockets.open() === 1, 5000, 'the socket')
    sock.resetAndDestroy()
    await waitFor(() => b!.app.decorator.sockets.open() === 0, 1000, 'the /events socket released')
    const close = await waitFor(() => b!.logLines.find((l) => l.msg === 'socket close'), 1000, 'its close line')
    expect(close).toMatchObject({ socket: 'events', code: 1006, device: 'admin' })
  })

  for (const [how, drop] of Object.entries(leave))
    test(`an /attach socket whose typing has paused its reading: ${how} releases it at once`, async () => {
      let gate!: ReturnType<typeof gatedHerdr>
      b = await startBridge({
        // herdr takes no input: what the client types piles up and its reading pauses
        wrapHerdr: (inner) => (gate = gatedHerdr(inner, 'paneSendText')).client,
        state: { panes: [{ pane_id: 'w1:p5', workspace_id: 'w1', tab_id: 'w1:t1', cwd: '/home/me', screen: '$ \n' }] },
      })
      const sock = await rawSocket(b.base, `/attach?pane=w1:p5&token=${ADMIN}`, { pauseAfterUpgrade: true })
      socks.push(sock)
      for (let k = 0; k < 6; k++) sock.write(clientFrame('y'.repeat(4000)))
      await gate.reached
      await Bun.sleep(300) // the rest read and queued past the bound (nothing to await: the pause shows no sign)
      drop(sock)
      try {
        await waitFor(() => b!.app.decorator.sockets.open() === 0, 1000, 'the /attach socket released')
        expect(b!.logLines.find((l) => l.msg === 'socket close')).toMatchObject({ socket: 'attach', pane: 'w1:p5' })
      } finally {
        gate.open()
      }
    })
})
