// The timestamps the agents write, through isoTime: which shapes read, which do not.
// previewDiff's new-file diff, written out, against the diff library's.
import { describe, expect, test } from 'bun:test'
import { structuredPatch } from 'diff'
import { isoTime, previewDiff, renderUnifiedHunks } from '../../src/transcript/tool-summary'

describe('isoTime', () => {
  test.each([
    ['2026-12-02T10:04:19.969Z', '2026-12-02T10:04:19.969Z'],
    ['2026-12-02T10:04:19Z', '2026-12-02T10:04:19Z'],
    ['2026-12-02T10:04:19.123456789+02:00', '2026-12-02T10:04:19.123456789+02:00'],
    ['2026-00-02T10:04:19Z', undefined],
    ['2026-13-02T10:04:19Z', undefined],
    ['2026-12-00T10:04:19Z', undefined],
    ['not a date at all....', undefined],
    ['', undefined],
    ['2026-12-02T10:04:19.Z', undefined],
  ] as [string, string | undefined][])('%j → %j', (v, want) => {
    expect(isoTime(v)).toBe(want)
  })
  test('other date strings still go through Date; numbers are ms epoch', () => {
    expect(isoTime('2026-12-02')).toBe('2026-12-02')
    expect(isoTime(0)).toBe('1970-01-01T00:00:00.000Z')
    expect(isoTime(Number.NaN)).toBeUndefined()
  })
})

describe("previewDiff of a new file (before '')", () => {
  /** What the diff library answers, as previewDiff renders any other pair. */
  const library = (after: string) =>
    after === ''
      ? ''
      : renderUnifiedHunks(
          structuredPatch('', '', '', after, undefined, undefined, { context: 3 }).hunks.map((h) => ({
            ...h,
            lines: h.lines.filter((l) => !l.startsWith('\\')),
          })),
        )
  test.each([
    'a',
    'a\n',
    'a\nb',
    'a\nb\n',
    '\n',
    '\n\n',
    'a\r\nb\r\n',
    'a\r\nb',
    'x\ry',
    '\r\n',
    ' \n \n',
    'ü漢🙂\n\nz',
    'a\n\n\n',
    '\\ No newline',
    'a\n\\ x\n',
    '',
  ])('%j', (after) => {
    expect(previewDiff('', after)).toBe(library(after))
  })
  test('equals the library on 5,000 random texts of newlines, CRs, backslashes and letters', () => {
    let seed = 7
    const rand = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff
    const alphabet = ['a', 'b', '\n', '\r', '\r\n', ' ', '\\', 'é', '🙂']
    const differing: string[] = []
    for (let k = 0; k < 5000; k++) {
      let s = ''
      for (let i = Math.floor(rand() * 30); i > 0; i--) s += alphabet[Math.floor(rand() * alphabet.length)]
      if (previewDiff('', s) !== library(s)) differing.push(s)
    }
    expect(differing).toEqual([])
  })
  test('a 3,000-line file: one hunk, every line added', () => {
    const text = Array.from({ length: 3000 }, (_, i) => `line ${i}`).join('\n')
    const d = previewDiff('', text)
    expect(d.split('\n')[0]).toBe('@@ -0,0 +1,3000 @@')
    expect(d).toBe(library(text))
  })
})
