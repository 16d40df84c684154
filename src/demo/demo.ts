// gothalo --demo: a bundled herdr stand-in and bundled sample sessions, so a
// newcomer without herdr sees every endpoint answer with real-looking data.
// prepareDemo writes the samples (embedded in the binary, see samples/index.ts)
// into a fresh temp dir laid out the way the agents lay them out, plus the
// fake herdr's state file (fake-herdr.ts) describing one workspace "demo":
//   w1:p1  Claude Code, working, a session with subagents — its transcript grows
//   w1:p2  Claude Code, blocked on a Bash permission prompt (POST /approve works)
//   w1:p3  Claude Code, done
//   w1:p4  pi, idle
//   w1:p5  a plain shell
// The live part (tick) runs in the bridge process: it appends re-stamped copies
// of real sample lines to p1's session and moves the panes' screens/status on.
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import type { AgentStatus } from '../herdr/types'
import type { FakePane, FakeReaction, FakeState } from './fake-herdr'
import { SAMPLE_FILES } from './samples/index'

export const DEMO_PANES = { working: 'w1:p1', blocked: 'w1:p2', done: 'w1:p3', pi: 'w1:p4', shell: 'w1:p5' } as const

const SUBAGENTS = { sid: '31768c85-8856-4ba3-9323-9014ac9e2d13', cwd: '/home/me/cc-subagents/proj', dir: '-home-me-cc-subagents-proj' }
const TOOLS_MIX = { sid: '7444533a-645f-44b8-9f33-73e27f0ddc04', cwd: '/home/me/cc-tools-mix/proj', dir: '-home-me-cc-tools-mix-proj' }
const WORKING = { sid: 'ae22f811-9570-4ffe-b8a7-5db178f36de1', cwd: '/home/me/cc-working/proj' }
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

/** The working pane goes done for one tick in every DONE_EVERY (a turn ends, the next begins). */
const DONE_EVERY = 12
/** Ticks the blocked pane stays working after an approve, and done before its next prompt. */
const BLOCKED_WORKS_FOR = 3
const BLOCKED_RESTS_FOR = 5

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
      pane(DEMO_PANES.shell, 'w1:t2', { cwd: '/home/me/demo/proj', label: 'shell', screen: SHELL_SCREEN }),
    ],
    reactions: approveReactions(DEMO_PANES.blocked, blockedSeq, BASH_RUNNING),
  }
}

/**
 * What answering the blocked pane's prompt does: Enter (POST /approve) or typing
 * 1/2 (POST /send) accepts; the prompt goes away and the agent works on.
 */
export function approveReactions(pane: string, seq: number, running: string): FakeReaction[] {
  const set: FakeReaction['set'] = {
    ...screenFiles(running),
    agent: { agent: 'claude', agent_status: 'working', state_change_seq: seq + 1 },
  }
  return [
    { pane, on: 'send-keys', match: 'enter', set },
    { pane, on: 'send-text', match: '1', set },
    { pane, on: 'send-text', match: '2', set },
  ]
}

const isRule = (row: string) => /^─{20,}\s*$/.test(row)

/**
 * The screen right after a permission prompt is accepted, derived from the
 * prompt's screen: the dialog (from its top rule down) is replaced by the
 * spinner row and an empty input box; the tool row's "Waiting…" becomes "Running…".
 */
export function runningScreen(promptScreen: string): string {
  const rows = promptScreen.split('\n')
  const top = rows.findIndex(isRule)
  const rule = top >= 0 ? rows[top].trimEnd() : '─'.repeat(80)
  const kept = (top >= 0 ? rows.slice(0, top) : rows).map((r) => r.replace(/⎿[\s\u00a0]+Waiting…/, '⎿  Running…'))
  while (kept.length && kept[kept.length - 1].trim() === '') kept.pop()
  if (!kept.some((r) => r.includes('⎿  Running…'))) kept.push('  ⎿  Running…')
  return [...kept, '', '✻ Mustering… (2s · ↓ 31 tokens)', '', rule, '❯ ', rule, '  esc to interrupt · ← for agents', ''].join('\n')
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
  const home = join(dir, 'home')
  mkdirSync(home, { recursive: true })
  const statePath = join(dir, 'herdr-state.json')
  writeAtomic(statePath, JSON.stringify(demoState(join(piDir, PI.file)), null, 1))

  const liveSession = join(claudeDir, 'projects', SUBAGENTS.dir, `${SUBAGENTS.sid}.jsonl`)
  const templates = liveTemplates(readFileSync(join(claudeDir, 'projects', TOOLS_MIX.dir, `${TOOLS_MIX.sid}.jsonl`), 'utf8'))
  let parent = lastUuid(readFileSync(liveSession, 'utf8'))
  let ticks = 0
  let appended = 0
  let toolUseUuid: string | undefined
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

  function appendLine() {
    if (!templates.length) return
    const round = templates[Math.floor(appended / 3) % templates.length]
    const step = appended % 3
    const n = appended++
    const uuid = crypto.randomUUID()
    const line = restamp(round[step], {
      uuid,
      parentUuid: parent,
      timestamp: new Date().toISOString(),
      sessionId: SUBAGENTS.sid,
      cwd: SUBAGENTS.cwd,
      messageId: `msg_demo${n}`,
      toolId: `toolu_demo${Math.floor(n / 3)}`,
      toolUseUuid,
    })
    if (step === 1) toolUseUuid = uuid
    parent = uuid
    appendFileSync(liveSession, line + '\n')
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
        appendLine()
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
        state.reactions = [...others, ...approveReactions(blocked.pane_id, blocked.agent!.state_change_seq ?? 0, running)]
      }
      if (status === 'working' && held >= BLOCKED_WORKS_FOR) {
        if (blocked.screen_file === `${BASH_RUNNING}.txt`) prompt(FETCH_PROMPT, FETCH_RUNNING)
        else setStatus(blocked, 'done', TOOLS_DONE)
      } else if ((status === 'done' || status === 'idle') && held >= BLOCKED_RESTS_FOR) prompt(BASH_PROMPT, BASH_RUNNING)
    }
    if (existsSync(statePath)) writeAtomic(statePath, JSON.stringify(state, null, 1))
  }

  return {
    dir,
    env: {
      FAKE_HERDR_STATE: statePath,
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
        `  ${base}/swagger for every endpoint`,
        ...pairLines,
      ].join('\n')
    },
  }
}
