// Startup, as a user meets it: every failure is one line on stderr saying what
// to do, with a non-zero exit and no stack trace (unless --log-level debug);
// binding beyond loopback is warned about; the runtime file comes and goes.
import { afterEach, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { startBridge } from '../support/harness'

const MAIN = resolve(import.meta.dir, '../../src/main.ts')
const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), 'gothalo-start-'))
  dirs.push(d)
  return d
}

async function start(args: string[]) {
  const p = Bun.spawn([process.execPath, MAIN, ...args], {
    env: { ...process.env, GOTHALO_DATA_DIR: undefined, GOTHALO_ADMIN_TOKEN: undefined, HOME: temp() },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
  return { stdout, stderr, code }
}

describe('a failed start is one line with what to do', () => {
  test('a data dir that cannot be created (a file is in the way)', async () => {
    const d = temp()
    writeFileSync(join(d, 'file'), 'x')
    const r = await start(['--port', '0', '--data-dir', join(d, 'file', 'data')])
    expect(r.code).toBe(1)
    expect(r.stderr).toBe(
      `gothalo: cannot use the data dir ${join(d, 'file', 'data')} (${join(d, 'file', 'data')}: a file is in the way) — choose a writable one with --data-dir or GOTHALO_DATA_DIR\n`,
    )
  })

  test('a data dir that cannot be written (/proc)', async () => {
    const r = await start(['--port', '0', '--data-dir', '/proc'])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/^gothalo: cannot use the data dir \/proc \(.+\) — choose a writable one with --data-dir or GOTHALO_DATA_DIR\n$/)
  })

  test("an address that is not this machine's; with --log-level debug the stack follows", async () => {
    const d = temp()
    const r = await start(['--port', '0', '--host', '192.0.2.1', '--data-dir', d])
    expect(r.code).toBe(1)
    expect(r.stderr).toBe(
      'gothalo: cannot listen on 192.0.2.1:0: 192.0.2.1 is not an address of this machine — use 127.0.0.1 (and tailscale serve for the phone), or an address this machine has\n',
    )
    // nothing was left behind that would make `gothalo pair` look for this bridge
    expect(existsSync(join(d, 'bridge.json'))).toBe(false)
    const debug = await start(['--port', '0', '--host', '192.0.2.1', '--data-dir', d, '--log-level', 'debug'])
    expect(debug.code).toBe(1)
    const lines = debug.stderr.trim().split('\n')
    expect(lines[0]).toStartWith('gothalo: cannot listen on 192.0.2.1:0')
    expect(lines.length).toBeGreaterThan(1)
    expect(debug.stderr).toMatch(/\n\s*at /)
  })

  // Elysia's Bun adapter turns on reusePort, which let two bridges share a port and split the requests (issue 10, item 14).
  test('a second bridge on a port already in use: exit 1, one line naming the port', async () => {
    const b = await startBridge()
    try {
      const port = new URL(b.base).port
      const r = await start(['--host', '127.0.0.1', '--port', port, '--data-dir', temp(), '--admin-token', 'x'])
      expect(r.code).toBe(1)
      const lines = r.stderr.trim().split('\n')
      expect(lines).toHaveLength(1)
      expect(lines[0]).toContain(`port ${port}`)
      expect(lines[0]).toContain('in use')
    } finally {
      await b.stop()
    }
  }, 15_000)

  test('a bad flag: exit 2, one line', async () => {
    const r = await start(['--log-format', 'xml'])
    expect(r).toEqual({ stdout: '', stderr: 'gothalo: bad log format: xml (want text | json) (see gothalo --help)\n', code: 2 })
  })
})

test('binding beyond loopback warns; the runtime file names the bridge while it runs and goes when it stops', async () => {
  const d = temp()
  const p = Bun.spawn([process.execPath, MAIN, '--host', '0.0.0.0', '--port', '0', '--data-dir', d, '--log-format', 'json', '--herdr', '/nonexistent/herdr'], {
    env: { ...process.env, HOME: temp() },
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
  })
  let err = ''
  const dec = new TextDecoder()
  const reader = p.stderr.getReader()
  const deadline = Date.now() + 15_000
  while (!/"msg":"listening"/.test(err) && Date.now() < deadline) {
    const { value, done } = await reader.read()
    if (done) break
    err += dec.decode(value, { stream: true })
  }
  const lines = err
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
  const warn = lines.find((l) => l.msg === 'listening beyond this machine')
  expect(warn).toMatchObject({ level: 'warn', host: '0.0.0.0' })
  const listening = lines.find((l) => l.msg === 'listening')
  expect(listening).toMatchObject({ level: 'info', data_dir: d })
  const info = JSON.parse(readFileSync(join(d, 'bridge.json'), 'utf8'))
  expect(info).toMatchObject({ url: listening.url, pid: p.pid })
  expect((await fetch(`${info.url}/healthz`)).status).toBe(200)
  p.kill('SIGTERM')
  expect(await p.exited).toBe(0)
  expect(existsSync(join(d, 'bridge.json'))).toBe(false)
})
