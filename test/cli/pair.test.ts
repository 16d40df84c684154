// `gothalo pair`: asks the bridge running on the data dir for the code, else
// makes it in the data dir and says so; prints the pairing URL and a QR code
// that a camera reads (checked here by decoding the printed text with jsQR).
import { afterEach, describe, expect, test } from 'bun:test'
import jsQR from 'jsqr'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runAdminCommand } from '../../src/cli/admin'
import { parseSettings } from '../../src/cli/config'
import { qrLines } from '../../src/cli/qr'
import { RUNTIME_FILE, writeRuntimeInfo } from '../../src/cli/startup'
import { ADMIN, startBridge, type Bridge } from '../support/harness'

const dirs: string[] = []
let bridge: Bridge | undefined
afterEach(async () => {
  await bridge?.stop()
  bridge = undefined
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function dataDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'gothalo-pair-'))
  dirs.push(d)
  return d
}

async function pair(argv: string[], env: Record<string, string> = {}) {
  const lines: string[] = []
  const code = await runAdminCommand(parseSettings(['pair', ...argv], { HOME: '/nonexistent', ...env }), (l) => lines.push(l))
  return { code, lines, text: lines.join('\n') }
}

/** Reads a QR code printed with ▀ ▄ █ back into pixels and decodes it. */
export function decodePrintedQr(lines: string[]): string | undefined {
  const qr = lines.map((l) => l.replace(/\x1b\[[0-9;]*m/g, '')).filter((l) => /^[ ▀▄█]+$/.test(l) && l.length > 20)
  const width = qr[0].length
  const rows: boolean[][] = []
  for (const l of qr) {
    const chars = [...l]
    rows.push(chars.map((c) => c === '▀' || c === '█'))
    rows.push(chars.map((c) => c === '▄' || c === '█'))
  }
  const scale = 6
  const W = width * scale
  const H = rows.length * scale
  const px = new Uint8ClampedArray(W * H * 4)
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const v = rows[Math.floor(y / scale)][Math.floor(x / scale)] ? 0 : 255
      px.set([v, v, v, 255], (y * W + x) * 4)
    }
  return jsQR(px, W, H)?.data
}

describe('the QR code', () => {
  test('decodes to the URL, plain and coloured', () => {
    const url = 'https://box.tail1234.ts.net:5338/#pair=K7QX-2M9D'
    expect(decodePrintedQr(qrLines(url))).toBe(url)
    expect(decodePrintedQr(qrLines(url, true))).toBe(url)
    expect(qrLines(url, true)[0]).toStartWith('\x1b[30;47m')
  })
})

describe('gothalo pair', () => {
  test('no bridge running: the code is made in the data dir, which is named; URL and QR code for the public URL', async () => {
    const d = dataDir()
    const r = await pair(['--data-dir', d, '--public-url', 'https://box.tail.ts.net:5338'])
    expect(r.code).toBe(0)
    const code = /^pairing code: (\S+)$/m.exec(r.text)![1]
    const url = `https://box.tail.ts.net:5338/#pair=${code}`
    expect(r.lines).toContain(`pairing URL: ${url}`)
    expect(decodePrintedQr(r.lines)).toBe(url)
    expect(r.text).toContain(`no bridge is running on data dir ${d} (no ${RUNTIME_FILE} there)`)
    expect(r.text).toContain(`a bridge started with --data-dir ${d} accepts it`)
    expect(r.text).not.toContain('only works on this machine')
  })

  test('a running bridge on the data dir makes the code (so that bridge accepts it); its public URL is used', async () => {
    bridge = await startBridge()
    const d = dataDir()
    writeFileSync(join(d, 'admin-token'), ADMIN + '\n', { mode: 0o600 })
    writeRuntimeInfo(d, { url: bridge.base, pid: process.pid, version: 'test', public_url: 'https://phone.example:5338', started_at: 0 })
    const r = await pair(['--data-dir', d])
    expect(r.code).toBe(0)
    expect(r.text).toContain(`made by the bridge at ${bridge.base} (data dir ${d})`)
    const code = /^pairing code: (\S+)$/m.exec(r.text)![1]
    expect(decodePrintedQr(r.lines)).toBe(`https://phone.example:5338/#pair=${code}`)
    // the code is the bridge's: redeeming it there works
    const res = await fetch(`${bridge.base}/pair`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code, device_name: 'phone' }),
    })
    expect(res.status).toBe(200)
    // --public-url on the command line wins over the bridge's
    const again = await pair(['--data-dir', d, '--public-url', 'https://other.example'])
    expect(again.text).toMatch(/^pairing URL: https:\/\/other\.example\/#pair=/m)
  })

  test('without any public URL the bridge URL is used, with a note that a phone cannot reach it', async () => {
    bridge = await startBridge()
    const d = dataDir()
    writeFileSync(join(d, 'admin-token'), ADMIN + '\n')
    writeRuntimeInfo(d, { url: bridge.base, pid: process.pid, version: 'test', started_at: 0 })
    const r = await pair(['--data-dir', d])
    expect(r.text).toMatch(new RegExp(`^pairing URL: ${bridge.base.replace(/\./g, '\\.')}/#pair=`, 'm'))
    expect(r.text).toContain("only works on this machine; give the phone's address with --public-url or GOTHALO_PUBLIC_URL")
  })

  test('a bridge that refuses the admin token: exit 1, one line saying what to do, no code made', async () => {
    bridge = await startBridge()
    const d = dataDir()
    writeFileSync(join(d, 'admin-token'), 'not-the-token\n')
    writeRuntimeInfo(d, { url: bridge.base, pid: process.pid, version: 'test', started_at: 0 })
    const r = await pair(['--data-dir', d])
    expect(r.code).toBe(1)
    expect(r.lines).toEqual([
      `gothalo pair: the bridge at ${bridge.base} refused the admin token (it was started with another --admin-token?) — pass the same --admin-token or GOTHALO_ADMIN_TOKEN`,
    ])
    // with the right token given on the command line it works
    expect((await pair(['--data-dir', d, '--admin-token', ADMIN])).code).toBe(0)
  })

  test('a stale runtime file (the bridge is gone): falls back to the data dir and says so', async () => {
    const d = dataDir()
    writeFileSync(join(d, 'admin-token'), 'tok\n')
    const gone = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('') })
    const url = `http://127.0.0.1:${gone.port}`
    await gone.stop(true)
    writeRuntimeInfo(d, { url, pid: 999999, version: 'test', started_at: 0 })
    const r = await pair(['--data-dir', d])
    expect(r.code).toBe(0)
    expect(r.text).toContain(`the bridge recorded in ${join(d, RUNTIME_FILE)} (${url}) does not answer`)
    expect(r.text).toContain('the code is stored there')
  })
})
