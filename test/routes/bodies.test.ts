// Request bodies (issue 10, item 4): nothing is read before the token is
// checked, and no body is bigger than the API needs. A raw TCP client sends
// headers and only part of the body, so the test sees whether the server
// waited for the rest (it must not).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { connect } from 'node:net'
import { ADMIN, startBridge, type Bridge } from '../support/harness'
import { MAX_BODY_BYTES } from '../../src/app'

let b: Bridge
beforeAll(async () => {
  b = await startBridge({ state: { panes: [{ pane_id: 'w1:p1', workspace_id: 'w1', tab_id: 'w1:t1', screen: '$ \n' }] } })
})
afterAll(() => b.stop())

/**
 * Sends a POST with these headers and `sent` bytes of its body, and returns the
 * status line the server answers with, or 'no answer' if it waits for the rest.
 */
async function partialPost(path: string, headers: Record<string, string>, sent: Buffer, waitMs = 2000): Promise<string> {
  const port = Number(new URL(b.base).port)
  const sock = connect(port, '127.0.0.1')
  try {
    const answer = new Promise<string>((res) => {
      let got = ''
      sock.on('data', (d) => {
        got += d.toString('latin1')
        const end = got.indexOf('\r\n')
        if (end >= 0) res(got.slice(0, end))
      })
      sock.on('close', () => res(got ? got.split('\r\n')[0] : 'closed without an answer'))
      sock.on('error', () => {})
    })
    const head = Object.entries({ host: '127.0.0.1', ...headers })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')
    sock.write(`POST ${path} HTTP/1.1\r\n${head}\r\n`)
    sock.write(sent)
    return await Promise.race([answer, new Promise<string>((r) => setTimeout(() => r('no answer'), waitMs))])
  } finally {
    sock.destroy()
  }
}

describe('no body is read before the token is checked', () => {
  test('unauthenticated POST /send announcing 100 MB: refused at once, without reading it', async () => {
    const line = await partialPost('/send', { 'content-type': 'application/json', 'content-length': String(100 * 1024 * 1024) }, Buffer.alloc(64 * 1024, 0x20))
    expect(line).toMatch(/^HTTP\/1\.1 (401|413) /)
  })

  test('unauthenticated POST /send with a small body that never finishes arriving: 401 without waiting for it', async () => {
    const line = await partialPost('/send', { 'content-type': 'application/json', 'content-length': '1000' }, Buffer.from('{"pane":"w1:p1",'))
    expect(line).toBe('HTTP/1.1 401 Unauthorized')
  })

  test('with a valid token the same unfinished body is waited for (the check above is the token, not impatience)', async () => {
    const line = await partialPost(
      '/send',
      { 'content-type': 'application/json', 'content-length': '1000', authorization: `Bearer ${ADMIN}` },
      Buffer.from('{"pane":"w1:p1",'),
      500,
    )
    expect(line).toBe('no answer')
  })
})

describe('bodies are small', () => {
  test(`an authorized body over ${MAX_BODY_BYTES} bytes is 413, a full-size /send still works`, async () => {
    const big = JSON.stringify({ pane: 'w1:p1', text: 'a'.repeat(MAX_BODY_BYTES) })
    const r = await b.post('/send', big)
    expect(r.status).toBe(413)
    // The largest text the contract allows, every character an escaped surrogate pair, fits.
    const worst = `{"pane":"w1:p1","text":"${'\\ud83d\\ude00'.repeat(4096)}"}`
    expect(Buffer.byteLength(worst)).toBeLessThan(MAX_BODY_BYTES)
    const ok = await b.post('/send', worst)
    expect(ok.status).toBe(200)
  })

  test('a chunked body (no length announced) that grows past the limit is cut off with 413', async () => {
    let sent = 0
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent++ < 64) c.enqueue(new Uint8Array(16 * 1024).fill(0x20))
        else c.close()
      },
    })
    const r = await fetch(`${b.base}/send`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body,
    }).catch((e) => e as Error)
    if (r instanceof Error) expect(r.message).toMatch(/closed|reset|ECONN/i)
    else expect(r.status).toBe(413)
  })
})
