// The live tail, shrink/replace, pending files, sharing and release.
import { afterAll, afterEach, expect, test } from 'bun:test'
import { appendFileSync, closeSync, openSync, readFileSync, renameSync, truncateSync, unlinkSync, writeFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import type { Draft } from '../../../src/transcript/entry'
import type { LineNormalizer } from '../../../src/transcript/jsonl/normalizer'
import { JsonlFiles } from '../../../src/transcript/jsonl/timeline'

import { countingNormalizer, holding, line, naiveEntries, recorder, tempDir, waitFor } from './helpers'

/** this file's JSONL files: its own registry, as each app has its own */
const jsonl = new JsonlFiles()

const tmp = tempDir()
let n = 0
const fresh = (name = 't') => join(tmp.dir, `${name}-${++n}.jsonl`)
const FAST = { pollMs: 20, watch: false }
const { acquire, releaseAll } = holding(jsonl)

afterEach(releaseAll)
afterAll(() => tmp.cleanup())

/** Waits until the shared poll has run at least `k` more passes. */
async function pumps(k: number): Promise<void> {
  const start = jsonl.counters.pumps
  await waitFor(() => jsonl.counters.pumps >= start + k, 3000, `${k} pumps`)
}

test('an appended line reaches onGrow with seqs continuing (poll)', async () => {
  const path = fresh()
  writeFileSync(path, line('a', 2) + line('b', 1))
  const tl = await acquire(path, countingNormalizer, FAST)
  const rec = recorder()
  tl.onGrow(rec.grow)
  expect(tl.total()).toBe(3)
  appendFileSync(path, line('c', 2, 'hi'))
  await rec.untilEntries(2)
  expect(rec.entries.map((e) => [e.id, e.seq, e.text])).toEqual([
    ['c#0', 4, 'hi'],
    ['c#1', 5, 'hi'],
  ])
  expect(tl.total()).toBe(5)
  // the tail's entries are the same as a later read of those seqs
  expect(await tl.read(4, 5)).toEqual(rec.entries)
})

test('the directory watch reacts without waiting for the poll', async () => {
  const path = fresh()
  writeFileSync(path, line('a', 1))
  const tl = await acquire(path, countingNormalizer, { pollMs: 60_000, watch: true })
  const rec = recorder()
  tl.onGrow(rec.grow)
  appendFileSync(path, line('b', 1))
  await rec.untilEntries(1, 2000)
  expect(rec.entries[0]).toMatchObject({ id: 'b#0', seq: 2 })
})

test('a line written in two halves is emitted once, after its newline', async () => {
  const path = fresh()
  writeFileSync(path, line('a', 1))
  const tl = await acquire(path, countingNormalizer, FAST)
  const rec = recorder()
  tl.onGrow(rec.grow)
  const whole = line('half', 1, 'two halves')
  appendFileSync(path, whole.slice(0, 12))
  await pumps(3)
  expect(rec.batches).toEqual([])
  expect(tl.total()).toBe(1)
  appendFileSync(path, whole.slice(12))
  await rec.untilEntries(1)
  await pumps(3)
  expect(rec.entries.map((e) => [e.id, e.seq, e.text])).toEqual([['half#0', 2, 'two halves']])
})

test('a multibyte character split across two writes decodes whole', async () => {
  const path = fresh()
  writeFileSync(path, '')
  const tl = await acquire(path, countingNormalizer, FAST)
  const rec = recorder()
  tl.onGrow(rec.grow)
  const text = 'héllo 漢字 🙂 end'
  const bytes = Buffer.from(line('mb', 1, text))
  const cut = bytes.indexOf(Buffer.from('🙂')) + 2 // inside the 4-byte emoji
  appendFileSync(path, bytes.subarray(0, cut))
  await pumps(3)
  expect(rec.batches).toEqual([])
  appendFileSync(path, bytes.subarray(cut))
  await rec.untilEntries(1)
  expect(rec.entries[0].text).toBe(text)
  expect((await tl.read(1, 1))[0].text).toBe(text)
})

test('truncate + rewrite fires onReset and re-indexes', async () => {
  const path = fresh()
  writeFileSync(path, line('a', 2) + line('b', 2) + line('c', 2))
  const tl = await acquire(path, countingNormalizer, FAST)
  const rec = recorder()
  tl.onGrow(rec.grow)
  tl.onReset(rec.reset)
  expect(tl.total()).toBe(6)
  truncateSync(path, 0)
  appendFileSync(path, line('x', 1, 'new'))
  await rec.untilResets(1)
  expect(tl.total()).toBe(1)
  expect(await tl.read(1, 10)).toEqual([{ id: 'x#0', role: 'assistant', kind: 'message', text: 'new', parsed: true, seq: 1 }])
  expect(rec.entries).toEqual([]) // nothing from the old file leaks out as growth
})

test('a same-size rewrite with a different head is caught by the fingerprint', async () => {
  const path = fresh()
  writeFileSync(path, line('aaaa', 1) + line('bbbb', 1))
  const tl = await acquire(path, countingNormalizer, FAST)
  const rec = recorder()
  tl.onReset(rec.reset)
  writeFileSync(path, line('cccc', 1) + line('dddd', 2)) // same length, same inode, new bytes
  await rec.untilResets(1)
  expect(tl.total()).toBe(3)
  expect((await tl.read(1, 3)).map((e) => e.id)).toEqual(['cccc#0', 'dddd#0', 'dddd#1'])
})

test('a file replaced by rename is re-indexed', async () => {
  const path = fresh()
  writeFileSync(path, line('old', 3))
  const tl = await acquire(path, countingNormalizer, FAST)
  const rec = recorder()
  tl.onReset(rec.reset)
  tl.onGrow(rec.grow)
  const next = path + '.tmp'
  writeFileSync(next, line('new1', 1) + line('new2', 1) + line('new3', 3))
  renameSync(next, path)
  await rec.untilResets(1)
  expect(tl.total()).toBe(5)
  expect((await tl.read(1, 5)).map((e) => e.id)).toEqual(['new1#0', 'new2#0', 'new3#0', 'new3#1', 'new3#2'])
  // and the tail follows the new file
  appendFileSync(path, line('after', 1))
  await rec.untilEntries(1)
  expect(rec.entries[0]).toMatchObject({ id: 'after#0', seq: 6 })
})

test('a deleted file keeps serving what is indexed, and re-indexes when it reappears', async () => {
  const path = fresh()
  writeFileSync(path, line('a', 2))
  const tl = await acquire(path, countingNormalizer, FAST)
  const rec = recorder()
  tl.onReset(rec.reset)
  unlinkSync(path)
  await waitFor(() => tl.missing(), 3000, 'missing')
  await pumps(2)
  expect(tl.total()).toBe(2)
  expect((await tl.read(1, 2)).map((e) => e.id)).toEqual(['a#0', 'a#1'])
  writeFileSync(path, line('z', 1))
  await rec.untilResets(1)
  expect(tl.missing()).toBe(false)
  expect((await tl.read(1, 5)).map((e) => e.id)).toEqual(['z#0'])
})

test('a missing file is a pending timeline that streams once it appears', async () => {
  const path = join(tmp.dir, 'not-yet', 'later.jsonl') // the directory does not exist either
  await expect(jsonl.acquire(path, countingNormalizer, FAST)).rejects.toMatchObject({ code: 'ENOENT' })
  const tl = await acquire(path, countingNormalizer, { ...FAST, allowMissing: true, watch: true })
  expect(tl.total()).toBe(0)
  expect(tl.missing()).toBe(true)
  expect(await tl.read(1, 150)).toEqual([])
  const rec = recorder()
  tl.onGrow(rec.grow)
  const { mkdirSync } = await import('node:fs')
  mkdirSync(join(tmp.dir, 'not-yet'))
  writeFileSync(path, line('first', 2))
  await rec.untilEntries(2)
  expect(rec.entries.map((e) => e.seq)).toEqual([1, 2])
  expect(tl.total()).toBe(2)
  expect(rec.resets).toBe(0)
})

test('two timelines on one file share one index and one tailer', async () => {
  const path = fresh()
  writeFileSync(path, line('a', 1))
  const seen = () => ({ ...jsonl.counters, ...jsonl.holding() })
  const before = seen()
  const t1 = await acquire(path, countingNormalizer, FAST)
  const t2 = await acquire(path, countingNormalizer, FAST)
  const after = seen()
  expect(after.indexBuilds - before.indexBuilds).toBe(1)
  expect(after.activeTailers - before.activeTailers).toBe(1)
  expect(after.heldFiles - before.heldFiles).toBe(1)
  const r1 = recorder()
  const r2 = recorder()
  t1.onGrow(r1.grow)
  t2.onGrow(r2.grow)
  appendFileSync(path, line('b', 1))
  await r1.untilEntries(1)
  await r2.untilEntries(1)
  expect(r1.entries).toEqual(r2.entries)
  // releasing one leaves the other streaming
  t1.release()
  expect(jsonl.counters.activeTailers - before.activeTailers).toBe(1)
  appendFileSync(path, line('c', 1))
  await r2.untilEntries(2)
  expect(r1.entries.length).toBe(1)
})

test('the last release stops the tailer; a warm re-acquire reuses the index', async () => {
  const path = fresh()
  writeFileSync(path, line('a', 1) + line('b', 1))
  const base = jsonl.counters.activeTailers
  const tl = await jsonl.acquire(path, countingNormalizer, FAST)
  expect(jsonl.counters.activeTailers).toBe(base + 1)
  tl.release()
  tl.release() // idempotent
  expect(jsonl.counters.activeTailers).toBe(base)
  expect(await tl.read(1, 2)).toEqual([])
  // no poll runs any more: the pass counter stays put over many poll intervals
  const pumpsAfter = jsonl.counters.pumps
  await new Promise((r) => setTimeout(r, 150))
  expect(jsonl.counters.pumps).toBe(pumpsAfter)
  // the index stayed warm: the file grew meanwhile, re-acquire extends without a rebuild
  appendFileSync(path, line('c', 2))
  const builds = jsonl.counters.indexBuilds
  const again = await acquire(path, countingNormalizer, FAST)
  expect(jsonl.counters.indexBuilds).toBe(builds)
  expect(again.total()).toBe(4)
  expect((await again.read(1, 4)).map((e) => e.id)).toEqual(['a#0', 'b#0', 'c#0', 'c#1'])
})

test('a cached index whose file changed while unwatched is rebuilt on re-acquire', async () => {
  const path = fresh()
  writeFileSync(path, line('a', 1) + line('b', 1))
  ;(await jsonl.acquire(path, countingNormalizer, FAST)).release()
  writeFileSync(path + '.x', line('q', 3))
  renameSync(path + '.x', path)
  const builds = jsonl.counters.indexBuilds
  const tl = await acquire(path, countingNormalizer, FAST)
  expect(jsonl.counters.indexBuilds).toBe(builds + 1)
  expect((await tl.read(1, 9)).map((e) => e.id)).toEqual(['q#0', 'q#1', 'q#2'])
})

test('an in-place edit the fingerprints miss is caught by the next read and re-indexed', async () => {
  const path = fresh()
  const pad = (id: string) => line(id, 1, 'p'.repeat(300)) // head/tail prints cover only these
  const before = line('mid', 1, 'xxxx')
  const after = JSON.stringify({ uuid: 'mid', n: 2, t: 'xxxx' }) + '\n'
  expect(Buffer.byteLength(after)).toBe(Buffer.byteLength(before))
  writeFileSync(path, pad('h') + before + pad('t'))
  const tl = await acquire(path, countingNormalizer, FAST)
  const rec = recorder()
  tl.onReset(rec.reset)
  expect(tl.total()).toBe(3)
  const fd = openSync(path, 'r+')
  writeSync(fd, after, Buffer.byteLength(pad('h')))
  closeSync(fd)
  await pumps(3) // the poll sees the mtime change but the prints still match
  expect(rec.resets).toBe(0)
  expect(await tl.read(2, 2)).toEqual([]) // the count disagrees: never a wrong entry
  await rec.untilResets(1)
  expect(tl.total()).toBe(4)
  expect((await tl.read(1, 4)).map((e) => e.id)).toEqual(['h#0', 'mid#0', 'mid#1', 't#0'])
})

test('the warm cache expires, is bounded, and can be disabled', async () => {
  jsonl.configure({ keepAliveMs: 30 })
  try {
    const p = fresh()
    writeFileSync(p, line('a', 1))
    ;(await jsonl.acquire(p, countingNormalizer, FAST)).release()
    expect(jsonl.holding().cachedFiles).toBe(1)
    await waitFor(() => jsonl.holding().cachedFiles === 0, 2000, 'keep-alive expiry')
  } finally {
    jsonl.configure({ keepAliveMs: 60_000 })
  }
  jsonl.configure({ maxFiles: 0 })
  try {
    const p = fresh()
    writeFileSync(p, line('a', 1))
    ;(await jsonl.acquire(p, countingNormalizer, FAST)).release()
    expect(jsonl.holding().cachedFiles).toBe(0)
  } finally {
    jsonl.configure({ maxFiles: 8 })
  }

  jsonl.configure({ maxFiles: 2 })
  try {
    const paths = [fresh(), fresh(), fresh()]
    for (const p of paths) writeFileSync(p, line('a', 1))
    for (const p of paths) (await jsonl.acquire(p, countingNormalizer, FAST)).release()
    expect(jsonl.holding().cachedFiles).toBe(2)
    const builds = jsonl.counters.indexBuilds
    ;(await jsonl.acquire(paths[0], countingNormalizer, FAST)).release() // evicted: rebuilt
    expect(jsonl.counters.indexBuilds).toBe(builds + 1)
    ;(await jsonl.acquire(paths[2], countingNormalizer, FAST)).release() // cached: not rebuilt
    expect(jsonl.counters.indexBuilds).toBe(builds + 1)
  } finally {
    jsonl.configure({ maxFiles: 8 })
  }
})

test('garbage, binary and malformed lines go to the normalizer; blank lines never do', async () => {
  const seen: string[] = []
  const spy: LineNormalizer = (l, off) => {
    seen.push(l)
    return countingNormalizer(l, off)
  }
  const path = fresh()
  const binary = Buffer.from([0xff, 0xfe, 0x00, 0x01, 0xc3]) // invalid UTF-8, a NUL, a lone lead byte
  const content = Buffer.concat([
    Buffer.from(line('a', 1) + '\n   \n\r\n{"uuid":"broken",\n' + 'plain words\n'),
    binary,
    Buffer.from('\n' + line('b', 0) + line('c', 1)),
  ])
  writeFileSync(path, content)
  const tl = await acquire(path, spy, FAST)
  expect(seen.length).toBe(6) // a, broken, plain, binary, b (0 entries), c
  expect(seen.some((l) => l.trim() === '')).toBe(false)
  expect(tl.total()).toBe(5)
  const all = await tl.read(1, 5)
  expect(all).toEqual(naiveEntries(content))
  expect(all.map((e) => e.parsed)).toEqual([true, false, false, false, true])
  expect(all[1].text).toBe('{"uuid":"broken",')
  expect(all[3].text).toContain('\ufffd')
})

test('a normalizer that throws or returns junk does not break the engine', async () => {
  const wild: LineNormalizer = (l, off) => {
    if (l.includes('boom')) throw new Error('boom')
    if (l.includes('junk')) return null as unknown as Draft[]
    return countingNormalizer(l, off)
  }
  const path = fresh()
  writeFileSync(path, line('a', 1) + 'boom\n' + 'junk\n' + line('b', 1))
  const tl = await acquire(path, wild, FAST)
  expect(tl.total()).toBe(3)
  const all = await tl.read(1, 3)
  expect(all.map((e) => [e.id, e.parsed, e.seq])).toEqual([
    ['a#0', true, 1],
    [`line@${Buffer.byteLength(line('a', 1))}#0`, false, 2],
    ['b#0', true, 3],
  ])
  expect(readFileSync(path, 'utf8').indexOf('boom')).toBe(Buffer.byteLength(line('a', 1)))
})

test('listeners that throw do not stop the tail or other listeners', async () => {
  const path = fresh()
  writeFileSync(path, '')
  const tl = await acquire(path, countingNormalizer, { ...FAST, log: () => {} })
  const rec = recorder()
  tl.onGrow(() => {
    throw new Error('bad listener')
  })
  tl.onGrow(rec.grow)
  appendFileSync(path, line('a', 1))
  await rec.untilEntries(1)
  appendFileSync(path, line('b', 1))
  await rec.untilEntries(2)
  expect(rec.entries.map((e) => e.seq)).toEqual([1, 2])
})

test('a read whose bytes vanished returns [] instead of throwing', async () => {
  const path = fresh()
  writeFileSync(path, line('a', 1) + line('b', 1, 'x'.repeat(100)))
  // no poll, no watch: the index does not know yet that the file shrank
  const tl = await acquire(path, countingNormalizer, { pollMs: 60_000, watch: false, log: () => {} })
  truncateSync(path, 10)
  expect(await tl.read(1, 2)).toEqual([])
})

test('an unsubscribed listener hears nothing more', async () => {
  const path = fresh()
  writeFileSync(path, '')
  const tl = await acquire(path, countingNormalizer, FAST)
  const gone = recorder()
  const kept = recorder()
  const off = tl.onGrow(gone.grow)
  tl.onGrow(kept.grow)
  off()
  appendFileSync(path, line('a', 1))
  await kept.untilEntries(1)
  expect(gone.batches).toEqual([])
})
