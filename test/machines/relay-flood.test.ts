// A relayed socket (WS /agent-transcript of another machine's pane) between a
// remote that floods and a phone that does not read, and the other way round: the
// home bridge holds at most RELAY_QUEUE_LIMIT (1 MiB) of unsent frames for either
// side, then closes both ends, saying why, instead of growing without bound.
import { afterEach, expect, test } from 'bun:test'
import { RELAY_QUEUE_LIMIT } from '../../src/machines/relay'
import { writeMachines } from '../../src/machines/store'
import { ADMIN, FrameQueue, claudePane, waitFor } from '../support/harness'
import { rawSocket, readToEnd, serverFrames } from '../support/raw-socket'
import { deafRemote, fakeRemote, startHome, type Home } from './support'

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function homeWith(base: string): Promise<Home> {
  const home = await startHome([claudePane({ pane_id: 'w1:p1' })])
  cleanups.push(() => home.stop())
  writeMachines(home.dataDir, [{ label: 'odd', target: base, device_id: 'dev_home', token: 'tok_home', added_at: 0 }])
  await waitFor(async () => (await home.json('/machines')).machines.find((m: { id: string }) => m.id === 'odd')?.state === 'online', 5000, 'odd online')
  return home
}

const FLOOD_MAX = 64 * 1024 * 1024
const CHUNK = 'x'.repeat(16 * 1024)

test('a remote that floods a phone that does not read: the phone is closed with 1008 past 1 MiB unsent, and the remote with it', async () => {
  let sent = 0
  let remoteClosed!: (c: { code: number; reason: string }) => void
  const closedAtRemote = new Promise<{ code: number; reason: string }>((r) => (remoteClosed = r))
  let open = false
  let finished!: (v: string) => void
  const floodFinished = new Promise<string>((r) => (finished = r))
  const remote = fakeRemote(
    {},
    {
      '/agent-transcript': {
        open(ws) {
          open = true
          const flood = () => {
            // as fast as the home takes them, until it closes the socket
            while (open && sent < FLOOD_MAX && ws.send(CHUNK) > 0) sent += CHUNK.length
            if (open && sent < FLOOD_MAX) setTimeout(flood, 1)
            else if (sent >= FLOOD_MAX) finished('the whole flood was taken')
          }
          flood()
        },
        close(_ws, code, reason) {
          open = false
          remoteClosed({ code, reason })
        },
      },
    },
  )
  cleanups.push(() => remote.stop())
  const home = await homeWith(remote.base)
  const phone = await rawSocket(home.base, `/agent-transcript?pane=odd/w1:p1&token=${ADMIN}`, { pauseAfterUpgrade: true })
  cleanups.push(() => phone.destroy())
  expect(await Promise.race([closedAtRemote, floodFinished])).toEqual({ code: 1000, reason: 'phone left' })
  expect(sent).toBeLessThan(FLOOD_MAX)
  // what the phone is sent, once it reads: text frames, then the close saying why
  const frames = serverFrames(await readToEnd(phone))
  const last = frames.at(-1)!
  expect(last.opcode).toBe(8)
  expect([last.payload.readUInt16BE(0), last.payload.subarray(2).toString()]).toEqual([1008, 'client too slow'])
  expect(frames.slice(0, -1).every((f) => f.opcode === 1 && f.payload.length === CHUNK.length)).toBe(true)
  // the home did not take much more than it could pass on: it stopped reading the remote when it closed
  expect(frames.length - 1).toBeLessThan(sent / CHUNK.length + 1)
}, 30_000)

test('a phone that floods a remote that does not read: the phone is closed with 1013 past 1 MiB unsent', async () => {
  const remote = deafRemote()
  cleanups.push(() => remote.stop())
  const home = await homeWith(`http://127.0.0.1:${await remote.listening}`)
  const phone = new FrameQueue(`${home.wsBase}/agent-transcript?pane=odd/w1:p1&token=${ADMIN}`)
  cleanups.push(() => phone.close())
  await phone.opened
  await remote.transcript
  let typed = 0
  const flood = async () => {
    // the phone's socket is read by the home at once; what the home cannot pass on piles up there
    while (typed < FLOOD_MAX) {
      if (phone.ws.readyState !== WebSocket.OPEN) return
      if (phone.ws.bufferedAmount > 4 * RELAY_QUEUE_LIMIT) await new Promise((r) => setTimeout(r, 5))
      else {
        phone.ws.send(JSON.stringify({ type: 'load_older', before_seq: 1, limit: 1, pad: CHUNK }))
        typed += CHUNK.length
      }
    }
  }
  // the flood also stops when the socket is closing: its close event, not the flood's end, then says why
  const closed = await Promise.race([phone.closed, flood().then(() => (typed >= FLOOD_MAX ? { code: 0, reason: 'the whole flood was taken' } : phone.closed))])
  expect([closed.code, closed.reason]).toEqual([1013, 'machine odd is not reading'])
  expect(typed).toBeLessThan(FLOOD_MAX)
}, 30_000)
