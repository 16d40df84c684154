// A second bridge on a port already in use (issue 10, item 14): Elysia's Bun
// adapter turns on reusePort, which let two bridges share a port and split the
// requests. The second must exit non-zero with one line naming the port.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { ROOT, startBridge, tempDir, type Bridge } from '../support/harness'

let b: Bridge
beforeAll(async () => {
  b = await startBridge()
})
afterAll(() => b.stop())

test('a second bridge on the same port exits 1 with one line naming the port', async () => {
  const port = new URL(b.base).port
  const proc = Bun.spawn([process.execPath, join(ROOT, 'src/main.ts'), '--host', '127.0.0.1', '--port', port, '--data-dir', tempDir(), '--admin-token', 'x'], {
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...process.env, HOME: tempDir() },
  })
  const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000)
  const code = await proc.exited
  clearTimeout(timer)
  const stderr = await new Response(proc.stderr).text()
  expect(code).toBe(1)
  const lines = stderr.trim().split('\n')
  expect(lines).toHaveLength(1)
  expect(lines[0]).toContain(`port ${port}`)
  expect(lines[0]).toContain('in use')
}, 15_000)
