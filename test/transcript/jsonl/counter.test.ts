// The optional line counter: index scans count with it, reads and the live tail
// normalize; a counter that throws or answers junk is not believed for that
// line; one that disagrees with the normalizer at read time is dropped for the
// file and the file re-indexed by normalizing (so the mistake cannot repeat).
import { afterAll, afterEach, expect, test } from 'bun:test'
import { appendFileSync, closeSync, openSync, writeFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { LineIndex, indexLines } from '../../../src/transcript/jsonl/line-index'
import type { LineCounter, LineNormalizer } from '../../../src/transcript/jsonl/normalizer'
import { JsonlFile } from '../../../src/transcript/jsonl/jsonl-file'
import { JsonlFiles, type JsonlTimeline } from '../../../src/transcript/jsonl/timeline'

import { countingNormalizer, eio, line, naiveEntries, naiveRows, recorder, rng, tempDir, withFileReads } from './helpers'

/** this file's JSONL files: its own registry, as each app has its own */
const jsonl = new JsonlFiles()

const tmp = tempDir()
let n = 0
const fresh = () => join(tmp.dir, `c-${++n}.jsonl`)
const FAST = { pollMs: 20, watch: false }
const held: JsonlTimeline[] = []

afterEach(() => {
  for (const tl of held.splice(0)) tl.release()
  jsonl.drop()
})
afterAll(() => tmp.cleanup())

/** The honest counter for countingNormalizer: reads n without building drafts. */
const honest: LineCounter = (text, offset) => countingNormalizer(text, offset).length

/** Wraps a normalizer and a counter so a test can see which one the engine ran. */
function spied(count: LineCounter = honest) {
  const calls = { normalize: 0, count: 0 }
  const normalize: LineNormalizer = (text, offset) => (calls.normalize++, countingNormalizer(text, offset))
  const counter: LineCounter = (text, offset) => (calls.count++, count(text, offset))
  return { calls, normalize, count: counter }
}

function mixedFile(): Buffer {
  const rand = rng(7)
  const parts: string[] = []
  for (let i = 0; i < 400; i++) {
    const r = rand()
    if (r < 0.05) parts.push('\n')
    else if (r < 0.1) parts.push('garbage ü {\n')
    else parts.push(line(`u${i}`, Math.floor(rand() * 4), 'é漢🙂'.repeat(Math.floor(rand() * 40))))
  }
  return Buffer.from(parts.join(''))
}

test('indexLines with a counter builds the same rows as normalizing, without normalizing', () => {
  const bytes = mixedFile()
  const s = spied()
  const index = new LineIndex()
  indexLines(bytes, 0, s.normalize, index, undefined, s.count)
  const rows = Array.from({ length: index.rows }, (_, r) => [index.starts[r], index.ends[r], index.cum[r]])
  expect(rows).toEqual(naiveRows(bytes))
  expect(s.calls.normalize).toBe(0)
  expect(s.calls.count).toBeGreaterThan(300)
})

test('with drafts to collect (the live tail) the normalizer runs, not the counter', () => {
  const bytes = Buffer.from(line('a', 2) + line('b', 1))
  const s = spied()
  const index = new LineIndex()
  const drafts: unknown[] = []
  indexLines(bytes, 0, s.normalize, index, drafts as never[], s.count)
  expect(drafts.length).toBe(3)
  expect(s.calls).toEqual({ normalize: 2, count: 0 })
})

test('a counter that throws or answers junk is not believed: the normalizer counts that line', () => {
  const bytes = mixedFile()
  let k = 0
  const junk = [
    () => NaN,
    () => -1,
    () => 1.5,
    () => '2' as unknown as number,
    () => Infinity,
    () => {
      throw new Error('boom')
    },
  ]
  const liar: LineCounter = (text, offset) => (k++ % 3 === 0 ? junk[k % junk.length]!() : honest(text, offset))
  const index = new LineIndex()
  indexLines(bytes, 0, countingNormalizer, index, undefined, liar)
  const rows = Array.from({ length: index.rows }, (_, r) => [index.starts[r], index.ends[r], index.cum[r]])
  expect(rows).toEqual(naiveRows(bytes))
})

test('a timeline with a counter: the cold build only counts, pages normalize, the tail emits', async () => {
  const path = fresh()
  const bytes = mixedFile()
  writeFileSync(path, bytes)
  const s = spied()
  const tl = await jsonl.acquire(path, s.normalize, { ...FAST, count: s.count })
  held.push(tl)
  const naive = naiveEntries(bytes)
  expect(tl.total()).toBe(naive.length)
  expect(s.calls.normalize).toBe(0)
  expect(s.calls.count).toBeGreaterThan(300)
  expect(await tl.read(1, naive.length)).toEqual(naive)
  expect(s.calls.normalize).toBeGreaterThan(200) // every line with entries

  const rec = recorder()
  tl.onGrow(rec.grow)
  const counted = s.calls.count
  appendFileSync(path, line('tail', 2, 'x'))
  await rec.untilEntries(2)
  expect(rec.entries.map((e) => [e.id, e.seq])).toEqual([
    ['tail#0', naive.length + 1],
    ['tail#1', naive.length + 2],
  ])
  expect(s.calls.count).toBe(counted) // the tail needs drafts: it normalized
})

test('a counter that disagrees with the normalizer: the read finds it, the file is re-indexed by normalizing', async () => {
  const path = fresh()
  // 'lie' lines count one more than they normalize to: pages would come back short.
  const lying: LineCounter = (text, offset) => honest(text, offset) + (text.includes('"lie"') ? 1 : 0)
  const lines = [line('a', 2), line('b', 1, 'lie'), line('c', 3), line('d', 1)]
  writeFileSync(path, lines.join(''))
  const distrusted = jsonl.counters.counterDistrusted
  const logs: string[] = []
  const tl = await jsonl.acquire(path, countingNormalizer, { ...FAST, count: lying, log: (m) => logs.push(m) })
  held.push(tl)
  expect(tl.total()).toBe(8) // the wrong count: 2 + (1+1) + 3 + 1
  const rec = recorder()
  tl.onReset(rec.reset)

  expect(await tl.read(1, 8)).toEqual([]) // never a short or shifted page
  await rec.untilResets(1)
  expect(jsonl.counters.counterDistrusted).toBe(distrusted + 1)
  expect(logs.some((m) => m.includes('line counter disagrees'))).toBe(true)
  expect(tl.total()).toBe(7)
  expect((await tl.read(1, 7)).map((e) => e.id)).toEqual(['a#0', 'a#1', 'b#0', 'c#0', 'c#1', 'c#2', 'd#0'])
  // it stays fixed: no further resets on later reads
  expect(await tl.read(3, 3)).toMatchObject([{ id: 'b#0', seq: 3 }])
  expect(rec.resets).toBe(1)
})

test('bytes changed under the index with an honest counter: re-indexed, the counter is kept', async () => {
  const path = fresh()
  // The edit is in the middle: the head (256 B) and tail (64 B) prints cannot see it.
  const pad = (id: string, k: number) => line(id, k, 'p'.repeat(300))
  writeFileSync(path, pad('a', 1) + pad('b', 2) + pad('c', 1))
  const file = new JsonlFile(path, countingNormalizer, { ...FAST, count: honest })
  await file.pump()
  expect(file.total()).toBe(4)
  const at = Buffer.byteLength(pad('a', 1))
  const fd = openSync(path, 'r+')
  writeSync(fd, pad('b', 3), at) // same length: {"n":2} → {"n":3}
  closeSync(fd)
  const distrusted = jsonl.counters.counterDistrusted
  let resets = 0
  file.onReset(() => resets++)
  expect(await file.read(1, 4)).toEqual([])
  await file.pump()
  expect(resets).toBe(1)
  expect(file.total()).toBe(5)
  expect(file.countsWithCounter()).toBe(true)
  expect(jsonl.counters.counterDistrusted).toBe(distrusted)
  expect((await file.read(1, 5)).map((e) => e.id)).toEqual(['a#0', 'b#0', 'b#1', 'b#2', 'c#0'])
  await file.close()
})

test('a re-index whose read fails is tried again on the next pass, not dropped', async () => {
  const path = fresh()
  const pad = (id: string, k: number) => line(id, k, 'p'.repeat(300))
  writeFileSync(path, pad('a', 1) + pad('b', 2) + pad('c', 1))
  const size = Buffer.byteLength(pad('a', 1) + pad('b', 2) + pad('c', 1))
  const file = new JsonlFile(path, countingNormalizer, { ...FAST, count: honest, log: () => {} })
  try {
    await file.pump()
    const at = Buffer.byteLength(pad('a', 1))
    const fd = openSync(path, 'r+')
    writeSync(fd, pad('b', 3), at) // same length, in the middle: only a read can see it
    closeSync(fd)
    let resets = 0
    file.onReset(() => resets++)
    // the re-index's one read of the whole file fails, once
    let failed = 0
    await withFileReads(
      (real, args) => (args[3] === 0 && args[2] === size && failed++ === 0 ? eio() : real(args)),
      async () => {
        expect(await file.read(2, 4)).toEqual([]) // the page finds the changed line: re-index
        await file.pump()
      },
    )
    expect(failed).toBeGreaterThanOrEqual(1)
    expect(resets).toBe(1)
    expect(file.lastError).toBeUndefined()
    expect((await file.read(1, 5)).map((e) => e.id)).toEqual(['a#0', 'b#0', 'b#1', 'b#2', 'c#0'])
  } finally {
    await file.close()
  }
})

test('the index pass counts each line by its text, whatever its bytes hold: BOM, two values, trailing garbage, invalid UTF-8, CRLF', () => {
  const texts: string[] = []
  const count: LineCounter = (text, offset) => (texts.push(text), honest(text, offset))
  const bytes = Buffer.concat([
    Buffer.from(line('a', 2) + line('b', 0)),
    Buffer.from('\ufeff' + line('bom', 3)), // BOM: JSON.parse refuses it (one unplaced entry)
    Buffer.from(line('c', 1).trimEnd() + ' ' + line('d', 1)), // two values on one line
    Buffer.from(line('e', 1).trimEnd() + 'xyz\n'), // a value, then garbage
    Buffer.from([0x7b, 0x22, 0x75, 0x75, 0x69, 0x64, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x2c, 0x22, 0x6e, 0x22, 0x3a, 0x32, 0x7d, 0x0a]), // invalid UTF-8 in a string
    Buffer.from('{"uuid":"é✓","n":2}\r\n'),
  ])
  const index = new LineIndex()
  indexLines(bytes, 0, countingNormalizer, index, undefined, count)
  expect(index.rows).toBe(naiveRows(bytes).length)
  expect([...index.cum.subarray(0, index.rows)]).toEqual(naiveRows(bytes).map((r) => r[2]))
  // one call a line, on the line as decoded, without its '\r'
  expect(texts.length).toBe(7)
  expect(texts[6]).toBe('{"uuid":"é✓","n":2}')
})
