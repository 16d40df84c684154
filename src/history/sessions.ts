// GET /sessions: every past session of the four agents, newest first, with
// filters and a cursor (docs/bridge.md, "Every past conversation"). Pure: the
// sessions the finder found and herdr's agents in, one page out.
import type { AgentInfo } from '../herdr/types'
import { liveSessionOf, type AgentKind, type FoundSession } from '../projects/listing'
import { insideRoots, type Roots } from '../projects/roots'

export const SESSIONS_LIMIT_DEFAULT = 50
export const SESSIONS_LIMIT_MAX = 200

export interface PastSession {
  agent_kind: AgentKind
  session_id: string
  project: string
  title: string
  started_ts: string
  last_activity_ts: string
  entries?: number
  pane_id?: string
}

export interface SessionsQuery {
  kind?: AgentKind
  project?: string
  /** the cursor: only sessions after it in the order (newest first) */
  before?: SessionCursor
  limit: number
}

/** A place in the order: last activity (ms), then kind and id (ties broken the same way every time). */
export interface SessionCursor {
  ms: number
  key: string
}

const keyOf = (s: FoundSession) => `${s.kind}:${s.id}`

/**
 * `before` as the client sends it: the `next` of the previous page
 * (`<ms>.<kind>:<id>`), or an ISO 8601 time (every session last active before it).
 * undefined when it is neither.
 */
export function parseCursor(text: string): SessionCursor | undefined {
  // the ms as `next` wrote it: a file's mtime has a fraction (ns), kept whole so the next page starts exactly after
  const m = /^(\d{1,16}(?:\.\d{1,12})?)\.((?:claude|pi|codex|opencode):[A-Za-z0-9_.-]{1,200})$/.exec(text)
  if (m) return { ms: Number(m[1]), key: m[2]! }
  if (!/^\d{4}-\d{2}-\d{2}/.test(text)) return undefined
  const ms = Date.parse(text)
  // a time: every session with an earlier last activity, whatever its key ('' sorts first)
  return Number.isFinite(ms) ? { ms, key: '' } : undefined
}

/** `<ms>.<kind>:<id>`; String(ms) is the shortest text that reads back as the same number */
export const cursorText = (c: SessionCursor) => `${c.ms}.${c.key}`

/** newest first; equal times by kind:id, so the cursor is a total order */
function newerFirst(a: FoundSession, b: FoundSession): number {
  return b.mtimeMs - a.mtimeMs || (keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0)
}

/** Strictly after the cursor in newest-first order. */
function after(s: FoundSession, c: SessionCursor): boolean {
  return s.mtimeMs < c.ms || (s.mtimeMs === c.ms && c.key !== '' && keyOf(s) > c.key)
}

/** The live pane of each session herdr shows now: `kind\0id` → pane id. */
export function livePanes(agents: AgentInfo[]): Map<string, string> {
  const live = new Map<string, string>()
  for (const a of agents) {
    const id = liveSessionOf(a)
    if (id && a.agent) live.set(`${a.agent}\u0000${id}`, a.pane_id)
  }
  return live
}

/** One page of past sessions inside the roots. `entries(kind, id)` is what the index knows, if anything. */
export function pastSessions(
  found: FoundSession[],
  agents: AgentInfo[],
  roots: Roots,
  q: SessionsQuery,
  entries: (s: FoundSession) => number | undefined = () => undefined,
): { sessions: PastSession[]; next?: string } {
  const live = livePanes(agents)
  const picked = found
    .filter((s) => (q.kind === undefined || s.kind === q.kind) && (q.project === undefined || s.cwd === q.project) && insideRoots(s.cwd, roots))
    .filter((s) => q.before === undefined || after(s, q.before))
    .sort(newerFirst)
  const page = picked.slice(0, q.limit)
  const sessions = page.map((s) => {
    const row: PastSession = {
      agent_kind: s.kind,
      session_id: s.id,
      project: s.cwd,
      title: s.title,
      started_ts: new Date(Math.min(s.startedMs ?? s.mtimeMs, s.mtimeMs)).toISOString(),
      last_activity_ts: new Date(s.mtimeMs).toISOString(),
    }
    const n = entries(s)
    if (n !== undefined) row.entries = n
    const pane = live.get(`${s.kind}\u0000${s.id}`)
    if (pane) row.pane_id = pane
    return row
  })
  const last = page.at(-1)
  return picked.length > q.limit && last ? { sessions, next: cursorText({ ms: last.mtimeMs, key: keyOf(last) }) } : { sessions }
}
