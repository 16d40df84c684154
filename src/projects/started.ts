// The panes the bridge made for POST /agent-start, kept in its database
// (docs/bridge.md "Starting agents, second round"): /agent-stop closes such a
// pane whatever runs in it (a shell left by a timed-out start included), and a
// transcript socket on it knows which session the agent is to write (the one it
// resumes) or that it is a fresh one (no older session of the directory is shown
// for it). A pane is known by its id and, when herdr gave one, its terminal id:
// a pane id herdr hands out again later is not the pane the bridge made.
import { openSharedDb } from '../server/sqlite'
import type { AgentKind } from './listing'

export interface StartedPane {
  pane_id: string
  terminal_id?: string
  kind: AgentKind
  name: string
  /** what the agent was told to resume, as herdr reports a session of that kind (pi: the file's path); absent for a fresh start */
  session?: string
  /** unix ms */
  started_at: number
}

export interface StartedPanes {
  add(p: StartedPane): void
  get(pane: string): StartedPane | undefined
  remove(pane: string): void
  close(): void
}

/** The newest rows kept; a bridge that starts this many agents without closing them forgets the oldest. */
const KEEP_ROWS = 1000

const SCHEMA = `
CREATE TABLE IF NOT EXISTS started_panes (
  pane_id TEXT PRIMARY KEY,
  terminal_id TEXT,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  session TEXT,
  started_at INTEGER NOT NULL
);
`

type Row = { pane_id: string; terminal_id: string | null; kind: AgentKind; name: string; session: string | null; started_at: number }

export function createStartedPanes(dbPath: string): StartedPanes {
  const db = openSharedDb(dbPath)
  db.exec(SCHEMA)
  const q = {
    put: db.query('INSERT OR REPLACE INTO started_panes (pane_id, terminal_id, kind, name, session, started_at) VALUES (?, ?, ?, ?, ?, ?)'),
    get: db.query<Row, [string]>('SELECT * FROM started_panes WHERE pane_id = ?'),
    drop: db.query('DELETE FROM started_panes WHERE pane_id = ?'),
    trim: db.query(`DELETE FROM started_panes WHERE pane_id NOT IN (SELECT pane_id FROM started_panes ORDER BY started_at DESC LIMIT ${KEEP_ROWS})`),
  }
  return {
    add(p) {
      q.put.run(p.pane_id, p.terminal_id ?? null, p.kind, p.name, p.session ?? null, p.started_at)
      q.trim.run()
    },
    get(pane) {
      const r = q.get.get(pane)
      if (!r) return undefined
      return {
        pane_id: r.pane_id,
        kind: r.kind,
        name: r.name,
        started_at: r.started_at,
        ...(r.terminal_id === null ? {} : { terminal_id: r.terminal_id }),
        ...(r.session === null ? {} : { session: r.session }),
      }
    },
    remove(pane) {
      q.drop.run(pane)
    },
    close() {
      db.close()
    },
  }
}

/** Whether a pane herdr reports now is the one recorded (same id, and the same terminal when both are known). */
export function isSamePane(rec: StartedPane, pane: { pane_id: string; terminal_id?: string }): boolean {
  return rec.pane_id === pane.pane_id && (rec.terminal_id === undefined || pane.terminal_id === undefined || rec.terminal_id === pane.terminal_id)
}
