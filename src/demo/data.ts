// The demo workspace as data: which pane runs which agent on which bundled sample
// session and screens, the fake herdr's state at start (fake-herdr.ts), what
// answering the blocked pane's prompt does, and the screens derived from a
// prompt's screen once it is answered. Pure; setup (demo.ts) writes it out.
//   w1:p1  Claude Code, working, a session with subagents — its transcript grows
//   w1:p2  Claude Code, blocked on a Bash permission prompt: Enter or 1/2 accept
//          (the tool runs, the session grows), 3 answers "No" (the turn stops, idle)
//   w1:p3  Claude Code, done: typed text shows in its composer, Enter submits it
//          (it works, answers, both go into its session); Shift+Tab cycles its
//          footer's permission mode, so POST /agent-mode/cycle is confirmed
//   w1:p4  pi, idle, taking a short turn now and then (its session grows)
//   w1:p5  a plain shell that echoes what is typed
import { join } from 'node:path'
import type { AgentStatus } from '../herdr/types'
import type { FakePane, FakeReaction, FakeState } from './fake-herdr'
import { CLAUDE_FOOTERS, isComposerRule } from './fake-typing'

export const DEMO_PANES = { working: 'w1:p1', blocked: 'w1:p2', done: 'w1:p3', pi: 'w1:p4', shell: 'w1:p5' } as const

export const SUBAGENTS = { sid: '31768c85-8856-4ba3-9323-9014ac9e2d13', cwd: '/home/me/cc-subagents/proj', dir: '-home-me-cc-subagents-proj' }
export const TOOLS_MIX = { sid: '7444533a-645f-44b8-9f33-73e27f0ddc04', cwd: '/home/me/cc-tools-mix/proj', dir: '-home-me-cc-tools-mix-proj' }
export const WORKING = { sid: 'ae22f811-9570-4ffe-b8a7-5db178f36de1', cwd: '/home/me/cc-working/proj', dir: '-home-me-cc-working-proj' }
export const PI = {
  cwd: '/home/me/pi-basic/proj',
  file: 'sessions/--home-me-pi-basic-proj--/2026-12-02T10-04-19-969Z_01a23636-547f-7174-a957-02ede8b4c7f6.jsonl',
}

/** The home the samples were recorded in; the demo moves their projects into its own home. */
export const RECORDED_HOME = '/home/me'

/**
 * A sample's text or file name with its recorded home (/home/me, as a path, as Claude Code's
 * project folder "-home-me-…" and pi's "--home-me-…--") moved to `home`: the demo's sessions
 * then lie inside its project root (its home), so "New agent" offers them as recent projects.
 */
export function moveHome(s: string, home: string): string {
  if (home === RECORDED_HOME) return s
  const dashed = home.replace(/[^a-zA-Z0-9]/g, '-')
  return s.replaceAll(`${RECORDED_HOME}/`, `${home}/`).replaceAll('--home-me-', `-${dashed}-`).replaceAll('-home-me-', `${dashed}-`)
}

/** The working pane's screens, cycled while it works (spinner and subagent rows change). */
export const WORKING_SCREENS = ['01-agents-running', '02-agents-running-b', '03-background-running', '04-background-running-b'].map(
  (s) => `screens/cc-subagents/${s}`,
)
export const SUBAGENTS_DONE = 'screens/cc-subagents/08-done'
/** The blocked pane walks through the tools-mix prompts: bash → (approve) → fetch → (approve) → done → bash … */
export const BASH_PROMPT = 'screens/cc-tools-mix/01-bash-prompt'
export const FETCH_PROMPT = 'screens/cc-tools-mix/03-webfetch-prompt'
export const TOOLS_DONE = 'screens/cc-tools-mix/04-after-webfetch'
export const BASH_RUNNING = 'screens/derived/cc-tools-mix-bash-running'
export const FETCH_RUNNING = 'screens/derived/cc-tools-mix-fetch-running'
export const BASH_REJECTED = 'screens/derived/cc-tools-mix-bash-rejected'
export const FETCH_REJECTED = 'screens/derived/cc-tools-mix-fetch-rejected'

/** The done pane's screen, and the pi pane's (idle or taking a turn). */
export const WORKING_DONE = 'screens/cc-working/07-done'
export const PI_SCREEN = 'screens/pi-basic/04-done'

/** Where the demo dir `dir` keeps each thing: the agents' homes, the fake herdr's state, the sessions. */
export function demoPaths(dir: string) {
  const claudeDir = join(dir, 'claude')
  const piDir = join(dir, 'pi')
  const home = join(dir, 'home')
  return {
    claudeDir,
    piDir,
    home,
    statePath: join(dir, 'herdr-state.json'),
    socketPath: join(dir, 'herdr.sock'),
    /** the session the live tail appends to (the working pane's) */
    liveSession: join(claudeDir, 'projects', moveHome(SUBAGENTS.dir, home), `${SUBAGENTS.sid}.jsonl`),
    toolsMixSession: join(claudeDir, 'projects', moveHome(TOOLS_MIX.dir, home), `${TOOLS_MIX.sid}.jsonl`),
    workingSession: join(claudeDir, 'projects', moveHome(WORKING.dir, home), `${WORKING.sid}.jsonl`),
    piSession: join(piDir, moveHome(PI.file, home)),
  }
}

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
export function screenFiles(base: string): Pick<FakePane, 'screen_file' | 'ansi_file' | 'recent_file'> {
  return base.startsWith('screens/derived/')
    ? { screen_file: `${base}.txt`, ansi_file: `${base}.txt`, recent_file: `${base}.txt` }
    : { screen_file: `${base}.txt`, ansi_file: `${base}.ansi`, recent_file: `${base}.recent.txt` }
}

const claudeSession = (value: string) => ({ agent: 'claude', kind: 'id' as const, source: 'herdr:claude', value })

/** A Claude Code pane's agent on the session `sid`; its terminal title is the status glyph, then `title`. */
function claudeAgent(a: { status: AgentStatus; seq: number; revision: number; sid: string; glyph: string; title: string }): NonNullable<FakePane['agent']> {
  return {
    agent: 'claude',
    agent_status: a.status,
    state_change_seq: a.seq,
    revision: a.revision,
    agent_session: claudeSession(a.sid),
    terminal_title: `${a.glyph} ${a.title}`,
    terminal_title_stripped: a.title,
  }
}

/** The fake herdr's initial state. `piSessionPath` is where the pi sample was written. */
export function demoState(piSessionPath: string, home = RECORDED_HOME): FakeState {
  const cwd = (recorded: string) => moveHome(recorded, home)
  const pane = (id: string, tab: string, rest: Partial<FakePane>): FakePane => ({ pane_id: id, workspace_id: 'w1', tab_id: tab, ...rest })
  const blockedSeq = 31
  return {
    version: '0.8.2',
    protocol: 20,
    workspaces: [{ workspace_id: 'w1', number: 1, label: 'demo', focused: true, pane_count: 5, tab_count: 2, active_tab_id: 'w1:t1', agent_status: 'blocked' }],
    tabs: [
      { tab_id: 'w1:t1', workspace_id: 'w1', number: 1, label: 'claude', focused: true, pane_count: 3, agent_status: 'blocked' },
      { tab_id: 'w1:t2', workspace_id: 'w1', number: 2, label: 'pi & shell', focused: false, pane_count: 2, agent_status: 'idle' },
    ],
    panes: [
      pane(DEMO_PANES.working, 'w1:t1', {
        focused: true,
        cwd: cwd(SUBAGENTS.cwd),
        ...screenFiles(WORKING_SCREENS[0]),
        agent: claudeAgent({ status: 'working', seq: 12, revision: 3, sid: SUBAGENTS.sid, glyph: '⠂', title: 'Survey the repo with helpers' }),
      }),
      pane(DEMO_PANES.blocked, 'w1:t1', {
        cwd: cwd(TOOLS_MIX.cwd),
        ...screenFiles(BASH_PROMPT),
        agent: claudeAgent({ status: 'blocked', seq: blockedSeq, revision: 5, sid: TOOLS_MIX.sid, glyph: '✳', title: 'Tour of the tools' }),
      }),
      pane(DEMO_PANES.done, 'w1:t1', {
        cwd: cwd(WORKING.cwd),
        ...screenFiles(WORKING_DONE),
        // typing shows in its composer; Shift+Tab cycles the footer (it starts in bypass permissions)
        echo: 'composer',
        mode_cycle: [CLAUDE_FOOTERS.default, CLAUDE_FOOTERS.acceptEdits, CLAUDE_FOOTERS.plan, CLAUDE_FOOTERS.bypassPermissions],
        mode: 3,
        agent: claudeAgent({ status: 'done', seq: 8, revision: 2, sid: WORKING.sid, glyph: '✳', title: 'Run the slow build' }),
      }),
      pane(DEMO_PANES.pi, 'w1:t2', {
        cwd: cwd(PI.cwd),
        ...screenFiles(PI_SCREEN),
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
      pane(DEMO_PANES.shell, 'w1:t2', { cwd: cwd('/home/me/demo/proj'), label: 'shell', screen: SHELL_SCREEN, echo: 'shell' }),
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
  return [{ pane, on: 'send-keys', match: 'enter', set }, { pane, on: 'send-text', match: '1', set }, { pane, on: 'send-text', match: '2', set }, ...no]
}

// ---- the screens after a prompt is answered, derived from the prompt's ----

/**
 * A prompt's screen with its dialog (from its top rule down) gone and the tool
 * row's "Waiting…" saying `toolRow`; returns those rows and the rule to reuse.
 */
function answered(promptScreen: string, toolRow: string): { kept: string[]; rule: string } {
  const rows = promptScreen.split('\n')
  const top = rows.findIndex(isComposerRule)
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
