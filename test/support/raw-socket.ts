// A WebSocket client written by hand over TCP, for the tests that need what a real
// client library hides: stop reading for real (backpressure, a client that never
// reads), or send frames of their own making.
import { randomBytes } from 'node:crypto'
import { connect, type Socket } from 'node:net'

/** A masked client text frame. */
export function clientFrame(text: string): Buffer {
  const payload = Buffer.from(text)
  const mask = randomBytes(4)
  const head = payload.length < 126 ? Buffer.from([0x81, 0x80 | payload.length]) : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 255])
  return Buffer.concat([head, mask, Buffer.from(payload.map((c, i) => c ^ mask[i % 4]))])
}

/** A raw TCP WebSocket client: upgrades, then optionally stops reading at once. */
export async function rawSocket(base: string, path: string, opts: { pauseAfterUpgrade?: boolean } = {}): Promise<Socket> {
  const port = Number(new URL(base).port)
  const sock: Socket = connect(port, '127.0.0.1')
  let head = Buffer.alloc(0)
  const upgraded = new Promise<void>((res, rej) => {
    const onData = (d: Buffer) => {
      head = Buffer.concat([head, d])
      const end = head.indexOf('\r\n\r\n')
      if (end < 0) return
      sock.off('data', onData)
      if (opts.pauseAfterUpgrade) sock.pause()
      if (!head.subarray(0, 12).toString().startsWith('HTTP/1.1 101')) rej(new Error(head.subarray(0, end).toString()))
      else res()
    }
    sock.on('data', onData)
    sock.on('error', rej)
  })
  sock.write(
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  )
  await upgraded
  return sock
}

/** A masked client close frame with its code. */
export function clientClose(code = 1000): Buffer {
  const mask = randomBytes(4)
  const payload = Buffer.from([code >> 8, code & 255])
  return Buffer.concat([Buffer.from([0x88, 0x80 | payload.length]), mask, Buffer.from(payload.map((c, i) => c ^ mask[i % 4]))])
}

/** The frames a server sent (unmasked), as far as `buf` holds whole ones: opcode and payload. */
export function serverFrames(buf: Buffer): { opcode: number; payload: Buffer }[] {
  const out: { opcode: number; payload: Buffer }[] = []
  let i = 0
  while (i + 2 <= buf.length) {
    let len = buf[i + 1]! & 0x7f
    let at = i + 2
    if (len === 126) {
      if (at + 2 > buf.length) break
      len = buf.readUInt16BE(at)
      at += 2
    } else if (len === 127) {
      if (at + 8 > buf.length) break
      len = Number(buf.readBigUInt64BE(at))
      at += 8
    }
    if (at + len > buf.length) break
    out.push({ opcode: buf[i]! & 0x0f, payload: buf.subarray(at, at + len) })
    i = at + len
  }
  return out
}

/** Reads a socket to its end (resuming it if paused): every byte the server sent. */
export function readToEnd(sock: Socket): Promise<Buffer> {
  const chunks: Buffer[] = []
  return new Promise((res) => {
    sock.on('data', (d: Buffer) => chunks.push(d))
    sock.on('close', () => res(Buffer.concat(chunks)))
    sock.resume()
  })
}
