// Test helpers for the Claude TranscriptSource: pane records as herdr reports them,
// and the fixture's expected entries computed from the session files themselves.
// (The temp copies of the fixture CLAUDE_CONFIG_DIRs are test/support/claude-home.ts.)
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { AgentInfo } from '../../../../src/herdr/types'
import { normalizeClaudeLine } from '../../../../src/transcript/kinds/claude/normalize'
import { fakeAgent } from '../../../support/agent'
import { claudeSessionRef } from '../../../support/claude-home'

export const FIXTURES = join(import.meta.dir, '../../../../fixtures/claude')

/** A Claude pane as `herdr agent get` reports it (the shared fake record), on this cwd and session. */
export const claudePane = (cwd: string | undefined, sessionId: string | undefined, extra: Partial<AgentInfo> = {}): AgentInfo =>
  fakeAgent('claude', 'idle', {
    ...(sessionId === undefined ? {} : { agent_session: claudeSessionRef(sessionId) }),
    ...(cwd === undefined ? {} : { cwd }),
    ...extra,
  })

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
