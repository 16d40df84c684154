// The rotation policy of a transcript socket (docs/agent-pane-api.md,
// "session_changed"): on each rotation check of its pane, the session the pane
// is on now is compared with the stream's, and a new session the kind can open
// replaces it. A session not openable yet is retried on the next check.
import type { AgentInfo } from '../herdr/types'
import type { PaneWatches } from './pane-watch'
import type { TranscriptSource } from './source'
import type { SourceRegistry } from './sources'
import type { TranscriptStream } from './stream'

export interface FollowOptions {
  pane: string
  stream: Pick<TranscriptStream, 'sessionId' | 'isClosed' | 'rotate'>
  panes: PaneWatches
  sources: SourceRegistry
  /** while true, only a session herdr reports is followed (a fresh start's empty opening: its directory's older ones are not its own) */
  reportedOnly?: () => boolean
  /** told just before the stream moves to the new session */
  onRotate: (agent: AgentInfo, from: string, to: string) => void
  log: (m: string) => void
}

/** The session the pane is on now, as the kind's source sees it. */
async function sessionNow(source: TranscriptSource, agent: AgentInfo): Promise<string | undefined> {
  if (source.currentSession) return source.currentSession(agent)
  return agent.agent_session?.value
}

/** Follows the pane onto each new session; returns the unsubscribe. One check at a time. */
export function followSession(o: FollowOptions): () => void {
  const { stream } = o
  let checking = false
  return o.panes.subscribe(o.pane, async (agent) => {
    if (checking || stream.isClosed) return
    checking = true
    try {
      const source = o.sources.forKind(agent.agent)
      if (!source) return
      if (o.reportedOnly?.() && !agent.agent_session) return
      const next = await sessionNow(source, agent)
      if (next === undefined || next === stream.sessionId) return
      const resolved = await source.resolve(agent, {})
      if (!resolved.ok) return // not openable yet: keep the old session, retry next tick
      if (resolved.sessionId === stream.sessionId || stream.isClosed) return resolved.timeline.release()
      o.onRotate(agent, stream.sessionId, resolved.sessionId)
      await stream.rotate(resolved)
    } catch (e) {
      o.log(`transcript ${o.pane}: session check failed: ${(e as Error).message}`)
    } finally {
      checking = false
    }
  })
}
