// The chat view's state, as a pure reducer over WS /agent-transcript frames
// (docs: agent-pane contract). Entries are kept ordered and de-duplicated by seq;
// a session change (session_changed, or a hello naming another session after a
// reconnect) drops everything, because seq restarts at 1 in the new session.
export interface Entry {
  id: string
  seq: number
  parent_id?: string
  ts?: string
  role: 'user' | 'assistant' | 'system' | string
  kind: 'message' | 'thinking' | 'tool_call' | 'tool_result' | 'attachment' | string
  text?: string
  tool?: {
    id: string
    name: string
    title?: string
    subtitle?: string
    command?: string
    file?: string
    diff?: string
    diff_truncated?: boolean
    input_summary?: string
  }
  result?: { for_id: string; ok: boolean; output_summary?: string; diff?: string; truncated?: boolean }
  parsed: boolean
}

export interface Subagent {
  agent_id: string
  tool_use_id?: string
  agent_type?: string
  description?: string
  spawn_depth?: number
  done?: boolean
  last_activity_ts?: number
}

export interface TranscriptState {
  sessionId: string | null
  agentKind: string | null
  entries: Entry[]
  /** the oldest seq held (the load_older cursor); null before the first hello */
  oldest: number | null
  hasOlder: boolean
  backlogDone: boolean
  /** a load_older is in flight for this before_seq */
  pendingOlder: number | null
  subagents: Subagent[]
  /** the highest seq held before a reconnect: older pages fill the gap down to it */
  resumeFrom: number | null
}

/** A gap wider than this after a reconnect is not filled: the old entries are dropped instead. */
export const MAX_GAP_FILL = 1000

export const emptyTranscript = (): TranscriptState => ({
  sessionId: null,
  agentKind: null,
  entries: [],
  oldest: null,
  hasOlder: false,
  backlogDone: false,
  pendingOlder: null,
  subagents: [],
  resumeFrom: null,
})

/** What the reducer asks the socket to do next (e.g. fill a gap after a reconnect). */
export type Request = { type: 'load_older'; before_seq: number; limit: number }

/** Insert entries keeping seq order and one entry per seq (the newer copy wins). */
export function mergeEntries(held: Entry[], add: Entry[]): Entry[] {
  if (add.length === 0) return held
  const last = held[held.length - 1]
  // Fast path: the live tail appends in order.
  if (add.length === 1 && (!last || add[0]!.seq > last.seq)) return [...held, add[0]!]
  const bySeq = new Map<number, Entry>()
  for (const e of held) bySeq.set(e.seq, e)
  for (const e of add) bySeq.set(e.seq, e)
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq)
}

/** Keep what a reconnect can resume from: the entries, their session and the highest seq. */
export function forReconnect(s: TranscriptState): TranscriptState {
  const last = s.entries[s.entries.length - 1]
  return { ...s, backlogDone: false, pendingOlder: null, resumeFrom: last ? last.seq : null }
}

export function reduce(s: TranscriptState, f: any): { state: TranscriptState; request?: Request } {
  if (!f || typeof f !== 'object') return { state: s }
  switch (f.type) {
    case 'session_changed':
      return { state: { ...emptyTranscript(), agentKind: s.agentKind } }
    case 'hello': {
      const sameSession = s.sessionId !== null && f.session_id === s.sessionId
      const base = sameSession ? s : { ...emptyTranscript(), resumeFrom: null }
      const oldestHeld = sameSession && s.entries.length ? s.entries[0]!.seq : null
      const pageOldest = typeof f.oldest_loaded_seq === 'number' && f.oldest_loaded_seq > 0 ? f.oldest_loaded_seq : null
      return {
        state: {
          ...base,
          sessionId: typeof f.session_id === 'string' ? f.session_id : null,
          agentKind: typeof f.agent_kind === 'string' ? f.agent_kind : s.agentKind,
          oldest: oldestHeld !== null && pageOldest !== null ? Math.min(oldestHeld, pageOldest) : (pageOldest ?? oldestHeld),
          hasOlder: oldestHeld !== null ? base.hasOlder : !!f.has_older,
          backlogDone: false,
          pendingOlder: null,
          subagents: Array.isArray(f.subagents) ? f.subagents : [],
          resumeFrom: sameSession ? s.resumeFrom : null,
        },
      }
    }
    case 'entry': {
      const e = f.entry
      if (!e || typeof e.seq !== 'number') return { state: s }
      return { state: { ...s, entries: mergeEntries(s.entries, [e]) } }
    }
    case 'backlog_complete':
      return fillGap({ ...s, backlogDone: true })
    case 'page_complete': {
      const filling = s.resumeFrom !== null
      const oldest = s.entries.length ? s.entries[0]!.seq : 0
      const next = { ...s, pendingOlder: null, oldest: oldest || s.oldest }
      if (filling) return fillGap(next)
      return { state: { ...next, hasOlder: !!f.has_older && oldest > 1 } }
    }
    case 'subagents':
      return { state: { ...s, subagents: Array.isArray(f.subagents) ? f.subagents : [] } }
    default:
      return { state: s }
  }
}

/**
 * After a reconnect the newest page may start above the highest seq held
 * (`resumeFrom`): ask for the missing entries, a page at a time, or drop the
 * old ones when the hole is too wide to be worth paging through.
 */
function fillGap(s: TranscriptState): { state: TranscriptState; request?: Request } {
  const from = s.resumeFrom
  if (from === null) return { state: s }
  let prev = from
  let hole: number | null = null
  for (const e of s.entries) {
    if (e.seq <= from) continue
    if (e.seq !== prev + 1) {
      hole = e.seq
      break
    }
    prev = e.seq
  }
  if (hole === null) return { state: { ...s, resumeFrom: null } }
  if (hole - from - 1 > MAX_GAP_FILL) {
    const kept = s.entries.filter((e) => e.seq >= hole!)
    return { state: { ...s, entries: kept, oldest: hole, hasOlder: hole > 1, resumeFrom: null } }
  }
  return {
    state: { ...s, pendingOlder: hole },
    request: { type: 'load_older', before_seq: hole, limit: Math.min(500, hole - from - 1) },
  }
}

/** Ask for the page above the oldest entry held, unless one is in flight or there is none. */
export function olderRequest(s: TranscriptState, limit = 150): Request | null {
  if (!s.backlogDone || !s.hasOlder || s.pendingOlder !== null || !s.oldest || s.oldest <= 1) return null
  return { type: 'load_older', before_seq: s.oldest, limit }
}

/**
 * Tool results keyed by the call they answer, so a call renders with its outcome. A call
 * with two results (codex: a command interrupted while it ran is "aborted by user", and its
 * process reports later what it printed) shows the later output, but stays failed: what
 * the model and the user were told is that it was aborted.
 */
export function resultsByCall(entries: Entry[]): Map<string, Entry> {
  const m = new Map<string, Entry>()
  for (const e of entries) {
    if (e.kind !== 'tool_result' || !e.result?.for_id) continue
    const before = m.get(e.result.for_id)
    m.set(e.result.for_id, before?.result?.ok === false && e.result.ok ? { ...e, result: { ...e.result, ok: false } } : e)
  }
  return m
}
