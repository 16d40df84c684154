// Writes test/transcript/kinds/pi/normalize.snapshot.json: normalizePiLine's drafts, serialized,
// for every corpus line, every bad line and 1500 fuzzed lines. Taken from the
// normalizer before its plan/build split (and before the shared helpers moved),
// so normalize-snapshot.test.ts proves both changes kept the output byte for byte.
// Re-run only when a change of output is intended:  bun test/transcript/kinds/pi/make-snapshot.ts
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { normalizePiLine } from '../../../../src/transcript/kinds/pi/normalize'
import { BAD_LINES, FIX, fuzzLines, piCorpusFiles, SHAPE_SEEDS } from './fuzz'
import { linesOf } from '../../../support/fuzz'

export const SNAPSHOT = join(import.meta.dir, 'normalize.snapshot.json')
export const SNAPSHOT_FUZZ = { n: 1500, seed: 20261202 }

export interface SnapshotLine {
  from: string
  line: string
  offset: number
  /** JSON.stringify of the drafts (key order included) */
  out: string
}

export function snapshotInputs(): Omit<SnapshotLine, 'out'>[] {
  const corpus = piCorpusFiles().flatMap((f) => linesOf(f).map((l) => ({ from: f.slice(FIX.length + 1), ...l })))
  const bad = BAD_LINES.map((line, i) => ({ from: 'bad', line, offset: i * 10 }))
  const seeds = SHAPE_SEEDS.map((line, i) => ({ from: 'shape', line, offset: i * 10 }))
  const fuzz = fuzzLines(SNAPSHOT_FUZZ.n, SNAPSHOT_FUZZ.seed).map((line, i) => ({ from: 'fuzz', line, offset: i }))
  return [...corpus, ...bad, ...seeds, ...fuzz]
}

if (import.meta.main) {
  const rows: SnapshotLine[] = snapshotInputs().map((r) => ({ ...r, out: JSON.stringify(normalizePiLine(r.line, r.offset)) }))
  writeFileSync(SNAPSHOT, JSON.stringify(rows, null, 0).replace(/\},\{"from"/g, '},\n{"from"') + '\n')
  console.log(`${rows.length} lines → ${SNAPSHOT}`)
}
