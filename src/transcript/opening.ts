// Which session a transcript socket opens on (docs/bridge.md "Starting agents,
// second round"). A pane that shows an agent always opens: on the session its
// kind's source finds, else on an empty one (`hello` with `total: 0`, session id
// "") that the socket leaves for the agent's session once it is written (the
// rotation check; session_changed, then its entries). Only herdr, asked again
// rather than the watcher's copy, can say the pane has no agent (404).
//
// A pane the bridge started an agent in tells more than herdr does before the
// agent writes anything: a resumed session is the one it was told to resume; a
// fresh one has none yet, so no older session of the directory is shown for it
// (the newest-matching fallback would find one) and only a session herdr reports
// is followed.
import type { AgentInfo } from '../herdr/types'
import type { StartedPane } from '../projects/started'
import { isSamePane } from '../projects/started'
import { NO_TRANSCRIPT, NOT_SUPPORTED, type Resolved, type TranscriptSource, type Unresolved } from './source'
import type { SourceRegistry } from './sources'
import type { Timeline } from './timeline'

/** The session id of a socket that waits for the agent to write its first one. */
export const AWAITING_SESSION = ''

/** A timeline with nothing in it, ever: the socket leaves it by rotating. */
function emptyTimeline(): Timeline {
  return {
    total: () => 0,
    read: async () => [],
    onGrow: () => () => {},
    release: () => {},
  }
}

export interface OpeningDeps {
  sources: SourceRegistry
  /** herdr asked now (not a cached copy): the pane's agent, or undefined when it shows none */
  freshAgent: (pane: string) => Promise<AgentInfo | undefined>
  /** the pane the bridge made for a start, if it made this one */
  started: (pane: string) => StartedPane | undefined
}

export type Opened = {
  ok: true
  agent: AgentInfo
  source: TranscriptSource
  resolved: Resolved
  /** a fresh start with no session reported yet: follow only a session herdr reports */
  reportedOnly: boolean
}

/** The agent as the bridge knows it: a pane it started on a resume names that session until herdr reports one. */
function withStart(agent: AgentInfo, made: StartedPane | undefined): { agent: AgentInfo; fresh: boolean } {
  if (!made || agent.agent_session || made.kind !== agent.agent || !isSamePane(made, agent)) return { agent, fresh: false }
  if (made.session === undefined) return { agent, fresh: true }
  return { agent: { ...agent, agent_session: { value: made.session, kind: made.kind === 'pi' ? 'path' : 'id' } }, fresh: false }
}

const noTranscript = (r: Resolved | Unresolved) => !r.ok && r.status === 404 && r.body === NO_TRANSCRIPT.body

export async function openTranscript(d: OpeningDeps, pane: string, cached: AgentInfo, subagent?: string): Promise<Opened | Unresolved> {
  const attempt = async (agent: AgentInfo): Promise<{ agent: AgentInfo; fresh: boolean; r: Resolved | Unresolved; source?: TranscriptSource }> => {
    const made = d.started(agent.pane_id ?? pane)
    const known = withStart(agent, made)
    const source = d.sources.forKind(known.agent.agent)
    if (!source) return { ...known, r: NOT_SUPPORTED }
    // a fresh start with nothing reported: its directory's older sessions are not its own
    if (known.fresh && subagent === undefined) return { ...known, r: NO_TRANSCRIPT, source }
    return { ...known, r: await source.resolve(known.agent, { subagent }), source }
  }
  let a = await attempt(cached)
  if (noTranscript(a.r)) {
    // the watcher's copy may predate the agent's session report: ask herdr again
    const fresh = await d.freshAgent(pane)
    if (!fresh) return { ok: false, status: 404, body: 'no such agent' }
    a = await attempt(fresh)
  }
  if (a.r.ok) return { ok: true, agent: a.agent, source: a.source!, resolved: a.r, reportedOnly: false }
  // the agent has not written its session yet: open empty, and move to it once it is there
  if (noTranscript(a.r) && subagent === undefined && a.source)
    return {
      ok: true,
      agent: a.agent,
      source: a.source,
      resolved: { ok: true, sessionId: AWAITING_SESSION, timeline: emptyTimeline() },
      reportedOnly: a.fresh,
    }
  return a.r
}
