// Test helpers for the Claude TranscriptSource: writable temp copies of the
// fixture CLAUDE_CONFIG_DIRs, pane records as herdr reports them, and the
// fixture's expected entries/roster computed from the files themselves.
import { chmodSync, cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AgentInfo } from '../../../../src/herdr/types'
import type { AgentHomes } from '../../../../src/transcript/source'
import { normalizeClaudeLine } from '../../../../src/transcript/kinds/claude/normalize'

export const FIXTURES = join(import.meta.dir, '../../../../fixtures/claude')

export interface TempHome {
  claudeDir: string
  homes: AgentHomes
  /** projects/<encoded>/ of the scenario (the only project dir in a fixture) */
  projectDir: string
  cleanup(): void
}

function makeWritable(path: string): void {
  const st = statSync(path)
  chmodSync(path, st.isDirectory() ? 0o755 : 0o644)
  if (st.isDirectory()) for (const n of readdirSync(path)) makeWritable(join(path, n))
}

/** A writable copy of fixtures/claude/<scenario> (or an empty config dir). */
export function tempHome(scenario?: string): TempHome {
  const claudeDir = mkdtempSync(join(tmpdir(), 'cc-source-'))
  if (scenario) cpSync(join(FIXTURES, scenario), claudeDir, { recursive: true })
  makeWritable(claudeDir)
  let projectDir = join(claudeDir, 'projects')
  try {
    const dirs = readdirSync(projectDir)
    if (dirs.length === 1) projectDir = join(projectDir, dirs[0]!)
  } catch {
    // empty home
  }
  const homes: AgentHomes = {
    home: claudeDir,
    claudeDir,
    piDir: join(claudeDir, 'pi'),
    xdgStateHome: join(claudeDir, 'state'),
    xdgDataHome: join(claudeDir, 'data'),
  }
  return { claudeDir, homes, projectDir, cleanup: () => rmSync(claudeDir, { recursive: true, force: true }) }
}

/** A Claude pane as `herdr agent get` reports it. */
export function claudePane(cwd: string | undefined, sessionId: string | undefined, extra: Partial<AgentInfo> = {}): AgentInfo {
  return {
    agent: 'claude',
    ...(sessionId === undefined
      ? {}
      : { agent_session: { agent: 'claude', kind: 'id' as const, source: 'herdr:claude', value: sessionId } }),
    agent_status: 'idle',
    ...(cwd === undefined ? {} : { cwd }),
    focused: false,
    pane_id: 'w1:p1',
    revision: 1,
    state_change_seq: 1,
    tab_id: 'w1:t1',
    terminal_id: 'term_1',
    workspace_id: 'w1',
    ...extra,
  }
}

/** Complete lines of a file (without newlines), as the engine sees them. */
export function fileLines(path: string): string[] {
  const text = readFileSync(path, 'utf8')
  const lines = text.split('\n')
  lines.pop() // text after the last newline (empty for a complete file)
  return lines
}

/** Entry ids the normalizer gives for a whole file, in order. */
export function expectedEntryIds(path: string): string[] {
  const buf = readFileSync(path)
  const ids: string[] = []
  let start = 0
  for (let nl = buf.indexOf(0x0a, start); nl !== -1; nl = buf.indexOf(0x0a, start)) {
    const line = buf.toString('utf8', start, nl)
    if (line.trim() !== '') for (const d of normalizeClaudeLine(line, start)) ids.push(d.id)
    start = nl + 1
  }
  return ids
}
