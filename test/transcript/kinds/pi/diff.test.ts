// pi's display-diff lines (a tool result's details.diff) read into a unified diff: which shapes read, which do not.
import { describe, expect, test } from 'bun:test'
import { piDiffToUnified } from '../../../../src/transcript/kinds/pi/diff'

describe('pi display diff lines', () => {
  test('space and tab padding read the same; gaps split hunks; anything else is no diff', () => {
    expect(piDiffToUnified('-  1 old\n+  1 new')).toBe('@@ -1,1 +1,1 @@\n-old\n+new')
    expect(piDiffToUnified('-\t1 old\n+\t1 new')).toBe('@@ -1,1 +1,1 @@\n-old\n+new')
    expect(piDiffToUnified(' 1 a\n    ...\n 9 b')).toBe('@@ -1,1 +1,1 @@\n a\n@@ -9,1 +9,1 @@\n b')
    expect(piDiffToUnified('+12')).toBe('@@ -11,0 +12,1 @@\n+')
    expect(piDiffToUnified('-x1 a')).toBeUndefined()
    expect(piDiffToUnified('+   ...')).toBeUndefined()
    expect(piDiffToUnified('*1 a')).toBeUndefined()
  })
})
