// The live demo: each tick appends re-stamped copies of real sample lines to the
// sessions (fresh ids and times, so the transcripts grow as an agent's would) and
// moves the panes' screens and status on in the fake herdr's state file. Runs in
// the bridge process; what a key does to a screen is the stand-in's (fake-typing.ts).
import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import type { AgentStatus } from '../herdr/types'
import type { FakePane, FakeState } from './fake-herdr'
import {
  approveReactions,
  BASH_PROMPT,
  BASH_REJECTED,
  BASH_RUNNING,
  DEMO_PANES,
  demoPaths,
  moveHome,
  FETCH_PROMPT,
  FETCH_REJECTED,
  FETCH_RUNNING,
  PI_SCREEN,
  screenFiles,
  SUBAGENTS,
  SUBAGENTS_DONE,
  TOOLS_DONE,
  TOOLS_MIX,
  WORKING,
  WORKING_DONE,
  WORKING_SCREENS,
} from './data'
import { lastUuid, restamp, sayTemplates, liveTemplates, type Stamp } from './restamp'

/** The working pane goes done for one tick in every DONE_EVERY (a turn ends, the next begins). */
const DONE_EVERY = 12
/** Ticks the blocked pane stays working after an approve, and done before its next prompt. */
const BLOCKED_WORKS_FOR = 3
const BLOCKED_RESTS_FOR = 5
/** Ticks the done pane works on a prompt typed into it before it answers. */
const DONE_PANE_WORKS_FOR = 2
/** pi takes a turn every PI_EVERY ticks. */
const PI_EVERY = 7

// ---- the sessions grow: re-stamped copies of real Claude Code and pi lines ----

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
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
  const recs = lines.map((l) => {
    try {
      return JSON.parse(l)
    } catch {
      return undefined
    }
  })
  const user = recs.find((r) => r?.type === 'message' && r.message?.role === 'user')
  const assistant = [...recs]
    .reverse()
    .find((r) => r?.type === 'message' && r.message?.role === 'assistant' && r.message.content?.every?.((b: { type?: string }) => b.type === 'text'))
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
      rec.message.content = [
        { type: 'text', text: role === 'user' ? `(demo) Anything new? #${n}` : `(demo) All quiet: nothing changed since the last look. #${n}` },
      ]
      parent = rec.id
      appendFileSync(file, JSON.stringify(rec) + '\n')
    },
  }
}

// ---- the tick ----

export function writeAtomic(path: string, text: string) {
  const tmp = `${path}.${process.pid}.tmp`
  writeFileSync(tmp, text)
  renameSync(tmp, path)
}

/** One step of the live demo in the demo dir `dir` (its samples and state already written). */
export function demoTicker(dir: string): () => void {
  const paths = demoPaths(dir)
  const statePath = paths.statePath
  const templates = liveTemplates(readFileSync(paths.toolsMixSession, 'utf8'))
  const saying = sayTemplates(readFileSync(paths.workingSession, 'utf8'))
  const grow = {
    working: claudeGrower(paths.liveSession, { sid: SUBAGENTS.sid, cwd: moveHome(SUBAGENTS.cwd, paths.home) }, templates, saying),
    blocked: claudeGrower(paths.toolsMixSession, { sid: TOOLS_MIX.sid, cwd: moveHome(TOOLS_MIX.cwd, paths.home) }, templates, saying),
    done: claudeGrower(paths.workingSession, { sid: WORKING.sid, cwd: moveHome(WORKING.cwd, paths.home) }, templates, saying),
    pi: piGrower(paths.piSession),
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

  return function tick() {
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
      const asked = [...(done.submitted ?? [])]
        .reverse()
        .find((r) => r.startsWith('❯ '))
        ?.slice(2)
      if (done.agent.agent_status === 'working' && asked !== undefined) {
        if (held === 0) grow.done.say('user', asked)
        if (held >= DONE_PANE_WORKS_FOR) {
          const reply = `(demo) Noted: “${asked}”. This is the gothalo demo, so nothing ran.`
          done.submitted = [...(done.submitted ?? []), '', `● ${reply}`]
          grow.done.say('assistant', reply)
          setStatus(done, 'done', WORKING_DONE)
        }
      }
    }
    // pi takes a short turn now and then, so its session grows too
    const pi = state.panes.find((p) => p.pane_id === DEMO_PANES.pi)
    if (pi?.agent) {
      if (pi.agent.agent_status === 'working') {
        grow.pi.say('assistant')
        setStatus(pi, 'idle', PI_SCREEN)
      } else if (ticks % PI_EVERY === 0) {
        grow.pi.say('user')
        setStatus(pi, 'working', PI_SCREEN)
      }
    }
    if (existsSync(statePath)) writeAtomic(statePath, JSON.stringify(state, null, 1))
  }
}

/** Runs `tick` every `everyMs` (a failed step is logged; the bridge keeps serving); returns the stop function. */
export function runLive(tick: () => void, everyMs: number): () => void {
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
}
