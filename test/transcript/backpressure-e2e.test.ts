// A client that asks for pages and stops reading: the server must wait for it,
// not buffer without bound (issue 4, Backpressure). A raw TCP client does the
// WebSocket handshake by hand so it can pause its reading for real.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { randomBytes } from 'node:crypto'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ADMIN, claudePane, startBridge, waitFor, type Bridge } from '../support/harness'
import { clientFrame } from '../support/raw-socket'

const SID = 'b7f0e0a0-0000-4000-8000-00000000bp01'
const CWD = '/home/me/backpressure/proj'
const ENTRIES = 6000
const TEXT = 'x'.repeat(8000) // ~8 KB a frame: 6000 frames ≈ 48 MB, far past any socket buffer

let b: Bridge
beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gothalo-bp-'))
  const proj = join(dir, 'projects', CWD.replace(/[/.]/g, '-'))
  mkdirSync(proj, { recursive: true })
  const lines: string[] = []
  for (let i = 1; i <= ENTRIES; i++)
    lines.push(
      JSON.stringify({
        type: 'assistant',
        uuid: `u${i}`,
        timestamp: '2026-12-02T10:00:00.000Z',
        message: { role: 'assistant', content: [{ type: 'text', text: `${i} ${TEXT}` }] },
      }),
    )
  writeFileSync(join(proj, `${SID}.jsonl`), lines.join('\n') + '\n')
  b = await startBridge({
    homes: { claudeDir: dir },
    state: { panes: [claudePane({ cwd: CWD, agent: { agent_session: { agent: 'claude', kind: 'id', source: 'herdr:claude', value: SID } } })] },
  })
})
afterAll(() => b.stop())

/** Server frames out of a byte stream (unmasked); returns text payloads and the rest. */
function takeFrames(buf: Buffer): { texts: string[]; rest: Buffer } {
  const texts: string[] = []
  let at = 0
  for (;;) {
    if (buf.length - at < 2) break
    const op = buf[at] & 0x0f
    let len = buf[at + 1] & 0x7f
    let off = at + 2
    if (len === 126) {
      if (buf.length - at < 4) break
      len = buf.readUInt16BE(at + 2)
      off = at + 4
    } else if (len === 127) {
      if (buf.length - at < 10) break
      len = Number(buf.readBigUInt64BE(at + 2))
      off = at + 10
    }
    if (buf.length < off + len) break
    if (op === 1) texts.push(buf.toString('utf8', off, off + len))
    at = off + len
  }
  return { texts, rest: buf.subarray(at) }
}

test('a client that stops reading pauses its stream; the server queues at most its limit; nothing is lost', async () => {
  const port = Number(new URL(b.base).port)
  const sock: Socket = connect(port, '127.0.0.1')
  let pending: Buffer = Buffer.alloc(0)
  const frames: any[] = []
  let upgraded = false
  const upgradedP = new Promise<void>((res) => {
    sock.on('data', (d: Buffer) => {
      pending = Buffer.concat([pending, d])
      if (!upgraded) {
        const end = pending.indexOf('\r\n\r\n')
        if (end < 0) return
        expect(pending.subarray(0, 12).toString()).toBe('HTTP/1.1 101')
        pending = pending.subarray(end + 4)
        upgraded = true
        // Stop reading right away: every frame from now on piles up in the kernel, then in the server.
        sock.pause()
        res()
      }
      const { texts, rest } = takeFrames(pending)
      pending = rest
      for (const t of texts) frames.push(JSON.parse(t))
    })
  })
  sock.write(
    `GET /agent-transcript?pane=w1:p2&token=${ADMIN} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  )
  await upgradedP
  // The bridge's own counters: this socket is the bridge's only one.
  const { stream: streamCounters, transcript: transcriptCounters } = b.app.decorator.counters
  const pausesBefore = streamCounters.pauses
  const pausedBefore = streamCounters.paused
  // Ask for the whole history, 500 at a time, without reading a byte.
  const first = ENTRIES - 149
  const pages: number[] = []
  for (let before = first; before > 1; before -= 500) pages.push(before)
  for (const before of pages) sock.write(clientFrame(JSON.stringify({ type: 'load_older', before_seq: before, limit: 500 })))

  await waitFor(() => streamCounters.paused > pausedBefore && streamCounters.pauses > pausesBefore, 10_000, 'the stream to pause')
  // The server holds at most about its backpressure limit (1 MiB) plus one frame, not the 48 MB asked for.
  expect(transcriptCounters.maxBufferedBytes).toBeLessThan(2 * 1024 * 1024)

  sock.resume()
  await waitFor(
    () => frames.some((f) => f.type === 'backlog_complete') && frames.filter((f) => f.type === 'page_complete').length === pages.length,
    20_000,
    'the newest page and every older page',
  )
  // Pages asked for before hello still come after the opening sequence.
  expect(frames[0].type).toBe('hello')
  const bc = frames.findIndex((f) => f.type === 'backlog_complete')
  expect(frames.slice(1, bc).every((f) => f.type === 'entry' && f.entry.seq > ENTRIES - 150)).toBe(true)
  const seqs = frames.filter((f) => f.type === 'entry').map((f) => f.entry.seq)
  expect(seqs.length).toBe(ENTRIES)
  expect(new Set(seqs).size).toBe(ENTRIES)
  expect(Math.min(...seqs)).toBe(1)
  expect(Math.max(...seqs)).toBe(ENTRIES)
  expect(streamCounters.paused).toBe(pausedBefore)
  sock.destroy()
})
