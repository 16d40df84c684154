// Starting an agent from the phone (docs/bridge.md "Starting, stopping and
// resuming agents"; the herdr calls in docs/reference/spawn-attach.md §1): a new
// tab of the workspace already in that directory (else a new workspace named
// after it), then `agent start` there with the command herdr builds for the kind
// and the resume option the bridge builds; the first prompt goes once the agent is
// ready, never on a command line. A pane made for a start that then failed is
// closed again, or named in the answer (a 504, a prompt refused), so none is left unknown.
import { randomBytes } from 'node:crypto'
import { realpathSync } from 'node:fs'
import { basename } from 'node:path'
import { HerdrError, type HerdrClient } from '../herdr/client'
import { printableOnly } from '../server/printable'
import type { Snapshot } from '../herdr/types'
import { liveSessionOf, type AgentKind, type FoundSession } from './listing'
import type { StartedPane } from './started'

/** herdr's agent start waits this long for the agent to be ready (spec: 30 s). */
export const START_TIMEOUT_MS = 30_000
/** A blocked start's first prompt waits this long for the agent to become ready. */
export const PROMPT_WAIT_MS = 10 * 60_000
export const AGENT_NAME = /^[a-z][a-z0-9_-]{0,31}$/

export type StartOutcome =
  | { status: 201; body: { pane_id: string; name: string; agent_status?: 'blocked' } }
  | { status: 400 | 404 | 409 | 502 | 503 | 504; text: string; pane_id?: string; name?: string }

export interface StartRequest {
  kind: AgentKind
  /** the directory, already resolved inside the roots */
  cwd: string
  prompt?: string
  resume?: string
  name?: string
}

/** The agent's own resume option, built by the bridge (never from the request). */
export function resumeArgs(kind: AgentKind, s: FoundSession): string[] {
  switch (kind) {
    case 'claude':
      return ['--resume', s.id]
    case 'codex':
      return ['resume', s.id]
    case 'opencode':
      return ['--session', s.id]
    case 'pi':
      // by absolute path: an id prefix from another project makes pi ask on stdin before its UI starts
      return ['--session', s.file ?? s.id]
  }
}

/** The most characters of a workspace label the bridge derives. */
const LABEL_MAX = 64

/**
 * The label of a workspace made for a directory: its name, cut to printable
 * characters (a directory name may hold a newline or an escape sequence) and
 * to LABEL_MAX characters; the path's when the name has none left.
 */
export function workspaceLabel(cwd: string): string {
  const cut = (s: string) => [...printableOnly(s).trim()].slice(0, LABEL_MAX).join('')
  return cut(basename(cwd)) || cut(cwd) || 'workspace'
}

const realOr = (p: string) => {
  try {
    return realpathSync(p)
  } catch {
    return p
  }
}

export interface StartDeps {
  herdr: HerdrClient
  snapshot: () => Promise<Snapshot>
  sessions: () => Promise<FoundSession[]>
  installed: (kind: AgentKind) => boolean
  /** the PATH `installed` searched (named in the 503: a service's PATH may not be the pane shells') */
  searchPath: string
  /** the bridge remembers each pane it made (in its database) */
  remember: (p: StartedPane) => void
  forget: (pane: string) => void
  clock: () => number
  /** the first prompt of an agent that was blocked at startup, sent once it is ready */
  promptLater: (name: string, prompt: string) => void
  log: (m: string) => void
}

type MadePane = Awaited<ReturnType<HerdrClient['workspaceCreate']>>

/** Per directory, the start reading herdr and making its pane now (settled, never rejecting). */
const making = new Map<string, Promise<void>>()

/** Runs `f` after every earlier call for `key` has settled. */
async function oneAtATime<T>(key: string, f: () => Promise<T>): Promise<T> {
  const run = (making.get(key) ?? Promise.resolve()).then(f)
  const settled = run.then(
    () => {},
    () => {},
  )
  making.set(key, settled)
  try {
    return await run
  } finally {
    if (making.get(key) === settled) making.delete(key)
  }
}

export async function startAgent(d: StartDeps, req: StartRequest): Promise<StartOutcome> {
  if (req.name !== undefined && !AGENT_NAME.test(req.name))
    return { status: 400, text: 'name: 1-32 lower-case letters, digits, - or _, starting with a letter' }
  let args: string[] = []
  let session: string | undefined
  if (req.resume !== undefined) {
    const s = (await d.sessions()).find((x) => x.kind === req.kind && x.id === req.resume && (x.cwd === req.cwd || realOr(x.cwd) === req.cwd))
    if (!s) return { status: 404, text: 'no such session' }
    args = resumeArgs(req.kind, s)
    // what herdr will report for it: pi's reference is the file, the others' the id
    session = req.kind === 'pi' ? (s.file ?? s.id) : s.id
  }
  // one start at a time per directory reads herdr and makes its pane: a second finds the first's workspace
  const prepared = await oneAtATime(req.cwd, async (): Promise<StartOutcome | { name: string; made: MadePane }> => {
    const snap = await d.snapshot()
    // two agents writing one session file: the phone opens the live pane instead
    if (req.resume !== undefined) {
      const live = snap.agents.find((a) => a.agent === req.kind && liveSessionOf(a) === req.resume)
      if (live) return { status: 409, text: `session is live in pane ${live.pane_id}` }
    }
    if (!d.installed(req.kind)) return { status: 503, text: `${req.kind} is not installed (not found on the bridge's PATH: ${d.searchPath || '(empty)'})` }
    const name = req.name ?? `${req.kind}-${randomBytes(2).toString('hex')}`
    if (snap.agents.some((a) => a.name === name)) return { status: 409, text: 'name taken' }
    // the workspace already in this directory gets a new tab; else a new workspace after the directory
    const home = snap.panes.find((p) => (p.foreground_cwd ?? p.cwd) && realOr((p.foreground_cwd ?? p.cwd)!) === req.cwd)
    const made = home
      ? await d.herdr.tabCreate({ workspace: home.workspace_id, cwd: req.cwd, label: name })
      : await d.herdr.workspaceCreate({ cwd: req.cwd, label: workspaceLabel(req.cwd) })
    return { name, made }
  })
  if ('status' in prepared) return prepared
  const { name, made } = prepared
  const pane = made.pane_id
  d.remember({ pane_id: pane, terminal_id: made.terminal_id, kind: req.kind, name, session, started_at: d.clock() })
  const closeAgain = async (why: string) => {
    d.forget(pane)
    try {
      await d.herdr.paneClose(pane)
    } catch (e) {
      d.log(`agent start: could not close pane ${pane} after ${why}: ${(e as Error).message}`)
    }
  }
  try {
    await d.herdr.agentStart({ name, kind: req.kind, pane, args, timeoutMs: START_TIMEOUT_MS })
  } catch (e) {
    if (!(e instanceof HerdrError)) {
      await closeAgain('an error')
      throw e
    }
    // a dialog before it is ready (a folder trust prompt): the phone answers it like any other
    if (e.code === 'agent_not_ready') {
      if (req.prompt) d.promptLater(name, req.prompt)
      return { status: 201, body: { pane_id: pane, name, agent_status: 'blocked' } }
    }
    if (e.code === 'timeout')
      return {
        status: 504,
        text: `the agent was not ready within ${START_TIMEOUT_MS / 1000} s; its pane ${pane} is left running${req.prompt ? '; the prompt was not sent' : ''}`,
        pane_id: pane,
        name,
      }
    await closeAgain(e.code ?? 'a failure')
    if (e.code === 'agent_name_taken') return { status: 409, text: 'name taken' }
    if (e.code === 'invalid_agent_name') return { status: 400, text: 'name: 1-32 lower-case letters, digits, - or _, starting with a letter' }
    return { status: 502, text: e.message }
  }
  if (req.prompt) {
    try {
      await d.herdr.agentPrompt(name, req.prompt)
    } catch (e) {
      if (!(e instanceof HerdrError)) throw e
      // ready, then a dialog before the prompt came (herdr refuses it while one is up): as a start that was blocked
      if (e.code === 'agent_blocked' || e.code === 'agent_not_ready') {
        d.promptLater(name, req.prompt)
        return { status: 201, body: { pane_id: pane, name, agent_status: 'blocked' } }
      }
      // the agent runs (or its pane is a shell again): the pane is named, as a 504 names it, for /agent-stop
      return { status: 502, text: `the agent started in pane ${pane} but its prompt was not sent: ${e.message}`, pane_id: pane, name }
    }
  }
  return { status: 201, body: { pane_id: pane, name } }
}

/**
 * Sends the first prompt of agents that were blocked at startup once they are
 * ready: herdr refuses a prompt while the dialog is up (agent_not_ready /
 * agent_blocked), so it is tried again every `everyMs` until it goes through,
 * the agent is gone, or PROMPT_WAIT_MS passes.
 */
export class LaterPrompts {
  private readonly timers = new Set<ReturnType<typeof setTimeout>>()

  constructor(
    private readonly herdr: HerdrClient,
    private readonly log: (m: string) => void,
    private readonly everyMs = 1000,
  ) {}

  add(name: string, prompt: string): void {
    const until = Date.now() + PROMPT_WAIT_MS
    const attempt = () => {
      const t = setTimeout(async () => {
        this.timers.delete(t)
        try {
          await this.herdr.agentPrompt(name, prompt)
        } catch (e) {
          const code = e instanceof HerdrError ? e.code : undefined
          if ((code === 'agent_not_ready' || code === 'agent_blocked') && Date.now() < until) return attempt()
          this.log(`agent start: the first prompt of ${name} was not sent: ${(e as Error).message}`)
        }
      }, this.everyMs)
      this.timers.add(t)
    }
    attempt()
  }

  /** prompts still waiting (tests) */
  get waiting(): number {
    return this.timers.size
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t)
    this.timers.clear()
  }
}
