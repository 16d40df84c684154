// The single compiled binary: built once with package.json's build command, then
// run as a user would — flags, a plain bridge (healthz, embedded swagger asset)
// and --demo, where the binary is its own herdr stand-in and carries the samples.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { waitFor } from '../support/wait'
import { ROOT, buildBinary, runBinary, runOnce, type Running } from './build'

let bin: string
let cwd: string
const running: Running[] = []
const temps: string[] = []

function temp(): string {
  const d = mkdtempSync(join(tmpdir(), 'gothalo-bintest-'))
  temps.push(d)
  return d
}

/** The environment a user has, minus our own settings; HOME in a temp dir. */
function userEnv(): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env, HOME: temp() }
  for (const k of Object.keys(env)) if (k.startsWith('GOTHALO_') || k.startsWith('FAKE_HERDR')) delete env[k]
  return env
}

beforeAll(async () => {
  bin = await buildBinary()
  temps.push(dirname(bin))
  // The binary must not read .env or bunfig.toml from where it is started.
  cwd = temp()
  writeFileSync(join(cwd, '.env'), 'GOTHALO_PORT=not-a-port\nGOTHALO_HOST=256.1.1.1\n')
  writeFileSync(join(cwd, 'bunfig.toml'), 'preload = ["./nope.ts"]\n')
}, 120_000)

afterAll(async () => {
  for (const r of running) await r.stop()
  for (const d of temps) rmSync(d, { recursive: true, force: true })
})

function start(args: string[]): Running {
  const r = runBinary(bin, args, { cwd, env: userEnv() })
  running.push(r)
  return r
}

const LISTENING = /listening on (http:\/\/127\.0\.0\.1:(\d+))/

describe('flags', () => {
  test('--version prints the version and exits 0 (no .env read from the cwd)', async () => {
    const r = await runOnce(bin, ['--version'], { cwd, env: userEnv() })
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('gothalo 0.1.0\n')
  })

  test('--help prints the usage and exits 0', async () => {
    const r = await runOnce(bin, ['--help'], { cwd, env: userEnv() })
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('gothalo --demo')
    expect(r.stdout).toContain('--data-dir DIR')
  })

  test('a bad flag exits 2 with one line on stderr', async () => {
    const r = await runOnce(bin, ['--bogus'], { cwd, env: userEnv() })
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe('gothalo: unknown flag: --bogus (see gothalo --help)\n')
  })
})

describe('serving', () => {
  test('a plain bridge: /healthz 200 (herdr missing), the swagger script is embedded', async () => {
    const r = start(['--port', '0', '--data-dir', temp(), '--herdr', '/nonexistent/herdr'])
    const [, base] = await r.waitFor(LISTENING)
    const health = await fetch(`${base}/healthz`)
    expect(health.status).toBe(200)
    expect(((await health.json()) as any).herdr.found).toBe(false)
    const js = await fetch(`${base}/swagger/scalar.js`)
    expect(js.status).toBe(200)
    expect(js.headers.get('content-type')).toContain('javascript')
    expect((await js.text()).length).toBeGreaterThan(100_000)
    // the API documents and the favicon are embedded and served by the binary too
    expect(((await (await fetch(`${base}/swagger/json`)).json()) as any).openapi).toBe('3.1.0')
    expect(((await (await fetch(`${base}/asyncapi.json`)).json()) as any).asyncapi).toBe('3.0.0')
    expect(await (await fetch(`${base}/favicon.svg`)).text()).toStartWith('<svg')
    // The phone client is inside the binary too, byte for byte as built.
    const page = await fetch(`${base}/`)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('src="/app.js"')
    const app = await fetch(`${base}/app.js`)
    expect(app.status).toBe(200)
    expect(Buffer.compare(Buffer.from(await app.arrayBuffer()), readFileSync(join(ROOT, 'assets/web/app.js')))).toBe(0)
    expect(r.stdout()).toMatch(/admin token \(shown once, stored 0600 in .+\): \S{20,}/)
  }, 20_000)

  test('--demo: the binary is its own herdr stand-in and carries the samples', async () => {
    const r = start(['--demo', '--port', '0', '--data-dir', temp()])
    const [, base] = await r.waitFor(LISTENING)
    const [, token] = await r.waitFor(/admin token: (\S+)/)
    const auth = { authorization: `Bearer ${token}` }
    const snap = await fetch(`${base}/snapshot`, { headers: auth })
    expect(snap.status).toBe(200)
    const body = (await snap.json()) as any
    expect(body.panes.map((p: any) => `${p.pane_id} ${p.agent_kind ?? '-'} ${p.agent_status}`)).toEqual([
      'w1:p1 claude working',
      'w1:p2 claude blocked',
      'w1:p3 claude done',
      'w1:p4 pi idle',
      'w1:p5 - unknown',
    ])
    // the subagent count comes from the embedded sample session
    expect(body.panes[0].subagents.total).toBe(5)
    const state = (await (await fetch(`${base}/agent-state?pane=w1:p2`, { headers: auth })).json()) as any
    expect(state.blocked.options.length).toBe(3)
    expect((await fetch(`${base}/snapshot`)).status).toBe(401)
    // SIGTERM removes the demo's temp dir
    const [, dir] = await r.waitFor(/herdr stand-in state in (\S+);/)
    expect(existsSync(join(dir, 'herdr-state.json'))).toBe(true)
    await r.stop()
    expect(r.proc.exitCode).toBe(0)
    expect(existsSync(dir)).toBe(false)
  }, 20_000)

  test('--demo: search finds the samples, the index written by its writer thread and queried on its reader thread (entrypoints of the binary)', async () => {
    const r = start(['--demo', '--port', '0', '--data-dir', temp()])
    const [, base] = await r.waitFor(LISTENING)
    const [, token] = await r.waitFor(/admin token: (\S+)/)
    const auth = { authorization: `Bearer ${token}` }
    // the index's first pass starts 3 s after the bridge
    const found: any = await waitFor(async () => {
      const b: any = await (await fetch(`${base}/search?q=tools`, { headers: auth })).json()
      return b.results?.length > 0 && b
    }, 15_000)
    expect(found.results[0].snippet.toLowerCase()).toContain('tools')
    await r.stop()
    expect(r.stdout() + r.stderr()).toContain('listening')
    expect(r.stdout() + r.stderr()).not.toContain('writer thread could not start')
    expect(r.stdout() + r.stderr()).not.toContain('reader thread could not start')
  }, 25_000)
})
