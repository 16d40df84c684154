import { afterEach, expect, test } from 'bun:test'
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ADMIN_TOKEN_FILE, loadOrCreateAdminToken } from '../../src/auth/admin-token'

const dirs: string[] = []
function tempDir() {
  const d = mkdtempSync(join(tmpdir(), 'gothalo-admin-'))
  dirs.push(d)
  return d
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

const mode = (p: string) => statSync(p).mode & 0o777

test('no token given: generates one, writes it 0600 in a new 0700 data dir', () => {
  const dataDir = join(tempDir(), 'nested', 'gothalo')
  const r = loadOrCreateAdminToken(dataDir)
  expect(r.created).toBe(true)
  expect(r.token).toMatch(/^[A-Za-z0-9_-]{43}$/)
  const file = join(dataDir, ADMIN_TOKEN_FILE)
  expect(readFileSync(file, 'utf8').trim()).toBe(r.token)
  expect(mode(file)).toBe(0o600)
  expect(mode(dataDir)).toBe(0o700)
})

test('second start reads the same token and does not say created', () => {
  const dataDir = tempDir()
  const first = loadOrCreateAdminToken(dataDir)
  const second = loadOrCreateAdminToken(dataDir)
  expect(second).toEqual({ token: first.token, created: false })
})

test('a given token wins and nothing is written', () => {
  const dataDir = tempDir()
  expect(loadOrCreateAdminToken(dataDir, 'from-flag')).toEqual({ token: 'from-flag', created: false })
  expect(() => statSync(join(dataDir, ADMIN_TOKEN_FILE))).toThrow()
})

test('a hand-written token file with a loose mode is used and tightened to 0600', () => {
  const dataDir = tempDir()
  const file = join(dataDir, ADMIN_TOKEN_FILE)
  writeFileSync(file, '  my-own-token \n')
  chmodSync(file, 0o644)
  expect(loadOrCreateAdminToken(dataDir)).toEqual({ token: 'my-own-token', created: false })
  expect(mode(file)).toBe(0o600)
})

test('an empty token file is replaced by a generated token', () => {
  const dataDir = tempDir()
  const file = join(dataDir, ADMIN_TOKEN_FILE)
  writeFileSync(file, '\n')
  const r = loadOrCreateAdminToken(dataDir)
  expect(r.created).toBe(true)
  expect(r.token.length).toBe(43)
  expect(readFileSync(file, 'utf8').trim()).toBe(r.token)
  expect(mode(file)).toBe(0o600)
})
