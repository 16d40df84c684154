// The Claude corpus (fixtures/claude) as the normalizer tests read it: its session files,
// their lines with byte offsets (no empty line after the last newline), a session's drafts.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Draft } from '../../../../src/transcript/entry'
import { normalizeClaudeLine } from '../../../../src/transcript/kinds/claude/normalize'
import { jsonlFiles } from '../../../support/fuzz'

export const FIXTURES = join(import.meta.dir, '../../../../fixtures/claude')

/** Every .jsonl under fixtures/claude (main sessions and subagent files). */
export const corpusFiles = (dir = FIXTURES): string[] => jsonlFiles(dir)

/** Lines with their byte offsets, as the file engine will hand them over. */
export function linesOf(file: string): { line: string; offset: number }[] {
  const buf = readFileSync(file)
  const out: { line: string; offset: number }[] = []
  let start = 0
  for (let i = 0; i < buf.length; i++) {
    if (buf[i] !== 0x0a) continue
    out.push({ line: buf.subarray(start, i).toString('utf8'), offset: start })
    start = i + 1
  }
  if (start < buf.length) out.push({ line: buf.subarray(start).toString('utf8'), offset: start })
  return out
}

export function normalizeFile(file: string): Draft[] {
  return linesOf(file).flatMap(({ line, offset }) => normalizeClaudeLine(line, offset))
}

export function scenarioFile(scenario: string, sessionPrefix = ''): string {
  const f = corpusFiles(join(FIXTURES, scenario)).find((p) => !p.includes('/subagents/') && p.split('/').pop()!.startsWith(sessionPrefix))
  if (!f) throw new Error(`no session file for ${scenario}`)
  return f
}

/** The raw JSONL line whose uuid is given. */
export function lineWithUuid(file: string, uuid: string): { line: string; offset: number } {
  const l = linesOf(file).find(({ line }) => line.includes(`"uuid":"${uuid}"`))
  if (!l) throw new Error(`no line ${uuid}`)
  return l
}
