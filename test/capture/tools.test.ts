// The capture tooling without Claude Code: the mock model's error steps and held streams,
// the one-tool MCP server, and compare.ts (what check-live.sh runs after a fresh recording)
// on a recording that agrees with the fixtures and on one that does not.
import { afterAll, describe, expect, test } from 'bun:test'
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const ROOT = join(import.meta.dir, '../..')
const CAPTURE = join(ROOT, 'scripts/capture')
const NODE = Bun.which('node')
const needNode = () => {
  if (!NODE) throw new Error('these tests run the capture tools with node: install it (apt-get install nodejs)')
  return NODE
}

describe('mock-anthropic.mjs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gothalo-mock-'))
  const port = 20000 + Math.floor(Math.random() * 9000)
  writeFileSync(
    join(dir, 'scenario.json'),
    JSON.stringify({
      steps: [{ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' }, repeat: 2 }, [{ text: 'after the errors' }]],
      sideText: 'side',
    }),
  )
  let proc: ReturnType<typeof Bun.spawn> | undefined
  afterAll(() => proc?.kill())
  const ask = (tools: boolean) =>
    fetch(`http://127.0.0.1:${port}/v1/messages`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }], ...(tools ? { tools: [{ name: 'Bash' }] } : {}) }),
    })

  test('an error step answers its HTTP error `repeat` times, then the next step is served; side requests get sideText', async () => {
    proc = Bun.spawn([needNode(), join(CAPTURE, 'mock-anthropic.mjs'), String(port), join(dir, 'scenario.json'), join(dir, 'mock.log')], {
      stdout: 'ignore',
      stderr: 'pipe',
    })
    for (let i = 0; i < 100; i++) {
      try {
        if (readFileSync(join(dir, 'mock.log'), 'utf8').includes('listening')) break
      } catch {}
      await Bun.sleep(50)
    }
    const side = await ask(false)
    expect(((await side.json()) as any).content[0].text).toBe('side')
    for (let i = 0; i < 2; i++) {
      const r = await ask(true)
      expect(r.status).toBe(529)
      expect(((await r.json()) as any).error).toEqual({ type: 'overloaded_error', message: 'Overloaded' })
    }
    const ok = await ask(true)
    expect(ok.status).toBe(200)
    expect(((await ok.json()) as any).content[0].text).toBe('after the errors')
    expect(readFileSync(join(dir, 'mock.log'), 'utf8')).toContain('error 529 (2/2)')
  })
})

describe('mock-mcp.mjs', () => {
  test('initialize, tools/list and tools/call over newline-delimited JSON-RPC', async () => {
    const p = Bun.spawn([needNode(), join(CAPTURE, 'mock-mcp.mjs')], { stdin: 'pipe', stdout: 'pipe' })
    const msgs = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18' } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'create_issue', arguments: { title: 'T' } } },
    ]
    p.stdin.write(msgs.map((m) => JSON.stringify(m)).join('\n') + '\n')
    p.stdin.end()
    const out = (await new Response(p.stdout).text())
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(out.map((m) => m.id)).toEqual([1, 2, 3])
    expect(out[0].result.serverInfo.name).toBe('tracker')
    expect(out[1].result.tools.map((t: { name: string }) => t.name)).toEqual(['create_issue'])
    expect(out[2].result.content[0].text).toBe('Created issue #42: T')
  })
})

describe('compare.ts (check-live.sh)', () => {
  const run = (root: string) => Bun.spawnSync([process.execPath, join(CAPTURE, 'compare.ts'), root, 'startup', 'modes'], { cwd: ROOT })

  test('a recording with the fixtures’ own screens agrees; a changed screen is named with what differs', () => {
    const root = mkdtempSync(join(tmpdir(), 'gothalo-live-'))
    for (const d of ['cc332-startup', 'cc332-modes']) cpSync(join(ROOT, 'fixtures/screens', d), join(root, d), { recursive: true })
    const same = run(root)
    expect(same.stdout.toString()).toContain('17/17 live screens agree')
    expect(same.exitCode).toBe(0)

    // the next release renames the mode: the card no longer says auto
    // (compare.ts reads the .ansi capture, as the bridge reads Claude Code with colours)
    for (const ext of ['.txt', '.ansi']) {
      const f = join(root, `cc332-modes/00-idle-auto${ext}`)
      writeFileSync(f, readFileSync(f, 'utf8').replace('auto mode on', 'robot mode on'))
    }
    const changed = run(root)
    expect(changed.exitCode).toBe(1)
    expect(changed.stdout.toString()).toContain('DIFFERS cc332-modes/00-idle-auto: mode robot mode ≠ auto')
    expect(changed.stdout.toString()).toContain('16/17 live screens agree')
  })
})
