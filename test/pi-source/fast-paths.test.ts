// tool-summary's hand-written fast paths must agree with the plain versions
// they short-cut (oneLine's code-point array, entry.ts's capDiff, Date parsing),
// and pi's display-diff reader's hand scan with its regexes.
import { describe, expect, test } from 'bun:test'
import { capDiff as capDiffPlain, LIMITS } from '../../src/transcript/entry'
import { piDiffToUnified } from '../../src/transcript/kinds/pi/diff'
import { capDiff, isoTime, oneLine } from '../../src/transcript/tool-summary'

/** oneLine as it was before its fast path: collapse, then cut by code points. */
function oneLinePlain(s: string, max = 120): string {
  const flat = s.replace(/\s+/g, ' ').trim()
  const cps = Array.from(flat)
  return cps.length <= max ? flat : cps.slice(0, max - 1).join('') + '…'
}

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

describe('oneLine and capDiff agree with the plain versions', () => {
  test.each(['', 'ls', '  a \n\t b  ', 'x'.repeat(119), 'x'.repeat(120), 'x'.repeat(121), 'é😀'.repeat(70), ' \uFEFFa\u00a0b ', 'a b'.repeat(50)])('oneLine %#', (s) => {
    expect(oneLine(s)).toBe(oneLinePlain(s))
    expect(oneLine(s, 5)).toBe(oneLinePlain(s, 5))
  })
  test.each([
    '',
    '@@ -1,1 +1,1 @@\n-a\n+b',
    Array.from({ length: LIMITS.diffLines }, (_, i) => `+${i}`).join('\n'),
    Array.from({ length: LIMITS.diffLines + 1 }, (_, i) => `+${i}`).join('\n'),
    '+' + 'y'.repeat(LIMITS.diffRunes + 5),
    '\n'.repeat(LIMITS.diffLines),
  ])('capDiff %#', (d) => {
    expect(capDiff(d)).toEqual(capDiffPlain(d))
  })
})

describe('pi display diff lines', () => {
  test('space padding (fast path) and tab padding (regex path) read the same', () => {
    expect(piDiffToUnified('-  1 old\n+  1 new')).toBe('@@ -1,1 +1,1 @@\n-old\n+new')
    expect(piDiffToUnified('-\t1 old\n+\t1 new')).toBe('@@ -1,1 +1,1 @@\n-old\n+new')
    expect(piDiffToUnified(' 1 a\n    ...\n 9 b')).toBe('@@ -1,1 +1,1 @@\n a\n@@ -9,1 +9,1 @@\n b')
    expect(piDiffToUnified('+12')).toBe('@@ -11,0 +12,1 @@\n+')
    expect(piDiffToUnified('-x1 a')).toBeUndefined()
    expect(piDiffToUnified('+   ...')).toBeUndefined()
    expect(piDiffToUnified('*1 a')).toBeUndefined()
  })
})
