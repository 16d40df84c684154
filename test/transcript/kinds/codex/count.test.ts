// countCodexLine builds the index; normalizeCodexLine builds pages and the tail. They must
// agree on every line: every real rollout line, every bad input, thousands of mutated lines.
import { describe, expect, test } from 'bun:test'
import { countCodexLine, normalizeCodexLine } from '../../../../src/transcript/kinds/codex/normalize'
import { BAD_LINES, FIX, codexCorpusFiles, fuzzLines, SHAPE_SEEDS } from './fuzz'
import { agreement, linesOf } from '../../../support/fuzz'

const agree = (line: string, offset = 7) => ({ count: countCodexLine(line, offset), drafts: normalizeCodexLine(line, offset).length })

describe('countCodexLine equals normalizeCodexLine(line).length', () => {
  const files = codexCorpusFiles()
  test('the corpus is every codex rollout (seven scenarios, resume has two, plus the yield, live, exec-approvals, patch-approvals, permissions, queue, mcp, menus and card4 captures)', () => {
    expect(files.length).toBe(17)
  })
  for (const file of files) {
    test(`every line of ${file.slice(FIX.length + 1)}`, () => {
      const lines = linesOf(file)
      const wrong = lines.map(({ line, offset }) => ({ offset, ...agree(line, offset) })).filter((r) => r.count !== r.drafts)
      expect(wrong).toEqual([])
      expect(lines.reduce((n, { line, offset }) => n + countCodexLine(line, offset), 0)).toBeGreaterThan(1)
      // every real line is placed: nothing passes through as parsed:false
      const unplaced = lines.flatMap(({ line, offset }) => normalizeCodexLine(line, offset)).filter((d) => !d.parsed)
      expect(unplaced).toEqual([])
    })
  }

  test.each(SHAPE_SEEDS.map((l, i) => [i, l]))('record shape %i', (_i, line) => {
    const r = agree(line)
    expect(r.count).toBe(r.drafts)
  })

  const expected: Record<string, number> = {
    '': 0,
    '   \t\r ': 0,
    '{"type":"response_item","payload":{"type":"message","role":"wizard","content":[]}}': 1,
  }
  test.each(BAD_LINES.map((l) => [l.slice(0, 70), l]))('bad input %p is one parsed:false entry (blank: none)', (_name, line) => {
    const want = expected[line] ?? 1
    expect(agree(line)).toEqual({ count: want, drafts: want })
    if (want === 1) expect(normalizeCodexLine(line, 3)[0]).toMatchObject({ id: 'line@3#0', role: 'system', parsed: false })
  })
})

test('fuzz: 4000 mutated real lines, count equals drafts, drafts stay schema-valid', () => {
  const r = agreement(fuzzLines(4000, 1301), countCodexLine, normalizeCodexLine)
  expect(r.wrong).toEqual([])
  expect(r.many).toBeGreaterThan(0)
  expect(r.none).toBeGreaterThan(300)
  expect(r.unplaced).toBeGreaterThan(300)
})
