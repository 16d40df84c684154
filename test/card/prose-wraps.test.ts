// Issue 40: prose rows that wrap short of the pane's width still join into one paragraph.
// Two causes, both read off real Claude Code 2.1.332 rows (fixtures/screens/cc332-card4-wraps,
// cc332-card4): wide characters (an emoji or a CJK character takes two columns, so a full row
// has fewer characters than the pane has columns), and an agent wrapping several columns
// before the edge (a row that ends no sentence, and a next row that carries it on).
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { screenLines } from '../../src/card/clean'
import { columns, wrapsInto } from '../../src/card/lines'
import { continuesSentence, unwrapProse } from '../../src/card/turn'

const SCREENS = join(import.meta.dir, '../../fixtures/screens')
const rows = (name: string) => screenLines(readFileSync(join(SCREENS, name), 'utf8'))
const rowWith = (lines: string[], text: string) => lines.find((l) => l.includes(text))!

describe('wide characters take two columns', () => {
  const lines = rows('cc332-card4-wraps/01-emoji-rows.txt')
  const first = rowWith(lines, '● Status ✅')
  const second = rowWith(lines, 'that string width')

  test('a row with five emoji is five columns wider than its characters: wrapped, not a paragraph end', () => {
    expect(columns(first)).toBe([...first].length + 5)
    expect(wrapsInto(first, second, 120, 2)).toBe(true)
  })

  test('CJK too', () => {
    const cjk = rowWith(rows('cc332-card4-wraps/03-table-and-cjk.txt'), '東京')
    expect(columns(cjk)).toBe(cjk.length + 5)
  })
})

describe('a row that ends no sentence, and a next row that carries it on', () => {
  // real rows of a paragraph Claude Code wrapped at 120 columns, read as if the pane were
  // wider: the width test alone would call each row a paragraph's end
  const lines = rows('cc332-card4/07-prose-short-wraps.txt')
  const a = rowWith(lines, '(https://example.com/a/rather/long/path')
  const b = rowWith(lines, 'a few columns short of the edge')
  const c = rowWith(lines, 'spec (https://example.com/spec)')
  const WIDE = 140

  test('joins: the width test says no, the sentence says yes', () => {
    expect(wrapsInto(a, b, WIDE, 2)).toBe(false)
    expect(continuesSentence(a, b, WIDE)).toBe(true)
    const text = unwrapProse([a, b, c], WIDE, 2, (r) => r.trim())
    expect(text).toEqual([[a, b, c].map((r) => r.trim()).join(' ')])
  })

  test('a row that ends a sentence is a paragraph end', () => {
    expect(continuesSentence(`${a.trimEnd()}.`, b, WIDE)).toBe(false)
    expect(continuesSentence(`${a.trimEnd()}:`, b, WIDE)).toBe(false)
  })

  test('a next row opening with a capital, a list mark or a number starts anew', () => {
    expect(continuesSentence(a, b.replace('a few', 'A few'), WIDE)).toBe(false)
    expect(continuesSentence(a, '  - a list item', WIDE)).toBe(false)
    expect(continuesSentence(a, '  2. the second step', WIDE)).toBe(false)
  })

  test('continuing punctuation carries it on', () => {
    expect(continuesSentence(a, '  , and so on', WIDE)).toBe(true)
    expect(continuesSentence(a, '  ) and so on', WIDE)).toBe(true)
  })

  test('short rows (code, headings) never join by the sentence', () => {
    expect(continuesSentence('  const x = compute(y)', '  return x', WIDE)).toBe(false)
  })

  test('a row indented deeper than a continuation is not one (a nested block)', () => {
    expect(continuesSentence(a, `        ${b.trim()}`, WIDE)).toBe(false)
  })
})
