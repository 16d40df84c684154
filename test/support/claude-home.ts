// A writable CLAUDE_CONFIG_DIR copied from fixtures/claude/<scenario>, and the
// pane herdr would report for one of its sessions: the one temp Claude home, shared
// by every test that reads a real captured Claude session (through the bridge or
// through the Claude source directly).
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AgentHomes } from '../../src/transcript/source'
import type { FakePane } from '../../src/demo/fake-herdr'
import { ROOT, claudePane } from './harness'

export interface ClaudeHome {
  /** the config dir (CLAUDE_CONFIG_DIR) */
  dir: string
  /** the first project dir under projects/ */
  proj: string
  /** the session ids in that project, sorted */
  sessions: string[]
  /** the first session's id, its file and the cwd it records */
  id: string
  file: string
  cwd: string
  /** a session's file in the project */
  fileOf: (id: string) => string
  /** the agents' directories with this one as CLAUDE_CONFIG_DIR (and the others inside it) */
  homes: AgentHomes
  /** removes the copy */
  cleanup(): void
}

export type EmptyClaudeHome = Pick<ClaudeHome, 'dir' | 'homes' | 'cleanup'>

function makeWritable(path: string): void {
  const st = statSync(path)
  chmodSync(path, st.isDirectory() ? 0o755 : 0o644)
  if (st.isDirectory()) for (const n of readdirSync(path)) makeWritable(join(path, n))
}

/** A fresh config dir: a writable copy of fixtures/claude/<scenario>, or empty. */
function tempConfigDir(scenario?: string): EmptyClaudeHome {
  const dir = mkdtempSync(join(tmpdir(), 'gothalo-cc-'))
  if (scenario) cpSync(join(ROOT, 'fixtures/claude', scenario), dir, { recursive: true })
  makeWritable(dir)
  const homes: AgentHomes = { home: dir, claudeDir: dir, piDir: join(dir, 'pi'), xdgStateHome: join(dir, 'state'), xdgDataHome: join(dir, 'data') }
  return { dir, homes, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

/** A Claude config dir with no project in it. */
export const emptyClaudeHome = (): EmptyClaudeHome => tempConfigDir()

export function claudeHome(scenario: string): ClaudeHome {
  const { dir, homes, cleanup } = tempConfigDir(scenario)
  const proj = join(dir, 'projects', readdirSync(join(dir, 'projects')).sort()[0]!)
  const sessions = readdirSync(proj)
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => f.slice(0, -6))
    .sort()
  const fileOf = (id: string) => join(proj, `${id}.jsonl`)
  const id = sessions[0]!
  return { dir, proj, sessions, id, file: fileOf(id), cwd: cwdOf(fileOf(id)), fileOf, homes, cleanup }
}

/** The first cwd a Claude session file records. */
export function cwdOf(file: string): string {
  for (const l of readFileSync(file, 'utf8').split('\n')) {
    try {
      const o = JSON.parse(l)
      if (typeof o.cwd === 'string') return o.cwd
    } catch {}
  }
  throw new Error(`no cwd in ${file}`)
}

/** herdr's agent_session for a Claude session id. */
export const claudeSessionRef = (id: string) => ({ agent: 'claude', kind: 'id' as const, source: 'herdr:claude', value: id })

/** A Claude pane on one of the home's sessions (the first by default), as herdr reports it. */
export function paneOn(home: ClaudeHome, over: Parameters<typeof claudePane>[0] = {}, id = home.id) {
  return claudePane({ cwd: cwdOf(home.fileOf(id)), ...over, agent: { agent_session: claudeSessionRef(id) } })
}

/** The session id and cwd of a generated session (claudeSession). */
const GENERATED_SID = 'c0ffee00-0000-4000-8000-0000000000h1'
const GENERATED_CWD = '/home/me/generated/proj'

/**
 * A Claude config dir holding one generated session of `n` assistant lines of `size` characters, and its pane:
 * for sizes and counts no capture has (long lines, a backlog past any socket buffer).
 */
export function claudeSession(n: number, size = 100): { claudeDir: string; file: string; pane: FakePane } {
  const { dir: claudeDir } = tempConfigDir()
  const proj = join(claudeDir, 'projects', GENERATED_CWD.replace(/[/.]/g, '-'))
  mkdirSync(proj, { recursive: true })
  const lines: string[] = []
  for (let i = 1; i <= n; i++) lines.push(assistantLine(i, 'x'.repeat(size)))
  const file = join(proj, `${GENERATED_SID}.jsonl`)
  writeFileSync(file, lines.length ? lines.join('\n') + '\n' : '')
  const pane = claudePane({ cwd: GENERATED_CWD, agent: { agent_session: claudeSessionRef(GENERATED_SID) } })
  return { claudeDir, file, pane }
}

/** One assistant text line of a Claude session, its text prefixed with `i`. */
export function assistantLine(i: number, text: string): string {
  return JSON.stringify({
    type: 'assistant',
    uuid: `u${i}`,
    timestamp: '2026-12-02T10:00:00.000Z',
    message: { role: 'assistant', content: [{ type: 'text', text: `${i} ${text}` }] },
  })
}
