// A transcript source: how one agent kind finds and reads its conversation.
// The socket protocol (stream.ts) is written once against Timeline and this.
import { isAbsolute } from 'node:path'
import type { AgentInfo } from '../herdr/types'
import type { Subagent } from './roster'
import type { Timeline } from './timeline'
import type { UsageTally } from '../usage/tally'

/** The pane's cwd as herdr reports it (else its foreground process's), when usable: an absolute path, as given. */
export function paneCwd(agent: AgentInfo): string | undefined {
  const cwd = agent.cwd ?? agent.foreground_cwd
  return cwd !== undefined && isAbsolute(cwd) ? cwd : undefined
}

/** Where the agents keep their files, as the agents themselves find them (docs/bridge.md). */
export interface AgentHomes {
  home: string
  /** CLAUDE_CONFIG_DIR or ~/.claude */
  claudeDir: string
  /** PI_CODING_AGENT_DIR or ~/.pi/agent */
  piDir: string
  /** XDG_STATE_HOME or ~/.local/state */
  xdgStateHome: string
  /** XDG_DATA_HOME or ~/.local/share */
  xdgDataHome: string
  /** CODEX_HOME or ~/.codex (optional: absent means ~/.codex) */
  codexDir?: string
}

export type Resolved = {
  ok: true
  sessionId: string
  timeline: Timeline
  /** the session's subagent roster, for kinds that delegate (absent otherwise) */
  roster?: () => Promise<Subagent[] | undefined>
  /** the session's usage as its records state it (GET /usage), read while the timeline is held */
  usage?: () => Promise<UsageTally | undefined>
}

export type Unresolved = {
  ok: false
  status: 404 | 500
  /** the contract's body: `no transcript file for pane`, `transcript not supported for this agent kind`, … */
  body: string
}

export interface TranscriptSource {
  readonly kinds: readonly string[]
  /** Finds the pane's current session. `subagent` selects a delegated conversation. */
  resolve(agent: AgentInfo, opts: { subagent?: string }): Promise<Resolved | Unresolved>
  /**
   * The session id resolve() would pick now, cheaply (for the 2 s rotation poll);
   * undefined when none can be opened.
   */
  currentSession?(agent: AgentInfo): Promise<string | undefined>
  /**
   * One round of a sample of the kind's records through the code a first
   * connect runs (index pass, page, frames): the bridge repeats it while idle
   * after it starts, so the JIT has compiled that code before a phone asks.
   * Pure; a millisecond or two a round once compiled.
   */
  warmUp?(): void
}

export const NO_TRANSCRIPT: Unresolved = { ok: false, status: 404, body: 'no transcript file for pane' }
export const NOT_SUPPORTED: Unresolved = {
  ok: false,
  status: 404,
  body: 'transcript not supported for this agent kind',
}
