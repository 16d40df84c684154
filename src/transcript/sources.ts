// The transcript sources by agent kind: one module per kind behind one
// interface. A kind without a source answers 404
// `transcript not supported for this agent kind`.
import type { AgentInfo } from '../herdr/types'
import { NOT_SUPPORTED, type AgentHomes, type TranscriptSource, type Unresolved } from './source'
import { UsageBook } from '../usage/book'
import { UsageTally, type Usage } from '../usage/tally'
import type { IndexStore } from './jsonl/index-store'
import { JsonlFiles } from './jsonl/timeline'
import type { UnpackedSessions } from './jsonl/zst'
import type { OpencodeSessions } from './kinds/opencode/timeline'
import { createClaudeSource } from './kinds/claude/source'
import type { RosterCounters } from './kinds/claude/roster-watch'
import { createPiSource } from './kinds/pi/source'
import { createOpencodeSource } from './kinds/opencode/source'
import { createCodexSource } from './kinds/codex/source'

export interface SourceOptions {
  /** tail poll (contract: 250 ms) */
  pollMs?: number
  /** a subagent roster this fresh is reused rather than re-read (every socket polls it) */
  rosterFreshMs?: number
  log?: (m: string) => void
  /** the on-disk index cache of JSONL transcripts (data dir) */
  indexStore?: IndexStore
  /** the JSONL files the file-backed kinds share (default: a registry of their own) */
  jsonl?: JsonlFiles
  /** where compressed session files (codex's .jsonl.zst) are unpacked to be read (default: a temporary directory) */
  unpacked?: UnpackedSessions
  /** opencode's sessions (default: a registry of its own) */
  opencode?: OpencodeSessions
  /** a row's context figure this fresh is not read again (default 1.5 s) */
  usageFreshMs?: number
  /** where Claude's subagent rosters count (default: counters of their own) */
  rosterCounters?: RosterCounters
}

export interface SourceRegistry {
  forKind(kind: string | undefined): TranscriptSource | undefined
  /** {running,total} subagents of the pane's session, for /snapshot; undefined when none */
  subagentCounts(agent: AgentInfo): Promise<{ running: number; total: number } | undefined>
  /**
   * The pane's usage from its session's records (GET /usage): the timeline is
   * held for the read, so an indexed session answers from the index pass's fold.
   */
  usage(agent: AgentInfo): Promise<{ ok: true; usage: Usage } | Unresolved>
  /** The pane's last known context_pct for its row (never waits; UsageBook). */
  contextPct(agent: AgentInfo): number | undefined
  /** One round of every kind's warm-up (TranscriptSource.warmUp); one that throws costs nothing but its own. */
  warmUp(): void
}

export function createSources(homes: AgentHomes, opts: SourceOptions = {}): SourceRegistry {
  const shared = { ...opts, jsonl: opts.jsonl ?? new JsonlFiles() }
  const claude = createClaudeSource(homes, shared)
  const all: TranscriptSource[] = [claude, createPiSource(homes, shared), createOpencodeSource(homes, shared), createCodexSource(homes, shared)]
  const byKind = new Map<string, TranscriptSource>()
  for (const s of all) for (const k of s.kinds) byKind.set(k, s)
  const forKind = (kind: string | undefined) => (kind === undefined ? undefined : byKind.get(kind))
  async function usage(agent: AgentInfo): Promise<{ ok: true; usage: Usage } | Unresolved> {
    const source = forKind(agent.agent)
    if (!source) return NOT_SUPPORTED
    const r = await source.resolve(agent, {})
    if (!r.ok) return r
    try {
      const tally = (await r.usage?.()) ?? new UsageTally()
      const head = { pane_id: agent.pane_id, agent_kind: agent.agent ?? '', session_id: r.sessionId }
      return { ok: true, usage: tally.report(head, new Date().toISOString()) }
    } finally {
      r.timeline.release()
    }
  }
  const book = new UsageBook(
    async (agent) => {
      const r = await usage(agent)
      return r.ok ? r.usage : undefined
    },
    opts.log ?? (() => {}),
    opts.usageFreshMs,
  )
  return {
    forKind,
    usage,
    contextPct: (agent) => (forKind(agent.agent) ? book.contextPct(agent) : undefined),
    subagentCounts: (agent) => (agent.agent === 'claude' ? claude.subagentCounts(agent) : Promise.resolve(undefined)),
    warmUp: () => {
      for (const s of all) {
        try {
          s.warmUp?.()
        } catch (err) {
          opts.log?.(`transcript warm-up of ${s.kinds.join('/')}: ${(err as Error)?.message ?? err}`)
        }
      }
    },
  }
}
