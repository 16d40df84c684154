// The Claude Code TranscriptSource: finds the pane's session file
// (source-resolve.ts), opens the shared JSONL timeline on it (or on one of its
// subagents' files), and hands out the session's live roster
// (roster-watch.ts), released together with the timeline.
//
// ?subagent= is client input: it is only ever compared (exact string equality)
// with the agent ids discovered by listing <session>/subagents/, and the path
// opened is built from the listed file name. Traversal cannot be expressed.
// Internal agents (compaction, prompt suggestions, /btw) are left out of the
// roster but are streamable if asked for by their exact id: they are files of
// the same session, and hiding them would need a second rule for no safety gain.
import type { AgentInfo } from '../../../herdr/types'
import { isMissing } from '../../jsonl/files'
import type { IndexStore } from '../../jsonl/index-store'
import { JsonlFiles, type JsonlTimeline } from '../../jsonl/timeline'
import type { Subagent } from '../../roster'
import { NO_TRANSCRIPT, type AgentHomes, type Resolved, type TranscriptSource, type Unresolved } from '../../source'
import { countClaudeLine, normalizeClaudeLine } from './normalize'
import { claudeFileFold, type ClaudeFileFacts } from './file-fold'
import { CLAUDE_WARM_UP_LINES } from './warm-up'
import { jsonlWarmUp } from '../../jsonl/warm-up'
import { RosterRegistry, discoverSubagentFiles, subagentsDirOf, type RosterCounters } from './roster-watch'
import { locateClaudeSession, type LocatedSession } from './source-resolve'
import { join } from 'node:path'

export const READ_FAILED: Unresolved = { ok: false, status: 500, body: 'read transcript failed' }

export interface ClaudeSourceOptions {
  /** tail poll of the timelines it opens (contract: 250 ms) */
  pollMs?: number
  /** where failures go (default console.warn) */
  log?: (message: string) => void
  /** idle roster watchers kept for reuse (default 32) */
  maxIdleRosters?: number
  /** reuse a roster refreshed less than this long ago (sockets on one session share the work; default 0) */
  rosterFreshMs?: number
  /** the on-disk index cache (data dir): a restart serves an indexed session without reading it again */
  indexStore?: IndexStore
  /** the JSONL files registry (default: one of its own) */
  jsonl?: JsonlFiles
  /** where the subagent rosters count (default: counters of the source's own) */
  rosterCounters?: RosterCounters
}

export interface ClaudeSource extends TranscriptSource {
  resolve(agent: AgentInfo, opts: { subagent?: string }): Promise<Resolved | Unresolved>
  currentSession(agent: AgentInfo): Promise<string | undefined>
  /** {running, total} for the /snapshot row; undefined when nothing was delegated or no transcript resolves. */
  subagentCounts(agent: AgentInfo): Promise<{ running: number; total: number } | undefined>
  /** For tests: roster watchers held / idle. */
  rosterStats(): { held: number; idle: number }
}

const errText = (err: unknown) => (err instanceof Error ? err.message : String(err))

export function createClaudeSource(homes: AgentHomes, opts: ClaudeSourceOptions = {}): ClaudeSource {
  const log = opts.log ?? ((m: string) => console.warn(m))
  const jsonl = opts.jsonl ?? new JsonlFiles()
  // A session file open in a timeline was folded by its index pass: the roster
  // takes those facts instead of reading the file a second time.
  const rosters = new RosterRegistry({
    log,
    maxIdle: opts.maxIdleRosters,
    limits: { freshMs: opts.rosterFreshMs ?? 0 },
    indexed: async (sessionPath) => {
      const view = await jsonl.heldFacts(sessionPath, normalizeClaudeLine)
      return view && { ...view, facts: (view.facts as ClaudeFileFacts).parent }
    },
    within: homes.claudeDir,
    counters: opts.rosterCounters,
  })

  /** locate, turning a read failure into undefined + a log line (callers that must not fail). */
  async function locateQuietly(agent: AgentInfo): Promise<LocatedSession | undefined> {
    try {
      return await locateClaudeSession(homes.claudeDir, agent)
    } catch (err) {
      log(`claude transcript for ${agent.pane_id}: ${errText(err)}`)
      return undefined
    }
  }

  async function resolve(agent: AgentInfo, { subagent }: { subagent?: string }): Promise<Resolved | Unresolved> {
    let session: LocatedSession | undefined
    try {
      session = await locateClaudeSession(homes.claudeDir, agent)
    } catch (err) {
      log(`claude transcript for ${agent.pane_id}: ${errText(err)}`)
      return READ_FAILED
    }
    if (!session) return NO_TRANSCRIPT

    let target = session.path
    if (subagent !== undefined) {
      let found: Map<string, string>
      try {
        found = await discoverSubagentFiles(subagentsDirOf(session.path))
      } catch (err) {
        log(`claude subagents of ${session.path}: ${errText(err)}`)
        return NO_TRANSCRIPT // nothing discovered, so nothing matches
      }
      const name = found.get(subagent) // exact equality against listed ids only
      if (name === undefined) return NO_TRANSCRIPT
      target = join(subagentsDirOf(session.path), name)
    }

    let timeline: JsonlTimeline
    try {
      timeline = await jsonl.acquire(target, normalizeClaudeLine, {
        count: countClaudeLine,
        fold: claudeFileFold,
        store: opts.indexStore,
        pollMs: opts.pollMs,
        log,
        within: homes.claudeDir,
      })
    } catch (err) {
      if (isMissing(err)) return NO_TRANSCRIPT // gone since we looked
      log(`claude transcript ${target}: ${errText(err)}`)
      return READ_FAILED
    }

    const { watcher, release: releaseRoster } = rosters.acquire(session.path)
    const release = () => {
      timeline.release()
      releaseRoster()
    }
    const roster = (): Promise<Subagent[] | undefined> => watcher.roster()
    const usage = async () => ((await jsonl.heldFacts(target, normalizeClaudeLine))?.facts as ClaudeFileFacts | undefined)?.usage
    return { ok: true, sessionId: session.sessionId, timeline: { ...timeline, release }, roster, usage }
  }

  return {
    kinds: ['claude'] as const,
    resolve,
    warmUp: jsonlWarmUp(CLAUDE_WARM_UP_LINES, { normalize: normalizeClaudeLine, count: countClaudeLine, fold: claudeFileFold }),
    async currentSession(agent) {
      return (await locateQuietly(agent))?.sessionId
    },
    async subagentCounts(agent) {
      const session = await locateQuietly(agent)
      if (!session) return undefined
      const { watcher, release } = rosters.acquire(session.path)
      try {
        return await watcher.counts()
      } finally {
        release()
      }
    },
    rosterStats: () => rosters.stats(),
  }
}
