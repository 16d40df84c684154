// The audit log (docs/bridge.md "Devices with scopes, and an audit log"): one row
// per write taken from a phone or the admin token, in the bridge's SQLite file
// beside the devices. A row is written before the answer is sent. Typed text is
// never stored: only its length and SHA-256. Rows older than 90 days, and the
// oldest past 100,000, are pruned in small batches off the request path.
import { openSharedDb } from '../server/sqlite'

export const AUDIT_KEEP_MS = 90 * 24 * 3600_000
export const AUDIT_MAX_ROWS = 100_000
/** rows deleted per step of a prune, so no step holds the database for long */
const PRUNE_BATCH = 2000

export interface AuditRow {
  id: number
  /** unix ms */
  ts: number
  /** the device, "admin" for the admin token, "cli" for the command line, "-" for a failed pairing */
  device_id: string
  action: string
  pane: string | null
  /** what was done, never typed text (its length and SHA-256 instead) */
  detail: Record<string, unknown>
  /** the HTTP status answered (101 for a socket session that opened) */
  status: number
}

export type NewAuditRow = Omit<AuditRow, 'id' | 'ts'> & { ts?: number }

export interface AuditLog {
  record(row: NewAuditRow): void
  /** newest first; `since` (unix ms) inclusive */
  list(o?: { since?: number; limit?: number }): AuditRow[]
  /** one pass of retention; resolves when done (each batch in its own turn of the event loop) */
  prune(): Promise<number>
  close(): void
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS audit (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  ts INTEGER NOT NULL,
  device_id TEXT NOT NULL,
  action TEXT NOT NULL,
  pane TEXT,
  detail TEXT NOT NULL,
  status INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_ts ON audit (ts);
`

type Row = Omit<AuditRow, 'detail'> & { detail: string }

export function createAuditLog(dbPath: string, clock: () => number = Date.now, limits: { keepMs?: number; maxRows?: number } = {}): AuditLog {
  const keepMs = limits.keepMs ?? AUDIT_KEEP_MS
  const maxRows = limits.maxRows ?? AUDIT_MAX_ROWS
  const db = openSharedDb(dbPath)
  db.exec(SCHEMA)
  const q = {
    insert: db.query('INSERT INTO audit (ts, device_id, action, pane, detail, status) VALUES (?, ?, ?, ?, ?, ?)'),
    since: db.query<Row, [number, number]>('SELECT * FROM audit WHERE ts >= ? ORDER BY id DESC LIMIT ?'),
    dropOld: db.query(`DELETE FROM audit WHERE id IN (SELECT id FROM audit WHERE ts < ? ORDER BY id LIMIT ${PRUNE_BATCH})`),
    count: db.query<{ n: number }, []>('SELECT count(*) AS n FROM audit'),
    dropOldest: db.query<unknown, [number]>('DELETE FROM audit WHERE id IN (SELECT id FROM audit ORDER BY id LIMIT ?)'),
  }
  let closed = false
  const turn = () => new Promise<void>((r) => setImmediate(r))
  return {
    record(row) {
      q.insert.run(row.ts ?? clock(), row.device_id, row.action, row.pane ?? null, JSON.stringify(row.detail ?? {}), row.status)
    },
    list(o = {}) {
      const limit = Math.max(1, Math.min(o.limit ?? 100, 1000))
      return q.since.all(o.since ?? 0, limit).map((r) => ({ ...r, detail: JSON.parse(r.detail) }))
    },
    async prune() {
      let removed = 0
      for (;;) {
        if (closed) return removed
        const n = q.dropOld.run(clock() - keepMs).changes
        removed += n
        if (n < PRUNE_BATCH) break
        await turn()
      }
      for (;;) {
        if (closed) return removed
        const over = (q.count.get()?.n ?? 0) - maxRows
        if (over <= 0) break
        removed += q.dropOldest.run(Math.min(over, PRUNE_BATCH)).changes
        await turn()
      }
      return removed
    },
    close() {
      closed = true
      db.close()
    },
  }
}
