// The pi and codex warm-up samples (Claude's, made up, has its own test beside
// its normalizer): real lines, still in the fixtures they were taken from, each
// read as modelled (a parsed:false line would warm the fallback instead), and
// run whole through the index pass and the page read.
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Glob } from 'bun'
import type { LineCounter, LineNormalizer } from '../../../src/transcript/jsonl/normalizer'
import { jsonlWarmUp } from '../../../src/transcript/jsonl/warm-up'
import { countCodexLine, normalizeCodexLine } from '../../../src/transcript/kinds/codex/normalize'
import { CODEX_WARM_UP_LINES } from '../../../src/transcript/kinds/codex/warm-up'
import { countPiLine, normalizePiLine } from '../../../src/transcript/kinds/pi/normalize'
import { PI_WARM_UP_LINES } from '../../../src/transcript/kinds/pi/warm-up'
import { ROOT } from '../../support/harness'

const fixtureLines = (...dirs: string[]) =>
  new Set(
    dirs.flatMap((d) =>
      [...new Glob('**/*.jsonl').scanSync(join(ROOT, 'fixtures', d))].flatMap((f) => readFileSync(join(ROOT, 'fixtures', d, f), 'utf8').split('\n')),
    ),
  )

const kinds: { kind: string; lines: readonly string[]; normalize: LineNormalizer; count: LineCounter; from: string[] }[] = [
  { kind: 'pi', lines: PI_WARM_UP_LINES, normalize: normalizePiLine, count: countPiLine, from: ['pi/pi-basic'] },
  { kind: 'codex', lines: CODEX_WARM_UP_LINES, normalize: normalizeCodexLine, count: countCodexLine, from: ['codex/codex-patch', 'codex/codex-approval'] },
]

for (const k of kinds)
  describe(`${k.kind}'s warm-up sample`, () => {
    const drafts = k.lines.flatMap((l, i) => k.normalize(l, i))
    test('every line is a real one, still in its fixtures', () => {
      const real = fixtureLines(...k.from)
      expect(k.lines.filter((l) => !real.has(l))).toEqual([])
    })
    test('every line is read as modelled, and counted as it is read', () => {
      expect(drafts.filter((d) => d.parsed === false)).toEqual([])
      expect(k.lines.map((l) => k.count(l, 0))).toEqual(k.lines.map((l) => k.normalize(l, 0).length))
      expect(new Set(drafts.map((d) => d.kind))).toContain('tool_call')
    })
    test('a warm-up round runs it whole through the index pass and the page read', () => {
      const round = jsonlWarmUp(k.lines, { normalize: k.normalize, count: k.count })
      round()
      expect(round()).toEqual({ indexed: drafts.length, read: drafts.length })
      expect(drafts.filter((d) => d.tool?.diff !== undefined).length).toBeGreaterThan(0) // the diff builder too
    })
  })
