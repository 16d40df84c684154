// countPiLine is what the index is built with; normalizePiLine is what pages
// are read with. A disagreement makes pages come back short (or an entry
// silently missing when the counter says 0), so they must agree on every line:
// every real corpus line, every bad input, thousands of mutated real lines.
import { describe, expect, test } from 'bun:test'
import { countPiLine, normalizePiLine } from '../../../../src/transcript/kinds/pi/normalize'
import { BAD_LINES, FIX, fuzzLines, piCorpusFiles, SHAPE_SEEDS } from './fuzz'
import { agreement, indexedCount, linesOf, pageDrafts } from '../../../support/fuzz'

/** Lines a page read took from their bytes, in agree() (the equality below held on each). */
let fromBytes = 0

function agree(line: string, offset = 7): { count: number; drafts: number } {
  const count = countPiLine(line, offset)
  const drafts = normalizePiLine(line, offset)
  // one line in, one line indexed: the bytes path counts as the text path does,
  // and a page read, from the line's bytes, gives the drafts the text gives
  if (!line.includes('\n')) {
    expect({ line: line.slice(0, 200), indexed: indexedCount(line, countPiLine, normalizePiLine) }).toEqual({ line: line.slice(0, 200), indexed: count })
    const page = pageDrafts(line, normalizePiLine, offset)
    expect(page.drafts).toEqual(page.text)
    if (page.fromBytes) fromBytes++
  }
  return { count, drafts: drafts.length }
}

describe('countPiLine equals normalizePiLine(line).length', () => {
  const files = piCorpusFiles()
  test('the corpus is all five pi sessions (three of 0.73.1, two of 1.6.0)', () => {
    expect(files.length).toBe(5)
  })
  for (const file of files) {
    test(`every line of ${file.slice(FIX.length + 1)}`, () => {
      fromBytes = 0
      const lines = linesOf(file)
      const wrong = lines.map(({ line, offset }) => ({ offset, ...agree(line, offset) })).filter((r) => r.count !== r.drafts)
      expect(wrong).toEqual([])
      // not trivially all-zero: the equality means something
      expect(lines.reduce((n, { line, offset }) => n + countPiLine(line, offset), 0)).toBeGreaterThan(1)
      // and its records were read from their bytes: the page equality compared both paths
      expect(fromBytes).toBeGreaterThan(0)
    })
  }

  test.each(SHAPE_SEEDS.map((l) => [JSON.parse(l).id, l]))('record shape %s', (_id, line) => {
    const r = agree(line)
    expect(r.count).toBe(r.drafts)
  })

  const expected: Record<string, number> = {
    '': 0,
    '   \t\r ': 0,
    '{"type":"custom_message","id":"c","content":[]}': 0,
    '{"type":"message","message":{"role":"toolResult"}}': 1,
    '{"type":"message","message":{"role":"bashExecution","cancelled":true}}': 2,
    '{"type":"session","type":"message","id":"dup","message":{"role":"user","content":"last key wins"}}': 1,
  }
  test.each(BAD_LINES.map((l) => [l.slice(0, 60), l]))('bad input %p', (_name, line) => {
    const want = expected[line] ?? 1 // anything else is one parsed:false entry
    expect(agree(line)).toEqual({ count: want, drafts: want })
  })

  test('blank text and thinking are told apart exactly as trim() does', () => {
    const spaces = ['\t', '\n', '\v', '\f', '\r', ' ', '\u00a0', '\u1680', '\u2000', '\u200a', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff']
    const notSpaces = ['x', '\u0085', '\u180e', '\u200b', '\u0000', '\u001f', '😀']
    const line = (t: string, kind: 'text' | 'thinking') =>
      JSON.stringify({ type: 'message', id: 'a', message: { role: 'assistant', content: [{ type: kind, [kind]: ` ${t}\n` }] } })
    for (const kind of ['text', 'thinking'] as const) {
      for (const s of spaces) expect([kind, s, agree(line(s, kind))]).toEqual([kind, s, { count: 0, drafts: 0 }])
      for (const s of notSpaces) expect([kind, s, agree(line(s, kind))]).toEqual([kind, s, { count: 1, drafts: 1 }])
    }
  })
})

test('fuzz: 4000 mutated real lines, count equals drafts, drafts stay schema-valid', () => {
  const r = agreement(fuzzLines(4000, 7301), countPiLine, normalizePiLine)
  expect(r.wrong).toEqual([])
  // the fuzz reaches every side of the decisions: several entries, none, unplaced
  expect(r.many).toBeGreaterThan(200)
  expect(r.none).toBeGreaterThan(300)
  expect(r.unplaced).toBeGreaterThan(300)
  expect(r.fromBytes).toBeGreaterThan(1000) // the page read's bytes path was compared on them too
})
