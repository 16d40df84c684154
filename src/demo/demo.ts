// gothalo --demo: a bundled herdr stand-in and bundled sample sessions, so a
// newcomer without herdr sees every endpoint answer with real-looking data.
// prepareDemo writes the samples (embedded in the binary, see samples/index.ts)
// into a fresh temp dir laid out the way the agents lay them out, plus the
// fake herdr's state file (fake-herdr.ts) describing one workspace "demo":
//   w1:p1  Claude Code, working, a session with subagents — its transcript grows
//   w1:p2  Claude Code, blocked on a Bash permission prompt: Enter or 1/2 accept
//          (the tool runs, the session grows), 3 answers "No" (the turn stops, idle)
//   w1:p3  Claude Code, done: typed text shows in its composer, Enter submits it
//          (it works, answers, both go into its session); Shift+Tab cycles its
//          footer's permission mode, so POST /agent-mode/cycle is confirmed
//   w1:p4  pi, idle, taking a short turn now and then (its session grows)
//   w1:p5  a plain shell that echoes what is typed
// The live part (tick) runs in the bridge process: it appends re-stamped copies
// of real sample lines to the sessions and moves the panes' screens/status on.
// What a key does to a screen is the stand-in's (fake-typing.ts, reactions).
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { AgentStatus } from '../herdr/types'
import type { FakePane, FakeReaction, FakeState } from './fake-herdr'
import { SAMPLE_FILES } from './samples/index'
import { CLAUDE_FOOTERS } from './fake-typing'

export const DEMO_PANES = { working: 'w1:p1', blocked: 'w1:p2', done: 'w1:p3', pi: 'w1:p4', shell: 'w1:p5' } as const

const SUBAGENTS = { sid: '31768c85-8856-4ba3-9323-9014ac9e2d13', cwd: '/home/me/cc-subagents/proj', dir: '-home-me-cc-subagents-proj' }
const TOOLS_MIX = { sid: '7444533a-645f-44b8-9f33-73e27f0ddc04', cwd: '/home/me/cc-tools-mix/proj', dir: '-home-me-cc-tools-mix-proj' }
const WORKING = { sid: 'ae22f811-9570-4ffe-b8a7-5db178f36de1', cwd: '/home/me/cc-working/proj', dir: '-home-me-cc-working-proj' }
const PI = { cwd: '/home/me/pi-basic/proj', file: 'sessions/--home-me-pi-basic-proj--/2026-12-02T10-04-19-969Z_01a23636-547f-7174-a957-02ede8b4c7f6.jsonl' }

/** The working pane's screens, cycled while it works (spinner and subagent rows change). */
const WORKING_SCREENS = ['01-agents-running', '02-agents-running-b', '03-background-running', '04-background-running-b'].map(
  (s) => `screens/cc-subagents/${s}`,
)
const SUBAGENTS_DONE = 'screens/cc-subagents/08-done'
/** The blocked pane walks through the tools-mix prompts: bash → (approve) → fetch → (approve) → done → bash … */
const BASH_PROMPT = 'screens/cc-tools-mix/01-bash-prompt'
const FETCH_PROMPT = 'screens/cc-tools-mix/03-webfetch-prompt'
const TOOLS_DONE = 'screens/cc-tools-mix/04-after-webfetch'
const BASH_RUNNING = 'screens/derived/cc-tools-mix-bash-running'
const FETCH_RUNNING = 'screens/derived/cc-tools-mix-fetch-running'
const BASH_REJECTED = 'screens/derived/cc-tools-mix-bash-rejected'
const FETCH_REJECTED = 'screens/derived/cc-tools-mix-fetch-rejected'

/** The working pane goes done for one tick in every DONE_EVERY (a turn ends, the next begins). */
const DONE_EVERY = 12
/** Ticks the blocked pane stays working after an approve, and done before its next prompt. */
const BLOCKED_WORKS_FOR = 3
const BLOCKED_RESTS_FOR = 5
/** Ticks the done pane works on a prompt typed into it before it answers. */
const DONE_PANE_WORKS_FOR = 2
/** pi takes a turn every PI_EVERY ticks. */
const PI_EVERY = 7

const SHELL_SCREEN = `me@demo:~/proj$ git status --short
 M src/app.ts
?? notes.txt
me@demo:~/proj$ bun test
bun test v1.4.5

 42 pass
 0 fail
 97 expect() calls
Ran 42 tests across 9 files. [1.21s]
me@demo:~/proj$
`

/** Files of one screen: visible text, the same with SGR codes, text with scrollback. */
function screenFiles(base: string): Pick<FakePane, 'screen_file' | 'ansi_file' | 'recent_file'> {
  return base.startsWith('screens/derived/')
    ? { screen_file: `${base}.txt`, ansi_file: `${base}.txt`, recent_file: `${base}.txt` }
    : { screen_file: `${base}.txt`, ansi_file: `${base}.ansi`, recent_file: `${base}.recent.txt` }
}

const claudeSession = (value: string) => ({ agent: 'claude', kind: 'id' as const, source: 'herdr:claude', value })

/** The fake herdr's initial state. `piSessionPath` is where the pi sample was written. */
export function demoState(piSessionPath: string): FakeState {
  const pane = (id: string, tab: string, rest: Partial<FakePane>): FakePane => ({ pane_id: id, workspace_id: 'w1', tab_id: tab, ...rest })
  const blockedSeq = 31
  return {
    version: '0.8.2',
    protocol: 20,
    workspaces: [
      { workspace_id: 'w1', number: 1, label: 'demo', focused: true, pane_count: 5, tab_count: 2, active_tab_id: 'w1:t1', agent_status: 'blocked' },
    ],
    tabs: [
      { tab_id: 'w1:t1', workspace_id: 'w1', number: 1, label: 'claude', focused: true, pane_count: 3, agent_status: 'blocked' },
      { tab_id: 'w1:t2', workspace_id: 'w1', number: 2, label: 'pi & shell', focused: false, pane_count: 2, agent_status: 'idle' },
    ],
    panes: [
      pane(DEMO_PANES.working, 'w1:t1', {
        focused: true,
        cwd: SUBAGENTS.cwd,
        ...screenFiles(WORKING_SCREENS[0]),
        agent: {
          agent: 'claude',
          agent_status: 'working',
          state_change_seq: 12,
          revision: 3,
          agent_session: claudeSession(SUBAGENTS.sid),
          terminal_title: '⠂ Survey the repo with helpers',
          terminal_title_stripped: 'Survey the repo with helpers',
        },
      }),
      pane(DEMO_PANES.blocked, 'w1:t1', {
        cwd: TOOLS_MIX.cwd,
        ...screenFiles(BASH_PROMPT),
        agent: {
          agent: 'claude',
          agent_status: 'blocked',
          state_change_seq: blockedSeq,
          revision: 5,
          agent_session: claudeSession(TOOLS_MIX.sid),
          terminal_title: '✳ Tour of the tools',
          terminal_title_stripped: 'Tour of the tools',
        },
      }),
      pane(DEMO_PANES.done, 'w1:t1', {
        cwd: WORKING.cwd,
        ...screenFiles('screens/cc-working/07-done'),
        // typing shows in its composer; Shift+Tab cycles the footer (it starts in bypass permissions)
        echo: 'composer',
        mode_cycle: [CLAUDE_FOOTERS.default, CLAUDE_FOOTERS.acceptEdits, CLAUDE_FOOTERS.plan, CLAUDE_FOOTERS.bypassPermissions],
        mode: 3,
        agent: {
          agent: 'claude',
          agent_status: 'done',
          state_change_seq: 8,
          revision: 2,
          agent_session: claudeSession(WORKING.sid),
          terminal_title: '✳ Run the slow build',
          terminal_title_stripped: 'Run the slow build',
        },
      }),
      pane(DEMO_PANES.pi, 'w1:t2', {
        cwd: PI.cwd,
        ...screenFiles('screens/pi-basic/04-done'),
        agent: {
          agent: 'pi',
          agent_status: 'idle',
          state_change_seq: 5,
          revision: 1,
          screen_detection_skipped: true,
          agent_session: { agent: 'pi', kind: 'path', source: 'herdr:pi', value: piSessionPath },
          terminal_title: 'π - pi-basic - proj',
          terminal_title_stripped: 'π - pi-basic - proj',
        },
      }),
      pane(DEMO_PANES.shell, 'w1:t2', { cwd: '/home/me/demo/proj', label: 'shell', screen: SHELL_SCREEN, echo: 'shell' }),
    ],
    reactions: approveReactions(DEMO_PANES.blocked, blockedSeq, BASH_RUNNING, BASH_REJECTED),
  }
}

/**
 * What answering the blocked pane's prompt does, as in Claude Code: Enter
 * (POST /approve) or the digit 1 or 2 accepts at once, and the agent works on;
 * the digit 3 ("No") stops the turn: the tool row says so and the agent waits
 * for the user (idle).
 */
export function approveReactions(pane: string, seq: number, running: string, rejected?: string): FakeReaction[] {
  const set: FakeReaction['set'] = {
    ...screenFiles(running),
    agent: { agent: 'claude', agent_status: 'working', state_change_seq: seq + 1 },
  }
  const no: FakeReaction[] = rejected
    ? [{ pane, on: 'send-text', match: '3', set: { ...screenFiles(rejected), agent: { agent: 'claude', agent_status: 'idle', state_change_seq: seq + 1 } } }]
    : []
  return [
    { pane, on: 'send-keys', match: 'enter', set },
    { pane, on: 'send-text', match: '1', set },
    { pane, on: 'send-text', match: '2', set },
    ...no,
  ]
}

const isRule = (row: string) => /^─{20,}\s*$/.test(row)

/**
 * A prompt's screen with its dialog (from its top rule down) gone and the tool
 * row's "Waiting…" saying `toolRow`; returns those rows and the rule to reuse.
 */
function answered(promptScreen: string, toolRow: string): { kept: string[]; rule: string } {
  const rows = promptScreen.split('\n')
  const top = rows.findIndex(isRule)
  const rule = top >= 0 ? rows[top].trimEnd() : '─'.repeat(80)
  const kept = (top >= 0 ? rows.slice(0, top) : rows).map((r) => r.replace(/⎿[\s\u00a0]+Waiting…/, `⎿  ${toolRow}`))
  while (kept.length && kept[kept.length - 1].trim() === '') kept.pop()
  if (!kept.some((r) => r.includes(`⎿  ${toolRow}`))) kept.push(`  ⎿  ${toolRow}`)
  return { kept, rule }
}

/**
 * The screen right after a permission prompt is accepted, derived from the
 * prompt's screen: the dialog is replaced by the spinner row and an empty input
 * box; the tool row's "Waiting…" becomes "Running…".
 */
export function runningScreen(promptScreen: string): string {
  const { kept, rule } = answered(promptScreen, 'Running…')
  return [...kept, '', '✻ Mustering… (2s · ↓ 31 tokens)', '', rule, '❯ ', rule, '  esc to interrupt · ← for agents', ''].join('\n')
}

/**
 * The screen after a permission prompt is answered "No", the way Claude Code
 * draws it: the dialog is gone, the tool row reads "Interrupted · What should
 * Claude do instead?", the composer is empty (docs/reference/claude-code.md §5).
 */
export function rejectedScreen(promptScreen: string): string {
  const { kept, rule } = answered(promptScreen, 'Interrupted · What should Claude do instead?')
  return [...kept, '', rule, '❯ ', rule, CLAUDE_FOOTERS.default, ''].join('\n')
}

// ---- the live tail: re-stamped copies of real Claude Code lines ----

interface ClaudeRecord {
  type?: string
  uuid?: string
  parentUuid?: string | null
  timestamp?: string
  sessionId?: string
  cwd?: string
  sourceToolAssistantUUID?: string
  message?: { id?: string; role?: string; content?: unknown }
}

type Block = { type?: string; name?: string; id?: string; tool_use_id?: string; is_error?: boolean; text?: string }

const blocksOf = (r: ClaudeRecord): Block[] => (Array.isArray(r.message?.content) ? (r.message!.content as Block[]) : [])

function parseLines(text: string): { line: string; rec: ClaudeRecord }[] {
  const out: { line: string; rec: ClaudeRecord }[] = []
  for (const line of text.split('\n')) {
    if (!line.trim()) continue
    try {
      const rec = JSON.parse(line)
      if (rec && typeof rec === 'object' && !Array.isArray(rec)) out.push({ line, rec })
    } catch {
      // a sample line that does not parse is simply not a template
    }
  }
  return out
}

const MAX_TEMPLATE_LINE = 2000

/**
 * The rounds of the live tail, taken from a real session: each is a Bash call
 * with the assistant text that led into it, then the call's result. Empty when
 * the sample has no Bash call with a result.
 */
export function liveTemplates(sample: string): string[][] {
  // Short lines only: a live tail that grows by a 30 KB tool output every round reads badly.
  const recs = parseLines(sample).filter(({ line }) => line.length <= MAX_TEMPLATE_LINE)
  const rounds: string[][] = []
  let leadIn: string | undefined
  for (const { line, rec } of recs) {
    const blocks = blocksOf(rec)
    if (rec.type !== 'assistant' || blocks.length !== 1) continue
    if (blocks[0].type === 'text') leadIn = line
    if (blocks[0].type !== 'tool_use' || blocks[0].name !== 'Bash' || !leadIn) continue
    const id = blocks[0].id
    const result = recs.find(({ rec: r }) => r.type === 'user' && blocksOf(r).some((b) => b.type === 'tool_result' && b.tool_use_id === id))
    if (result) rounds.push([leadIn, line, result.line])
  }
  return rounds
}

export interface Stamp {
  uuid: string
  parentUuid: string | null
  timestamp: string
  sessionId: string
  cwd: string
  /** the message id for assistant lines (one per appended line: none merge) */
  messageId: string
  /** the tool id a tool_use gets and its tool_result refers to */
  toolId: string
  /** the uuid of the appended tool_use line, for its result's sourceToolAssistantUUID */
  toolUseUuid?: string
}

/** A template line made new: fresh ids and time, the target session's id and cwd. */
export function restamp(templateLine: string, s: Stamp): string {
  const rec = JSON.parse(templateLine) as ClaudeRecord & Record<string, unknown>
  rec.uuid = s.uuid
  rec.parentUuid = s.parentUuid
  rec.timestamp = s.timestamp
  rec.sessionId = s.sessionId
  rec.cwd = s.cwd
  if (rec.message && rec.type === 'assistant') rec.message.id = s.messageId
  for (const b of blocksOf(rec)) {
    if (b.type === 'tool_use') b.id = s.toolId
    if (b.type === 'tool_result') b.tool_use_id = s.toolId
  }
  if ('sourceToolAssistantUUID' in rec && s.toolUseUuid) rec.sourceToolAssistantUUID = s.toolUseUuid
  delete rec.promptId
  return JSON.stringify(rec)
}

/** The uuid of the last line that has one (the parent of the next appended line). */
export function lastUuid(sessionText: string): string | null {
  const recs = parseLines(sessionText)
  for (let i = recs.length - 1; i >= 0; i--) if (typeof recs[i].rec.uuid === 'string') return recs[i].rec.uuid!
  return null
}

/** A user line and an assistant text line of a real session: the shapes `say` re-uses. */
export function sayTemplates(sample: string): { user?: string; assistant?: string } {
  const recs = parseLines(sample)
  const user = recs.find(({ rec }) => rec.type === 'user' && typeof rec.message?.content === 'string')?.line
  const assistant = [...recs].reverse().find(({ rec }) => {
    const b = blocksOf(rec)
    return rec.type === 'assistant' && b.length === 1 && b[0].type === 'text'
  })?.line
  return { user, assistant }
}

/** Appends to one Claude Code session: re-stamped Bash rounds, or a said line with new text. */
export function claudeGrower(file: string, session: { sid: string; cwd: string }, rounds: string[][], saying: { user?: string; assistant?: string }) {
  let parent = lastUuid(readFileSync(file, 'utf8'))
  let appended = 0
  let toolUseUuid: string | undefined
  const stamp = (uuid: string, n: number): Stamp => ({
    uuid,
    parentUuid: parent,
    timestamp: new Date().toISOString(),
    sessionId: session.sid,
    cwd: session.cwd,
    messageId: `msg_demo${n}`,
    toolId: `toolu_demo${Math.floor(n / 3)}`,
    toolUseUuid,
  })
  const write = (uuid: string, line: string) => {
    parent = uuid
    appendFileSync(file, line + '\n')
  }
  return {
    /** the next line of a Bash round (lead-in text, the call, its result) */
    round() {
      if (!rounds.length) return
      const round = rounds[Math.floor(appended / 3) % rounds.length]
      const step = appended % 3
      const n = appended++
      const uuid = crypto.randomUUID()
      const line = restamp(round[step], stamp(uuid, n))
      if (step === 1) toolUseUuid = uuid
      write(uuid, line)
    },
    /** a user prompt or an assistant reply with this text */
    say(role: 'user' | 'assistant', text: string) {
      const template = saying[role]
      if (!template) return
      const uuid = crypto.randomUUID()
      const rec = JSON.parse(restamp(template, stamp(uuid, appended++)))
      rec.message.content = role === 'user' ? text : [{ type: 'text', text }]
      write(uuid, JSON.stringify(rec))
    },
  }
}

/** Appends a short exchange to the pi session, re-stamping its own first prompt and last reply. */
export function piGrower(file: string) {
  const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim())
  const recs = lines.map((l) => {
    try {
      return JSON.parse(l)
    } catch {
      return undefined
    }
  })
  const user = recs.find((r) => r?.type === 'message' && r.message?.role === 'user')
  const assistant = [...recs].reverse().find((r) => r?.type === 'message' && r.message?.role === 'assistant' && r.message.content?.every?.((b: { type?: string }) => b.type === 'text'))
  let parent: string | null = [...recs].reverse().find((r) => typeof r?.id === 'string' && r.type !== 'session')?.id ?? null
  let n = 0
  return {
    say(role: 'user' | 'assistant') {
      const template = role === 'user' ? user : assistant
      if (!template) return
      const rec = structuredClone(template)
      rec.id = crypto.randomUUID().replace(/-/g, '').slice(0, 8)
      rec.parentId = parent
      rec.timestamp = new Date().toISOString()
      rec.message.timestamp = Date.now()
      n++
      rec.message.content = [{ type: 'text', text: role === 'user' ? `(demo) Anything new? #${n}` : `(demo) All quiet: nothing changed since the last look. #${n}` }]
      parent = rec.id
      appendFileSync(file, JSON.stringify(rec) + '\n')
    },
  }
}

// ---- prepareDemo ----

export interface Demo {
  dir: string
  /** HOME, CLAUDE_CONFIG_DIR, PI_CODING_AGENT_DIR, XDG_* pointing at the samples; FAKE_HERDR_STATE */
  env: Record<string, string>
  /** the session file the live tail appends to */
  liveSession: string
  /** one step of the live demo: append a line, move screens/status on */
  tick(): void
  /** runs tick every `everyMs`; returns the stop function */
  startLive(everyMs?: number): () => void
  /** the short how-to printed at startup; `dataDir` is where the demo bridge keeps its devices */
  howTo(base: string, adminToken: string, pairing?: { dataDir: string; publicUrl?: string; self?: string }): string
  /** removes the demo dir (samples, state, and the demo's own data dir) */
  /** Serves herdr's socket API from the demo's state (what typed text goes to); returns its stop. */
  serveSocket(): Promise<() => Promise<void>>
  cleanup(): void
}

function writeAtomic(path: string, text: string) {
  const tmp = `${path}.${process.pid}.tmp`
  writeFileSync(tmp, text)
  renameSync(tmp, path)
}

export async function prepareDemo(): Promise<Demo> {
  const dir = mkdtempSync(join(tmpdir(), 'gothalo-demo-'))
  const claudeDir = join(dir, 'claude')
  const piDir = join(dir, 'pi')
  for (const [rel, embedded] of SAMPLE_FILES) {
    const to = join(dir, rel)
    mkdirSync(dirname(to), { recursive: true })
    writeFileSync(to, await Bun.file(embedded).bytes())
  }
  mkdirSync(join(dir, 'screens/derived'), { recursive: true })
  writeFileSync(join(dir, `${BASH_RUNNING}.txt`), runningScreen(readFileSync(join(dir, `${BASH_PROMPT}.txt`), 'utf8')))
  writeFileSync(join(dir, `${FETCH_RUNNING}.txt`), runningScreen(readFileSync(join(dir, `${FETCH_PROMPT}.txt`), 'utf8')))
  writeFileSync(join(dir, `${BASH_REJECTED}.txt`), rejectedScreen(readFileSync(join(dir, `${BASH_PROMPT}.txt`), 'utf8')))
  writeFileSync(join(dir, `${FETCH_REJECTED}.txt`), rejectedScreen(readFileSync(join(dir, `${FETCH_PROMPT}.txt`), 'utf8')))
  const home = join(dir, 'home')
  mkdirSync(home, { recursive: true })
  const statePath = join(dir, 'herdr-state.json')
  writeAtomic(statePath, JSON.stringify(demoState(join(piDir, PI.file)), null, 1))

  const liveSession = join(claudeDir, 'projects', SUBAGENTS.dir, `${SUBAGENTS.sid}.jsonl`)
  const toolsMixSession = join(claudeDir, 'projects', TOOLS_MIX.dir, `${TOOLS_MIX.sid}.jsonl`)
  const workingSession = join(claudeDir, 'projects', WORKING.dir, `${WORKING.sid}.jsonl`)
  const piSession = join(piDir, PI.file)
  const templates = liveTemplates(readFileSync(toolsMixSession, 'utf8'))
  const saying = sayTemplates(readFileSync(workingSession, 'utf8'))
  const grow = {
    working: claudeGrower(liveSession, SUBAGENTS, templates, saying),
    blocked: claudeGrower(toolsMixSession, TOOLS_MIX, templates, saying),
    done: claudeGrower(workingSession, WORKING, templates, saying),
    pi: piGrower(piSession),
  }
  let ticks = 0
  /** per pane: the (status, seq) last seen and for how many ticks */
  const seen = new Map<string, { key: string; ticks: number }>()
  const age = (p: FakePane) => {
    const key = `${p.agent?.agent_status}:${p.agent?.state_change_seq}`
    const s = seen.get(p.pane_id)
    const next = s && s.key === key ? { key, ticks: s.ticks + 1 } : { key, ticks: 0 }
    seen.set(p.pane_id, next)
    return next.ticks
  }
  const setStatus = (p: FakePane, status: AgentStatus, screen: string) => {
    Object.assign(p, screenFiles(screen))
    if (p.agent!.agent_status !== status) p.agent!.state_change_seq = (p.agent!.state_change_seq ?? 0) + 1
    p.agent!.agent_status = status
  }

  function tick() {
    ticks++
    let state: FakeState
    try {
      state = JSON.parse(readFileSync(statePath, 'utf8'))
    } catch {
      return // mid-rename or removed: the next tick tries again
    }
    const working = state.panes.find((p) => p.pane_id === DEMO_PANES.working)
    if (working?.agent) {
      if (ticks % DONE_EVERY === 0) setStatus(working, 'done', SUBAGENTS_DONE)
      else {
        setStatus(working, 'working', WORKING_SCREENS[ticks % WORKING_SCREENS.length])
        grow.working.round()
      }
    }
    const blocked = state.panes.find((p) => p.pane_id === DEMO_PANES.blocked)
    if (blocked?.agent) {
      const status = blocked.agent.agent_status
      const held = age(blocked)
      const others = (state.reactions ?? []).filter((r) => r.pane !== blocked.pane_id)
      if (status !== 'blocked') state.reactions = others
      const prompt = (screen: string, running: string) => {
        setStatus(blocked, 'blocked', screen)
        const rejected = running === FETCH_RUNNING ? FETCH_REJECTED : BASH_REJECTED
        state.reactions = [...others, ...approveReactions(blocked.pane_id, blocked.agent!.state_change_seq ?? 0, running, rejected)]
      }
      // an approved tool runs: its session grows while it works
      if (status === 'working') grow.blocked.round()
      if (status === 'working' && held >= BLOCKED_WORKS_FOR) {
        if (blocked.screen_file === `${BASH_RUNNING}.txt`) prompt(FETCH_PROMPT, FETCH_RUNNING)
        else setStatus(blocked, 'done', TOOLS_DONE)
      } else if ((status === 'done' || status === 'idle') && held >= BLOCKED_RESTS_FOR) prompt(BASH_PROMPT, BASH_RUNNING)
    }
    // A prompt typed into the done pane (POST /send "…\n"): it shows on screen at
    // once (the stand-in echoes it), goes into the session, and is answered.
    const done = state.panes.find((p) => p.pane_id === DEMO_PANES.done)
    if (done?.agent) {
      const held = age(done)
      const asked = [...(done.submitted ?? [])].reverse().find((r) => r.startsWith('❯ '))?.slice(2)
      if (done.agent.agent_status === 'working' && asked !== undefined) {
        if (held === 0) grow.done.say('user', asked)
        if (held >= DONE_PANE_WORKS_FOR) {
          const reply = `(demo) Noted: “${asked}”. This is the gothalo demo, so nothing ran.`
          done.submitted = [...(done.submitted ?? []), '', `● ${reply}`]
          grow.done.say('assistant', reply)
          setStatus(done, 'done', 'screens/cc-working/07-done')
        }
      }
    }
    // pi takes a short turn now and then, so its session grows too
    const pi = state.panes.find((p) => p.pane_id === DEMO_PANES.pi)
    if (pi?.agent) {
      if (pi.agent.agent_status === 'working') {
        grow.pi.say('assistant')
        setStatus(pi, 'idle', 'screens/pi-basic/04-done')
      } else if (ticks % PI_EVERY === 0) {
        grow.pi.say('user')
        setStatus(pi, 'working', 'screens/pi-basic/04-done')
      }
    }
    if (existsSync(statePath)) writeAtomic(statePath, JSON.stringify(state, null, 1))
  }

  return {
    dir,
    env: {
      FAKE_HERDR_STATE: statePath,
      // herdr's API socket, served by serveSocket(): typed text goes there, as with a real herdr
      HERDR_SOCKET_PATH: join(dir, 'herdr.sock'),
      HOME: home,
      CLAUDE_CONFIG_DIR: claudeDir,
      PI_CODING_AGENT_DIR: piDir,
      XDG_STATE_HOME: join(home, '.local', 'state'),
      XDG_DATA_HOME: join(home, '.local', 'share'),
    },
    liveSession,
    tick,
    startLive(everyMs = 3000) {
      const timer = setInterval(() => {
        try {
          tick()
        } catch (e) {
          // the demo dir went away or is unwritable: the bridge keeps serving
          console.error(`demo: live tail step failed: ${(e as Error).message}`)
        }
      }, everyMs)
      timer.unref?.()
      return () => clearInterval(timer)
    },
    async serveSocket() {
      const { startFakeHerdrSocket } = await import('./fake-herdr-socket')
      const sock = await startFakeHerdrSocket({ statePath, socketPath: join(dir, 'herdr.sock') })
      return () => sock.close()
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true })
    },
    howTo(base, token, pairing) {
      const ws = base.replace(/^http/, 'ws')
      const p = DEMO_PANES
      const self = pairing?.self ?? 'gothalo'
      const pairLines = pairing
        ? [
            `  pair a phone: ${self} pair --data-dir ${pairing.dataDir}${pairing.publicUrl ? '' : ' --public-url <the address the phone uses>'}`,
            '    (prints a code, its URL and a QR code; the demo keeps its devices in that data dir)',
          ]
        : []
      return [
        'demo: one workspace "demo" with five panes: ' +
          `${p.working} Claude working (its transcript grows every few seconds), ${p.blocked} Claude blocked on a Bash prompt, ` +
          `${p.done} Claude done, ${p.pi} pi, ${p.shell} a shell`,
        `  admin token: ${token}`,
        `  curl -s -H 'Authorization: Bearer ${token}' ${base}/snapshot`,
        `  curl -s -H 'Authorization: Bearer ${token}' '${base}/agent-state?pane=${p.blocked}'`,
        `  curl -s -H 'Authorization: Bearer ${token}' -H 'content-type: application/json' -d '{"agent":"${p.blocked}","seq":SEQ}' ${base}/approve` +
          '   (SEQ: the pane state_change_seq from /snapshot)',
        `  websocat '${ws}/agent-transcript?pane=${p.working}&token=${token}'`,
        `  websocat '${ws}/events?token=${token}'   (every pane's state, live: approve the blocked pane and watch it move on)`,
        `  ${base}/swagger for every endpoint`,
        ...pairLines,
      ].join('\n')
    },
  }
}
