// The entries normalized lately: a reconnect's newest page, a page another
// socket just read and the live tail are served again without reading or
// normalizing their lines, and never across a re-index.
import { afterAll, afterEach, describe, expect, test } from 'bun:test'
import { appendFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Entry } from '../../../src/transcript/entry'
import type { LineNormalizer } from '../../../src/transcript/jsonl/normalizer'
import { RecentEntries } from '../../../src/transcript/jsonl/recent-entries'
import { JsonlFiles } from '../../../src/transcript/jsonl/timeline'

import { countingNormalizer, holding, line, naiveEntries, tempDir, waitFor } from './helpers'

/** this file's JSONL files: its own registry, as each app has its own */
const jsonl = new JsonlFiles()

const entry = (seq: number): Entry => ({ id: `e${seq}`, seq, role: 'assistant', kind: 'message', text: String(seq), parsed: true }) as Entry

describe('RecentEntries', () => {
  test('a range is served only when every entry of it is held, for the same generation', () => {
    const r = new RecentEntries(10)
    r.put(1, [entry(5), entry(6), entry(7)])
    expect(r.get(1, 5, 7)?.map((e) => e.seq)).toEqual([5, 6, 7])
    expect(r.get(1, 4, 7)).toBeUndefined() // 4 missing
    expect(r.get(2, 5, 7)).toBeUndefined() // another generation
    r.put(2, [entry(1)]) // a new generation drops the old one's entries
    expect(r.get(2, 5, 5)).toBeUndefined()
    expect(r.size).toBe(1)
  })

  test('bounded: the least recently used go first', () => {
    const r = new RecentEntries(3)
    r.put(1, [entry(1), entry(2), entry(3)])
    r.get(1, 1, 1) // 1 used: 2 is now the oldest
    r.put(1, [entry(4)])
    expect(r.size).toBe(3)
    expect(r.get(1, 2, 2)).toBeUndefined()
    expect(r.get(1, 1, 1)?.[0]?.seq).toBe(1)
    expect(r.get(1, 3, 4)?.map((e) => e.seq)).toEqual([3, 4])
    expect(r.get(1, 1, 4)).toBeUndefined() // more than it can hold
  })
})

describe('a file’s reads', () => {
  const tmp = tempDir()
  let n = 0
  const fresh = () => join(tmp.dir, `r-${++n}.jsonl`)
  let calls = 0
  // counts its calls under its own name, so no other test's file shares its cache entry
  const counted: LineNormalizer = function recentCountedNormalizer(l, o) {
    calls++
    return countingNormalizer(l, o)
  }
  const files = holding(jsonl)
  const acquire = (path: string) => files.acquire(path, counted, { pollMs: 20, watch: false })
  afterEach(files.releaseAll)
  afterAll(() => tmp.cleanup())

  test('the same page read again (a reconnect) normalizes nothing and gives the same entries', async () => {
    const p = fresh()
    writeFileSync(p, Array.from({ length: 40 }, (_, i) => line(`u${i}`, 2, `t${i}`)).join(''))
    const tl = await acquire(p)
    const first = await tl.read(31, 80)
    expect(first).toEqual(naiveEntries(Buffer.from(Array.from({ length: 40 }, (_, i) => line(`u${i}`, 2, `t${i}`)).join(''))).slice(30))
    tl.release()
    const again = await acquire(p) // the warm cache kept the file: a reconnect
    const before = { calls, hits: jsonl.counters.recentHits }
    expect(await again.read(31, 80)).toEqual(first)
    expect(calls).toBe(before.calls)
    expect(jsonl.counters.recentHits).toBe(before.hits + 1)
  })

  test('entries the tail delivered are read back without normalizing again', async () => {
    const p = fresh()
    writeFileSync(p, line('a', 1))
    const tl = await acquire(p)
    const grown: Entry[] = []
    tl.onGrow((es) => grown.push(...es))
    appendFileSync(p, line('b', 3, 'new'))
    await waitFor(() => grown.length === 3, 3000, 'the tail')
    const before = calls
    expect(await tl.read(2, 4)).toEqual(grown)
    expect(calls).toBe(before)
  })

  test('a page read ahead (prefetch) is then read without normalizing; a read during it waits for it, not the file', async () => {
    const p = fresh()
    const text = Array.from({ length: 100 }, (_, i) => line(`u${i}`, 1, `t${i}`)).join('')
    writeFileSync(p, text)
    const tl = await acquire(p)
    const want = naiveEntries(Buffer.from(text))
    // read ahead, then read: nothing normalized by the read, one more recent hit
    tl.prefetch!(41, 60)
    tl.prefetch!(41, 60) // a second socket asking for the same page while it is read: one read
    const c0 = { calls, prefetches: jsonl.counters.prefetches, hits: jsonl.counters.recentHits, waits: jsonl.counters.aheadWaits }
    expect(await tl.read(41, 60)).toEqual(want.slice(40, 60))
    expect(calls - c0.calls).toBe(20) // normalized once, by the one read ahead
    expect(jsonl.counters.prefetches - c0.prefetches).toBe(0) // counted when it began, before c0
    expect(jsonl.counters.aheadWaits - c0.waits).toBe(1) // the read met it in flight and waited
    expect(jsonl.counters.recentHits - c0.hits).toBe(1)
    // a read of part of it, once it is done: served from memory
    const c1 = calls
    expect(await tl.read(45, 50)).toEqual(want.slice(44, 50))
    expect(calls).toBe(c1)
    // a range held already is not read ahead again
    const p1 = jsonl.counters.prefetches
    tl.prefetch!(41, 60)
    expect(jsonl.counters.prefetches).toBe(p1)
    expect(calls).toBe(c1)
    // a read not covered by the read ahead reads the file at once
    tl.prefetch!(1, 20)
    const c2 = { calls, waits: jsonl.counters.aheadWaits }
    expect(await tl.read(81, 100)).toEqual(want.slice(80, 100))
    expect(jsonl.counters.aheadWaits).toBe(c2.waits)
    expect(await tl.read(1, 20)).toEqual(want.slice(0, 20)) // and the one read ahead lands
  })

  test('a released handle reads nothing ahead', async () => {
    const p = fresh()
    writeFileSync(p, Array.from({ length: 10 }, (_, i) => line(`u${i}`, 1)).join(''))
    const tl = await acquire(p)
    const other = await acquire(p) // keeps the file open
    tl.release()
    const before = jsonl.counters.prefetches
    tl.prefetch!(1, 5)
    expect(jsonl.counters.prefetches).toBe(before)
    other.prefetch!(1, 5)
    expect(jsonl.counters.prefetches).toBe(before + 1)
  })

  test('after a re-index (the file replaced) the held entries are not served', async () => {
    const p = fresh()
    writeFileSync(p, line('old1', 1, 'OLD') + line('old2', 1, 'OLD'))
    const tl = await acquire(p)
    expect((await tl.read(1, 2)).map((e) => e.text)).toEqual(['OLD', 'OLD'])
    let reset = false
    tl.onReset?.(() => (reset = true))
    writeFileSync(p + '.new', line('new1', 1, 'NEW') + line('new2', 1, 'NEW') + line('new3', 1, 'NEW'))
    renameSync(p + '.new', p)
    await waitFor(() => reset && tl.total() === 3, 3000, 'the re-index')
    expect((await tl.read(1, 2)).map((e) => e.text)).toEqual(['NEW', 'NEW'])
  })
})
