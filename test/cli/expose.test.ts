// `gothalo expose` against a fake tailscale that answers as the real CLI does:
// the serve command it runs, the URL it remembers (and pairing uses), and one
// line for each way it can fail.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { runAdminCommand } from '../../src/cli/admin'
import type { Settings } from '../../src/cli/config'
import type { FakeTailscale } from '../support/fake-tailscale'
import { ROOT, tempDir } from '../support/harness'

const FAKE = join(ROOT, 'fixtures/tailscale/tailscale')
let dir: string
let data: string

function state(over: Partial<FakeTailscale> = {}) {
  const s: FakeTailscale = { state: 'Running', dns: 'box.tail1234.ts.net', certs: true, serve: {}, ...over }
  writeFileSync(join(dir, 'ts.json'), JSON.stringify(s))
}
const calls = (): string[][] =>
  existsSync(join(dir, 'ts.log'))
    ? readFileSync(join(dir, 'ts.log'), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    : []

beforeEach(() => {
  dir = tempDir('gothalo-expose-')
  data = join(dir, 'data')
  process.env.FAKE_TS_STATE = join(dir, 'ts.json')
  process.env.FAKE_TS_LOG = join(dir, 'ts.log')
  process.env.FAKE_TS_BUN = process.execPath
})
afterEach(() => {
  delete process.env.FAKE_TS_STATE
  delete process.env.FAKE_TS_LOG
})

async function run(over: Partial<Settings> = {}) {
  const lines: string[] = []
  const settings: Settings = {
    command: 'expose',
    host: '127.0.0.1',
    port: 8787,
    herdr: 'herdr',
    dataDir: data,
    demo: false,
    herdrTimeoutMs: 5000,
    tailscale: FAKE,
    ...over,
  }
  const code = await runAdminCommand(settings, (l) => lines.push(l))
  return { code, lines }
}

describe('gothalo expose', () => {
  test('serves the bridge on 443, remembers the URL, prints a pairing code for it and the undo', async () => {
    state()
    const r = await run()
    expect(r.code).toBe(0)
    expect(calls()).toEqual([
      ['status', '--json'],
      ['serve', 'status', '--json'],
      ['serve', '--bg', '--https=443', 'http://127.0.0.1:8787'],
    ])
    expect(r.lines[0]).toBe('https://box.tail1234.ts.net now reaches the bridge at http://127.0.0.1:8787 (tailscale serve, HTTPS port 443)')
    expect(r.lines.some((l) => /^pairing URL: https:\/\/box\.tail1234\.ts\.net\/#pair=[2-9A-HJKMNP-Z]{4}-[2-9A-HJKMNP-Z]{4}$/.test(l))).toBe(true)
    expect(r.lines.at(-1)).toBe('undo: gothalo expose --off')
    expect(readFileSync(join(data, 'public-url'), 'utf8')).toBe('https://box.tail1234.ts.net\n')
    // a later `gothalo pair` uses it
    const pair = await run({ command: 'pair' })
    expect(pair.lines.some((l) => l.startsWith('pairing URL: https://box.tail1234.ts.net/#pair='))).toBe(true)
  })

  test('443 held by another serve: the next free port; already set up: nothing run again', async () => {
    state({ serve: { TCP: { '443': { HTTPS: true } }, Web: { 'box.tail1234.ts.net:443': { Handlers: { '/': { Proxy: 'http://127.0.0.1:3000' } } } } } })
    const r = await run()
    expect(r.lines[0]).toBe('https://box.tail1234.ts.net:8443 now reaches the bridge at http://127.0.0.1:8787 (tailscale serve, HTTPS port 8443)')
    const again = await run()
    expect(again.lines[0]).toEndWith('(tailscale serve, HTTPS port 8443, already set up)')
    expect(calls().filter((c) => c[0] === 'serve' && c[1] === '--bg')).toHaveLength(1)
  })

  test('--off: the serve config that points at the bridge goes, and the URL is forgotten', async () => {
    state()
    await run()
    const off = await run({ off: true })
    expect(off).toEqual({ code: 0, lines: ['tailscale serve no longer serves the bridge on HTTPS port 443; the remembered URL is forgotten'] })
    expect(calls().at(-1)).toEqual(['serve', '--https=443', 'off'])
    expect(existsSync(join(data, 'public-url'))).toBe(false)
  })

  test('each way it can fail is one line that says what to do, and nothing is remembered', async () => {
    const cases: [Partial<FakeTailscale> | 'missing', string][] = [
      ['missing', 'gothalo expose: Tailscale is not installed: install it (https://tailscale.com/download), run `tailscale up`, then `gothalo expose` again'],
      [{ state: 'NeedsLogin' }, 'gothalo expose: Tailscale is not logged in (state NeedsLogin): run `tailscale up`, then `gothalo expose` again'],
      [
        { certs: false },
        'gothalo expose: HTTPS certificates are off for your tailnet: turn them on (admin console → DNS → HTTPS Certificates), then `gothalo expose` again',
      ],
      [
        { deny: true },
        'gothalo expose: `tailscale serve` is not permitted for this user: run `sudo tailscale set --operator=$USER` once, then `gothalo expose` again',
      ],
      [
        { serve: { TCP: { '443': { HTTPS: true }, '8443': { HTTPS: true }, '10000': { HTTPS: true } } } },
        'gothalo expose: HTTPS ports 443, 8443, 10000 are all held by other `tailscale serve` configs: free one (`tailscale serve status`, `tailscale serve --https=<port> off`), then `gothalo expose` again',
      ],
    ]
    for (const [s, line] of cases) {
      state(s === 'missing' ? {} : s)
      const r = await run(s === 'missing' ? { tailscale: join(dir, 'no-tailscale-here') } : {})
      expect(r).toEqual({ code: 1, lines: [line] })
      expect(existsSync(join(data, 'public-url'))).toBe(false)
    }
  })
})

// issue 37, also measured: its failure lines went to stdout
test('the executable prints a failure on stderr, nothing on stdout, and exits 1', async () => {
  state({ state: 'NeedsLogin' })
  const p = Bun.spawn([process.execPath, join(ROOT, 'src/main.ts'), 'expose', '--tailscale', FAKE, '--data-dir', data], {
    env: { ...process.env },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [code, stdout, stderr] = await Promise.all([p.exited, new Response(p.stdout).text(), new Response(p.stderr).text()])
  expect({ code, stdout }).toEqual({ code: 1, stdout: '' })
  expect(stderr).toBe('gothalo expose: Tailscale is not logged in (state NeedsLogin): run `tailscale up`, then `gothalo expose` again\n')
})
