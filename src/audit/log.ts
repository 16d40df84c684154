// The audit log (docs/bridge.md "Devices with scopes, and an audit log"): one row
// per write taken from a phone or the admin token, in the bridge's SQLite file
// beside the devices. A row is written before the answer is sent. Typed text is
// never stored: only its length and SHA-256. Rows older than 90 days, and the
// oldest past 100,000, are pruned in small batches off the request path.
// Requests without a valid token are not rows of their own: they are counted,
// one row per address per minute (`count`), and those rows have their own cap,
// so a flood of them never pushes a genuine row out.
import { openSharedDb } from '../server/sqlite'
import { boundDetail } from './actions'

export const AUDIT_KEEP_MS = 90 * 24 * 3600_000
export const AUDIT_MAX_ROWS = 100_000
/** the counted rows of requests without a valid token kept at most (part of AUDIT_MAX_ROWS, pruned first) */
export const AUDIT_MAX_COUNTED_ROWS = 10_000
/** the action of a counted row */
export const UNAUTHENTICATED = 'unauthenticated'
/** counted requests fall in windows this long: at most one row per address per window */
export const COUNT_WINDOW_MS = 60_000
/** a counted row's new count waits at most this long to be written */
const COUNT_FLUSH_MS = 1000
/** distinct addresses with their own row in one window; the rest share the row of address `other` */
export const COUNT_MAX_ADDRESSES = 100
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

/** A request without a valid token, as counted. */
export interface Unauthenticated {
  /** the client's address */
  address: string
  /** the write's action */
  action: string
  /** what it was answered */
  status: number
}

export interface AuditLog {
  /** `detail` is bounded on the way in (boundDetail: at most 2 KiB) */
  record(row: NewAuditRow): void
  /** one more request without a valid token: its address's row of this minute counts it */
  count(u: Unauthenticated): void
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

/** The detail of a counted row: its address, how many requests, the last one's time, and how many per action and status. */
interface CountedDetail {
  address: string
  count: number
  last_ts: number
  requests: Record<string, number>
}

export function createAuditLog(
  dbPath: string,
  clock: () => number = Date.now,
  limits: { keepMs?: number; maxRows?: number; maxCountedRows?: number } = {},
): AuditLog {
  const keepMs = limits.keepMs ?? AUDIT_KEEP_MS
  const maxRows = limits.maxRows ?? AUDIT_MAX_ROWS
  const maxCounted = limits.maxCountedRows ?? AUDIT_MAX_COUNTED_ROWS
  const db = openSharedDb(dbPath)
  db.exec(SCHEMA)
  const q = {
    insert: db.query('INSERT INTO audit (ts, device_id, action, pane, detail, status) VALUES (?, ?, ?, ?, ?, ?)'),
    since: db.query<Row, [number, number]>('SELECT * FROM audit WHERE ts >= ? ORDER BY id DESC LIMIT ?'),
    dropOld: db.query(`DELETE FROM audit WHERE id IN (SELECT id FROM audit WHERE ts < ? ORDER BY id LIMIT ${PRUNE_BATCH})`),
    count: db.query<{ n: number }, []>('SELECT count(*) AS n FROM audit'),
    dropOldest: db.query<unknown, [number]>('DELETE FROM audit WHERE id IN (SELECT id FROM audit ORDER BY id LIMIT ?)'),
    countCounted: db.query<{ n: number }, []>(`SELECT count(*) AS n FROM audit WHERE action = '${UNAUTHENTICATED}'`),
    dropOldestCounted: db.query<unknown, [number]>(
      `DELETE FROM audit WHERE id IN (SELECT id FROM audit WHERE action = '${UNAUTHENTICATED}' ORDER BY id LIMIT ?)`,
    ),
    recount: db.query<unknown, [string, number]>('UPDATE audit SET detail = ? WHERE id = ?'),
  }
  // this window's counted rows, by address (only this process writes them)
  type Counted = { id: number; detail: CountedDetail }
  let window = { start: -1, rows: new Map<string, Counted>() }
  // A row's new count is written at most once per COUNT_FLUSH_MS: a flood is not a disk write (and a sync) per request.
  const unwritten = new Set<Counted>()
  let flushTimer: ReturnType<typeof setTimeout> | undefined
  const flush = () => {
    clearTimeout(flushTimer)
    flushTimer = undefined
    for (const row of unwritten) q.recount.run(JSON.stringify(row.detail), row.id)
    unwritten.clear()
  }
  let closed = false
  const turn = () => new Promise<void>((r) => setImmediate(r))
  return {
    record(row) {
      q.insert.run(row.ts ?? clock(), row.device_id, row.action, row.pane ?? null, JSON.stringify(boundDetail(row.detail ?? {})), row.status)
    },
    count(u) {
      const now = clock()
      const start = now - (now % COUNT_WINDOW_MS)
      if (start !== window.start) window = { start, rows: new Map() }
      const from = u.address.slice(0, 64)
      const address = window.rows.has(from) || window.rows.size < COUNT_MAX_ADDRESSES ? from : 'other'
      const key = `${u.action} ${u.status}`
      const row = window.rows.get(address)
      if (row) {
        const d = row.detail
        d.count++
        d.last_ts = now
        // a fixed vocabulary (the write actions × their statuses): the map stays small
        d.requests[key] = (d.requests[key] ?? 0) + 1
        unwritten.add(row)
        if (flushTimer === undefined) {
          flushTimer = setTimeout(() => {
            try {
              flush()
            } catch {
              // a busy or closed database: the next count or read writes it
            }
          }, COUNT_FLUSH_MS)
          ;(flushTimer as { unref?: () => void }).unref?.()
        }
        return
      }
      const detail: CountedDetail = { address, count: 1, last_ts: now, requests: { [key]: 1 } }
      const id = Number(q.insert.run(now, '-', UNAUTHENTICATED, null, JSON.stringify(detail), 401).lastInsertRowid)
      window.rows.set(address, { id, detail })
    },
    list(o = {}) {
      flush()
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
      // the counted rows first, to their own cap: however many there were, genuine rows keep their room
      for (;;) {
        if (closed) return removed
        const over = (q.countCounted.get()?.n ?? 0) - maxCounted
        if (over <= 0) break
        removed += q.dropOldestCounted.run(Math.min(over, PRUNE_BATCH)).changes
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
      try {
        if (!closed) flush()
      } catch {
        // the counts of the last second are lost, the rows themselves are written
      }
      closed = true
      db.close()
    },
  }
}
