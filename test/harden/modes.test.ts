// Files are tightened on start (issue 10, item 13): a gothalo.db made earlier
// at 0666, with its -wal and -shm, becomes 0600, as the admin token does.
import { expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { chmodSync, existsSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createAuthStore } from '../../src/auth/store'
import { loadOrCreateAdminToken } from '../../src/auth/admin-token'
import { tempDir } from '../support/harness'

const mode = (f: string) => statSync(f).mode & 0o777

test('a pre-existing 0666 gothalo.db, -wal and -shm are 0600 once the store opens; the admin token too', () => {
  const dir = tempDir()
  const db = join(dir, 'gothalo.db')
  // Another handle keeps the WAL files in place while the store opens.
  const other = new Database(db, { create: true })
  other.exec('PRAGMA journal_mode = WAL')
  other.exec('CREATE TABLE IF NOT EXISTS t (x)')
  other.exec('INSERT INTO t VALUES (1)')
  const files = [db, `${db}-wal`, `${db}-shm`]
  for (const f of files) {
    expect(existsSync(f)).toBe(true)
    chmodSync(f, 0o666)
  }
  writeFileSync(join(dir, 'admin-token'), 'tok\n')
  chmodSync(join(dir, 'admin-token'), 0o666)
  const store = createAuthStore({ dbPath: db, adminToken: loadOrCreateAdminToken(dir).token })
  try {
    expect(files.map(mode)).toEqual([0o600, 0o600, 0o600])
    expect(mode(join(dir, 'admin-token'))).toBe(0o600)
    // still the same database, readable through the store
    expect(store.identify('tok')).toEqual({ kind: 'admin' })
  } finally {
    store.close()
    other.close()
  }
})
