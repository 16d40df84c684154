// A LineFold gathers facts in the index pass: every non-blank line once, in file
// order (lines without entries too), through countAndFold while counting and
// fold() when the live tail normalizes; a re-index starts the facts over.
import { afterAll, afterEach, expect, test } from 'bun:test'
import { appendFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { LineFold } from '../../../src/transcript/jsonl/normalizer'
import { JsonlFiles, type JsonlTimeline } from '../../../src/transcript/jsonl/timeline'

import { countingNormalizer, line, tempDir, waitFor } from './helpers'

/** this file's JSONL files: its own registry, as each app has its own */
const jsonl = new JsonlFiles()

const tmp = tempDir()
const held: JsonlTimeline[] = []
afterEach(() => {
  for (const tl of held.splice(0)) tl.release()
  jsonl.drop()
})
afterAll(() => tmp.cleanup())

/** Facts: the offsets of the lines seen, and how each was seen. */
function recordingFold() {
  const calls = { countAndFold: 0, fold: 0 }
  const fold: LineFold<string[]> = {
    id: 'test-offsets/1',
    fresh: () => [],
    countAndFold: (text, offset, facts) => (calls.countAndFold++, facts.push(`${offset}`), countingNormalizer(text, offset).length),
    fold: (_text, offset, facts) => (calls.fold++, void facts.push(`${offset}`)),
    save: (facts) => facts,
    load: (saved) => (Array.isArray(saved) ? (saved as string[]) : undefined),
  }
  return { fold, calls }
}

const offsetsOf = (text: string) => {
  const out: string[] = []
  let pos = 0
  for (const l of text.split('\n').slice(0, -1)) {
    if (l.trim() !== '') out.push(`${pos}`)
    pos += l.length + 1
  }
  return out
}

test('the index pass folds every non-blank line once, in order, with one call per line; the tail folds what it normalizes', async () => {
  const path = join(tmp.dir, 'fold-a.jsonl')
  const text = line('a', 2) + '\n   \n' + line('b', 0) + 'garbage\n' + line('c', 1)
  writeFileSync(path, text)
  const { fold, calls } = recordingFold()
  const count = (t: string, o: number) => countingNormalizer(t, o).length
  const tl = await jsonl.acquire(path, countingNormalizer, { count, fold, pollMs: 20, watch: false })
  held.push(tl)
  expect(tl.total()).toBe(4)
  const view = await jsonl.heldFacts(path, countingNormalizer)
  expect(view!.facts).toEqual(offsetsOf(text))
  expect(calls).toEqual({ countAndFold: 4, fold: 0 })
  expect(view!.scanned).toBe(Buffer.byteLength(text))

  const grown = new Promise<void>((res) => tl.onGrow(() => res()))
  appendFileSync(path, line('d', 1) + line('e', 0))
  await grown
  const after = await jsonl.heldFacts(path, countingNormalizer)
  expect(after!.facts).toEqual(offsetsOf(text + line('d', 1) + line('e', 0)))
  expect(calls.fold).toBe(2)
})

test('a re-index starts the facts over; facts are only offered while a timeline holds the file', async () => {
  const path = join(tmp.dir, 'fold-b.jsonl')
  writeFileSync(path, line('a', 1) + line('b', 1))
  const { fold } = recordingFold()
  const tl = await jsonl.acquire(path, countingNormalizer, { count: (t, o) => countingNormalizer(t, o).length, fold, pollMs: 20, watch: false })
  const first = await jsonl.heldFacts(path, countingNormalizer)
  const resets = jsonl.counters.resets
  writeFileSync(path, line('z', 1)) // shorter: truncated and rewritten
  await waitFor(() => jsonl.counters.resets > resets)
  const second = await jsonl.heldFacts(path, countingNormalizer)
  expect(second!.facts).toEqual(['0'])
  expect(second!.generation).toBeGreaterThan(first!.generation)
  tl.release()
  expect(await jsonl.heldFacts(path, countingNormalizer)).toBeUndefined()
})
