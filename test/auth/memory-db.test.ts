// A store opened on ':memory:' (the app's default audit log, the auth store in
// tests) keeps no file: a 0-byte file named `:memory:` was once committed at the
// repository root, made by the auth store's create-then-chmod of its path.
import { expect, test } from 'bun:test'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, tempDir } from '../support/harness'

test("opening the stores and the app on ':memory:' creates no file in the working directory", async () => {
  const cwd = tempDir('gothalo-memdb-')
  const script = `
    const { createAuthStore } = await import(${JSON.stringify(join(ROOT, 'src/auth/store.ts'))})
    const { createAuditLog } = await import(${JSON.stringify(join(ROOT, 'src/audit/log.ts'))})
    const { createApp } = await import(${JSON.stringify(join(ROOT, 'src/app.ts'))})
    const { homesIn } = await import(${JSON.stringify(join(ROOT, 'test/support/harness.ts'))})
    const auth = createAuthStore({ dbPath: ':memory:', adminToken: 'a' })
    createAuditLog(':memory:').close()
    const app = createApp({ herdr: {}, auth, homes: homesIn('/nonexistent'), version: 't', log: () => {} })
    await app.stop?.().catch(() => {})
    auth.close()
    process.exit(0)
  `
  const p = Bun.spawn([process.execPath, '-e', script], { cwd, stdout: 'pipe', stderr: 'pipe' })
  const code = await p.exited
  expect({ code, stderr: code === 0 ? '' : await new Response(p.stderr).text() }).toEqual({ code: 0, stderr: '' })
  expect(readdirSync(cwd)).toEqual([])
})
