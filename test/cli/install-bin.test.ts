// npm run install-bin: copies the built binary onto the PATH directory and says
// when that directory is not on PATH.
import { afterEach, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

const SCRIPT = resolve(import.meta.dir, '../../scripts/install-bin.sh')
const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function run(env: Record<string, string>) {
  const r = Bun.spawnSync(['bash', SCRIPT], { env: { ...process.env, ...env }, stdout: 'pipe', stderr: 'pipe' })
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() }
}

test('copies the binary, executable, and notes a bin dir that is not on PATH', () => {
  const d = mkdtempSync(join(tmpdir(), 'gothalo-inst-'))
  dirs.push(d)
  const bin = join(d, 'built')
  writeFileSync(bin, '#!/bin/sh\necho "gothalo 9.9.9"\n', { mode: 0o755 })
  const target = join(d, 'bin')
  const r = run({ GOTHALO_BINARY: bin, GOTHALO_BIN_DIR: target, PATH: '/usr/bin:/bin' })
  expect(r.code).toBe(0)
  expect(r.out).toContain(`installed ${target}/gothalo (gothalo 9.9.9)`)
  expect(r.out).toContain(`note: ${target} is not on your PATH`)
  expect(statSync(join(target, 'gothalo')).mode & 0o777).toBe(0o755)
  const again = run({ GOTHALO_BINARY: bin, GOTHALO_BIN_DIR: target, PATH: `${target}:/usr/bin:/bin` })
  expect(again.code).toBe(0)
  expect(again.out).not.toContain('not on your PATH')
})

test('without a build it says what to run', () => {
  const r = run({ GOTHALO_BINARY: '/nonexistent/gothalo', GOTHALO_BIN_DIR: '/tmp/unused' })
  expect(r.code).toBe(1)
  expect(r.err).toBe('install-bin: /nonexistent/gothalo is missing: run npm run build first\n')
})
