// The index built in one chunked pass equals a naive full parse, and read()
// of any range equals the naive result.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { LineIndex, indexLines } from '../../../src/transcript/jsonl/line-index'
import { JsonlFiles, type JsonlTimeline } from '../../../src/transcript/jsonl/timeline'

import { JsonlFile, newJsonlCounters } from '../../../src/transcript/jsonl/jsonl-file'
import { countingNormalizer, eio, line, naiveEntries, naiveRows, rng, tempDir, withFileReads } from './helpers'

/** this file's JSONL files: its own registry, as each app has its own */
const jsonl = new JsonlFiles()

const tmp = tempDir()
let bytes: Buffer
let path: string

beforeAll(() => {
  // ~300 KB with 4 KiB chunks: many chunk boundaries, lines longer than a chunk,
  // multibyte text everywhere (boundaries land inside characters), 0-entry lines,
  // blank lines, CRLF lines and garbage.
  const rand = rng(42)
  const parts: string[] = []
  for (let i = 0; i < 1500; i++) {
    const r = rand()
    if (r < 0.05) parts.push('\n')
    else if (r < 0.08) parts.push('   \t \n')
    else if (r < 0.11) parts.push('not json at all ünïcødé {\n')
    else if (r < 0.13) parts.push(JSON.stringify({ uuid: `c${i}`, n: 1, t: 'crlf' }) + '\r\n')
    else if (r < 0.15) parts.push(line(`big${i}`, 2, 'é漢🙂'.repeat(900 + Math.floor(rand() * 900))))
    else parts.push(line(`u${i}`, Math.floor(rand() * 4), 'ü€漢🙂'.slice(0, 1 + Math.floor(rand() * 4)).repeat(Math.floor(rand() * 60))))
  }
  bytes = Buffer.from(parts.join(''))
  path = join(tmp.dir, 'big.jsonl')
  writeFileSync(path, bytes)
})

afterAll(() => {
  jsonl.drop()
  tmp.cleanup()
})

test('indexLines on the whole buffer equals the naive rows', () => {
  const index = new LineIndex()
  const used = indexLines(bytes, 0, countingNormalizer, index)
  expect(used).toBe(bytes.length)
  const rows = Array.from({ length: index.rows }, (_, r) => [index.starts[r], index.ends[r], index.cum[r]])
  expect(rows).toEqual(naiveRows(bytes))
})

/** A saved index's layout: n starts, then n ends, then n cumulative counts. */
const saved = (rows: number[][]) => Float64Array.from([...rows.map((r) => r[0]!), ...rows.map((r) => r[1]!), ...rows.map((r) => r[2]!)])

test('an adopted index reads its rows in place, and a push past them copies, leaving the saved rows alone', () => {
  const rows = saved([
    [0, 10, 1],
    [11, 20, 3],
  ])
  const index = LineIndex.adopt(rows, 2, 21, undefined)
  expect([index.total(), index.before(1), index.rowOf(2), index.ends[1]]).toEqual([3, 1, 1, 20])
  expect(index.cum.buffer).toBe(rows.buffer)
  index.push(21, 30, 2)
  index.push(31, 40, 1)
  expect(Array.from({ length: index.rows }, (_, r) => [index.starts[r], index.ends[r], index.cum[r]])).toEqual([
    [0, 10, 1],
    [11, 20, 3],
    [21, 30, 5],
    [31, 40, 6],
  ])
  expect(Array.from(rows)).toEqual([0, 11, 10, 20, 1, 3])
})

test('firstMisshapen names the first row out of file order, empty, countless or past the scanned end', () => {
  const at = (rows: number[][], scanned = 100) => LineIndex.adopt(saved(rows), rows.length, scanned, undefined).firstMisshapen()
  expect(
    at([
      [0, 10, 1],
      [11, 20, 2],
    ]),
  ).toBe(-1)
  expect(at([])).toBe(-1)
  expect(
    at([
      [0, 10, 1],
      [5, 20, 2],
    ]),
  ).toBe(1) // overlaps the row before
  expect(
    at([
      [0, 10, 1],
      [11, 11, 2],
    ]),
  ).toBe(1) // an empty line
  expect(
    at([
      [0, 10, 1],
      [11, 20, 1],
    ]),
  ).toBe(1) // a row with no entry
  expect(at([[0, 10, 1.5]])).toBe(0) // a count that is not whole
  expect(at([[0, 10, Number.NaN]])).toBe(0)
  expect(
    at(
      [
        [0, 10, 1],
        [11, 20, 2],
      ],
      20,
    ),
  ).toBe(1) // the last line ends at the scanned end, so its '\n' was never read
})

test('a chunked streaming build equals the naive rows and total', async () => {
  const file = new JsonlFile(path, countingNormalizer, { chunkBytes: 4096, watch: false })
  await file.pump()
  expect(file.lastError).toBeUndefined()
  const index = file.index
  const rows = Array.from({ length: index.rows }, (_, r) => [index.starts[r], index.ends[r], index.cum[r]])
  const naive = naiveRows(bytes)
  expect(rows.length).toBeGreaterThan(1000)
  expect(rows).toEqual(naive)
  expect(file.total()).toBe(naiveEntries(bytes).length)
  expect(index.scanned).toBe(bytes.length)
  await file.close()
})

test('each chunk of a pass is read while the one before it is indexed', async () => {
  // short lines only: every chunk holds a '\n', so every chunk after the first can be read ahead
  const lines = Array.from({ length: 1000 }, (_, i) => line(`s${i}`, 1 + (i % 3), 'x'.repeat(i % 50)))
  const short = Buffer.from(lines.join(''))
  const shortPath = join(tmp.dir, 'short.jsonl')
  writeFileSync(shortPath, short)
  const counters = newJsonlCounters()
  const file = new JsonlFile(shortPath, countingNormalizer, { chunkBytes: 4096, watch: false, counters })
  try {
    await file.pump()
    expect(counters.chunksReadAhead).toBeGreaterThanOrEqual(Math.floor(short.length / 4096) - 1)
    const index = file.index
    expect(Array.from({ length: index.rows }, (_, r) => [index.starts[r], index.ends[r], index.cum[r]])).toEqual(naiveRows(short))
  } finally {
    await file.close()
  }
})

test('a long index pass gives the event loop a turn every turnEveryBytes, though its reads are done ahead', async () => {
  // Awaiting a read that is already done does not let timers and other sockets
  // run: past its first chunk, a 100 MB pass held a 1 ms timer back for up to
  // 35-45 ms without these turns, 20-30 ms with them. So the pass turns on its own.
  const lines = Array.from({ length: 8000 }, (_, i) => line(`t${i}`, 1, 'y'.repeat(40 + (i % 80))))
  const long = Buffer.from(lines.join(''))
  const longPath = join(tmp.dir, 'long.jsonl')
  writeFileSync(longPath, long)
  const counters = newJsonlCounters()
  const file = new JsonlFile(longPath, countingNormalizer, { chunkBytes: 4096, turnEveryBytes: 32 * 1024, watch: false, counters })
  try {
    await file.pump()
    expect(file.total()).toBe(8000)
    expect(counters.scanTurns).toBeGreaterThanOrEqual(Math.floor(long.length / (32 * 1024)) - 2)
    expect(counters.scanTurns).toBeLessThanOrEqual(Math.ceil(long.length / (32 * 1024)))
  } finally {
    await file.close()
  }
})

test('a read that fails mid-pass loses nothing: the next pass goes on from the last whole chunk', async () => {
  // Every read of the pass goes through the descriptor's read(); the third one
  // fails (it is a chunk read while the one before it is indexed).
  const file = new JsonlFile(path, countingNormalizer, { chunkBytes: 4096, watch: false, log: () => {} })
  try {
    let calls = 0
    await withFileReads(
      (real, args) => (++calls === 3 ? eio() : real(args)),
      () => file.pump(),
    )
    expect((file.lastError as NodeJS.ErrnoException)?.code).toBe('EIO')
    const partial = file.index.scanned
    expect(partial).toBeGreaterThan(0)
    expect(partial).toBeLessThan(bytes.length)
    // the file did not change: the next pass still goes on, from where the failed one stopped
    await file.pump()
    expect(file.lastError).toBeUndefined()
    const index = file.index
    expect(Array.from({ length: index.rows }, (_, r) => [index.starts[r], index.ends[r], index.cum[r]])).toEqual(naiveRows(bytes))
    expect(file.total()).toBe(naiveEntries(bytes).length)
  } finally {
    await file.close()
  }
})

test('read(any range) equals the naive entries', async () => {
  const tl: JsonlTimeline = await jsonl.acquire(path, countingNormalizer, { chunkBytes: 4096, watch: false })
  try {
    const all = naiveEntries(bytes)
    expect(tl.total()).toBe(all.length)
    const rand = rng(7)
    for (let k = 0; k < 60; k++) {
      const a = 1 + Math.floor(rand() * all.length)
      const b = Math.min(all.length, a + Math.floor(rand() * 500))
      expect(await tl.read(a, b)).toEqual(all.slice(a - 1, b))
    }
    expect(await tl.read(1, all.length)).toEqual(all)
  } finally {
    tl.release()
  }
})

test('newest page, older pages and out-of-range reads', async () => {
  const tl = await jsonl.acquire(path, countingNormalizer, { chunkBytes: 4096, watch: false })
  try {
    const all = naiveEntries(bytes)
    const total = tl.total()
    const newest = await tl.read(total - 149, total)
    expect(newest.map((e) => e.seq)).toEqual(Array.from({ length: 150 }, (_, i) => total - 149 + i))
    expect(newest).toEqual(all.slice(total - 150))
    // page up from the newest page's oldest seq, as load_older does
    const older = await tl.read(newest[0].seq - 150, newest[0].seq - 1)
    expect(older).toEqual(all.slice(total - 300, total - 150))
    expect(older[older.length - 1].seq + 1).toBe(newest[0].seq)
    // the first page clamps at seq 1
    expect((await tl.read(-20, 3)).map((e) => e.seq)).toEqual([1, 2, 3])
    // clamps past the end, empty when reversed or out of range
    expect((await tl.read(total - 1, total + 50)).map((e) => e.seq)).toEqual([total - 1, total])
    expect(await tl.read(10, 9)).toEqual([])
    expect(await tl.read(total + 1, total + 10)).toEqual([])
    expect(await tl.read(0, 0)).toEqual([])
    expect(await tl.read(Number.NaN, 5)).toEqual([])
  } finally {
    tl.release()
  }
})
