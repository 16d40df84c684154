// WS /agent-transcript?session=KIND:ID (docs/bridge.md, "Every past
// conversation"): the session a GET /sessions row names, opened through its
// kind's own transcript source as if a pane showed it, so both sockets give the
// same entries. The id is client input: it is only compared, as a whole string,
// with the ids the finder lists now (never joined into a path), so `../../x` or
// another kind's id is simply not found.
import type { AgentInfo } from '../herdr/types'
import { AGENT_KINDS, type AgentKind, type FoundSession, type SessionFinder } from '../projects/listing'
import { insideRoots, type Roots } from '../projects/roots'
import type { Resolved, TranscriptSource } from '../transcript/source'
import type { SourceRegistry } from '../transcript/sources'
import { livePanes } from './sessions'
import { isCompressedSessionError } from '../transcript/jsonl/zst'

export const WANT_SESSION = 'want ?session=<kind>:<session_id>'
export const NO_SUCH_SESSION = 'no such session'

export type OpenedSession = {
  ok: true
  kind: AgentKind
  id: string
  /** the live pane showing it, or '' */
  pane: string
  agent: AgentInfo
  source: TranscriptSource
  resolved: Resolved
}
export type NotOpened = { ok: false; status: 400 | 404 | 500; body: string }

/** `KIND:ID` → its parts; undefined when it is not of that form. */
export function parseSessionRef(text: string): { kind: AgentKind; id: string } | undefined {
  const i = text.indexOf(':')
  if (i < 0) return undefined
  const kind = text.slice(0, i)
  const id = text.slice(i + 1)
  if (!(AGENT_KINDS as readonly string[]).includes(kind) || id === '' || id.length > 200) return undefined
  return { kind: kind as AgentKind, id }
}

/** The agent record a pane showing `s` would have: its kind, its cwd, herdr's reference to it. */
export function agentShowing(s: FoundSession, pane: string): AgentInfo {
  const ref = s.kind === 'pi' && s.file ? { kind: 'path' as const, value: s.file } : { kind: 'id' as const, value: s.id }
  return {
    pane_id: pane,
    agent_status: 'unknown',
    agent: s.kind,
    cwd: s.cwd,
    agent_session: { agent: s.kind, source: 'gothalo:history', ...ref },
    state_change_seq: 0,
  }
}

export interface SessionOpenDeps {
  finder: SessionFinder
  roots: Roots
  sources: SourceRegistry
  /** herdr's agents now (the watcher's copy), for the live pane */
  agents: () => Promise<AgentInfo[]>
  log: (m: string) => void
}

/** Finds the session by its exact id among those listed, and resolves its transcript. */
export async function openSession(deps: SessionOpenDeps, text: string): Promise<OpenedSession | NotOpened> {
  const ref = parseSessionRef(text)
  if (!ref) return { ok: false, status: 400, body: WANT_SESSION }
  const found = (await deps.finder.find()).find((s) => s.kind === ref.kind && s.id === ref.id && insideRoots(s.cwd, deps.roots))
  if (!found) return { ok: false, status: 404, body: NO_SUCH_SESSION }
  const source = deps.sources.forKind(ref.kind)
  if (!source) return { ok: false, status: 404, body: NO_SUCH_SESSION }
  const pane = livePanes(await deps.agents()).get(`${ref.kind}\u0000${ref.id}`) ?? ''
  const agent = agentShowing(found, pane)
  let resolved
  try {
    resolved = await source.resolve(agent, {})
  } catch (e) {
    deps.log(`transcript session ${text}: resolve failed: ${(e as Error).stack ?? e}`)
    // a compressed session that cannot be unpacked says why (cut short, corrupt, too big)
    if (isCompressedSessionError(e)) return { ok: false, status: 500, body: `read transcript failed: ${e.message}` }
    return { ok: false, status: 500, body: 'read transcript failed' }
  }
  if (!resolved.ok) return resolved.status === 404 ? { ok: false, status: 404, body: NO_SUCH_SESSION } : resolved
  // A source falls back to the newest session of the cwd when the id is gone: that is another session.
  if (resolved.sessionId !== ref.id) {
    resolved.timeline.release()
    return { ok: false, status: 404, body: NO_SUCH_SESSION }
  }
  return { ok: true, kind: ref.kind, id: ref.id, pane, agent, source, resolved }
}
