// Expected `blocked` objects as the card carries them: a fixture's expected.json names
// question and options; the card adds the fingerprint and multi_select (build.ts). The
// fingerprint's own properties (same dialog → same value, cursor and ticks do not
// count, another dialog → another value) are tested in test/answer/.
import { expect } from 'bun:test'
import { blockedOf } from '../../src/card/build'
import type { Blocked, DialogReading } from '../../src/card/card'

export function onCard(kind: string, want: DialogReading): Blocked
export function onCard(kind: string, want: DialogReading | undefined): Blocked | undefined
export function onCard(kind: string, want: DialogReading | undefined): Blocked | undefined {
  return want === undefined ? undefined : { ...blockedOf(kind, want), fingerprint: expect.any(String) as unknown as string }
}
