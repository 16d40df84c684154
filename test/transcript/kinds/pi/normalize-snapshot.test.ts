// normalizePiLine's output, byte for byte, against a snapshot taken before its
// refactors (make-snapshot.ts): every corpus line, bad input, 1500 fuzzed lines.
import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { normalizePiLine } from '../../../../src/transcript/kinds/pi/normalize'
import { SNAPSHOT, snapshotInputs, type SnapshotLine } from './make-snapshot'

const rows: SnapshotLine[] = JSON.parse(readFileSync(SNAPSHOT, 'utf8'))

test('the snapshot covers the same inputs the generator makes today', () => {
  expect(rows.map(({ from, line, offset }) => ({ from, line, offset }))).toEqual(snapshotInputs())
  // and they reach entries of every kind, and unplaced lines
  const drafts = rows.flatMap((r) => JSON.parse(r.out) as { kind: string; parsed: boolean }[])
  expect(new Set(drafts.map((d) => d.kind))).toEqual(new Set(['message', 'thinking', 'tool_call', 'tool_result', 'attachment']))
  expect(drafts.filter((d) => !d.parsed).length).toBeGreaterThan(100)
})

test('normalizePiLine gives the snapshot output for every line, byte for byte', () => {
  const wrong = rows.filter((r) => JSON.stringify(normalizePiLine(r.line, r.offset)) !== r.out).map((r) => `${r.from}@${r.offset}`)
  expect(wrong).toEqual([])
})
