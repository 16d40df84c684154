// The timestamps the agents write, through isoTime: which shapes read, which do not.
import { describe, expect, test } from 'bun:test'
import { isoTime } from '../../src/transcript/tool-summary'

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
