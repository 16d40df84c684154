// The bridge's SQLite file (gothalo.db): the auth, audit, push and attachment
// stores each keep their tables in it, and the command line (pair, devices,
// audit) opens it from another process while the bridge runs.
import { Database } from 'bun:sqlite'

/**
 * Opens (creating) the file for one store: locks held by another connection
 * are waited for up to 5 s (set first, so the switch to write-ahead logging
 * waits too), and the write-ahead log lets readers go on while one writes.
 */
export function openSharedDb(path: string): Database {
  const db = new Database(path, { create: true, strict: true })
  db.exec('PRAGMA busy_timeout = 5000')
  db.exec('PRAGMA journal_mode = WAL')
  return db
}

/** SQLite's names for a database with no file (`:memory:`, and `''` for a private temporary one): nothing to create or chmod. */
export const isMemoryDb = (path: string): boolean => path === ':memory:' || path === ''
