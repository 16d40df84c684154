// The on-disk index cache (index-store.ts) through the engine's public surface:
// a "restart" is a new IndexStore on the same directory with the in-memory
// registry dropped. Every way a saved index can stop describing its file, and
// every way a cache file can be bad, must end in a re-index and correct pages;
// an unchanged or only-grown file must not be read again.
import { afterAll, afterEach, describe, expect, test } from 'bun:test'
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { IndexStore } from '../../../src/transcript/jsonl/index-store'
import type { LineFold } from '../../../src/transcript/jsonl/normalizer'
import { JsonlFiles, type JsonlTimeline } from '../../../src/transcript/jsonl/timeline'

import { countingNormalizer, line, naiveEntries, tempDir } from './helpers'

/** this file's JSONL files: its own registry, as each app has its own */
const jsonl = new JsonlFiles()

const tmp = tempDir()
let n = 0
const held: JsonlTimeline[] = []
afterEach(() => {
  for (const tl of held.splice(0)) tl.release()
  jsonl.drop()
})
afterAll(() => tmp.cleanup())

const count = (t: string, o: number) => countingNormalizer(t, o).length
/** A fold whose facts are the number of lines seen: a restart must bring them back, not start at 0. */
const linesSeen: LineFold<{ n: number }> = {
  id: 'lines-seen/1',
  fresh: () => ({ n: 0 }),
  countAndFold: (t, o, f) => (f.n++, count(t, o)),
  fold: (_t, _o, f) => void f.n++,
  save: (f) => f.n,
  load: (s) => (typeof s === 'number' ? { n: s } : undefined),
}

function setup() {
  const dir = join(tmp.dir, `case-${++n}`)
  mkdirSync(dir)
  return { path: join(dir, 'session.jsonl'), cacheDir: join(dir, 'cache') }
}

function lines(from: number, to: number): string {
  let s = ''
  for (let i = from; i < to; i++) s += line(`u${i}`, (i % 3) + 1, 'x'.repeat(i % 50))
  return s
}

/** A bridge start: a fresh store on the directory, nothing in memory. */
async function start(
  path: string,
  cacheDir: string,
  opts: {
    stamp?: string
    maxFiles?: number
    maxBytes?: number
    logs?: string[]
    beforeAcquire?: (store: IndexStore) => Promise<void>
    saveAfterBuildMs?: number
  } = {},
) {
  jsonl.drop()
  const store = new IndexStore({
    dir: cacheDir,
    stamp: opts.stamp ?? 'test-code',
    maxFiles: opts.maxFiles,
    maxBytes: opts.maxBytes,
    log: (m) => opts.logs?.push(m),
  })
  await opts.beforeAcquire?.(store)
  const builds = jsonl.counters.indexBuilds
  const scanned = jsonl.counters.bytesScanned
  const tl = await jsonl.acquire(path, countingNormalizer, { count, fold: linesSeen, store, pollMs: 20, watch: false, saveAfterBuildMs: opts.saveAfterBuildMs })
  held.push(tl)
  return {
    tl,
    store,
    built: jsonl.counters.indexBuilds - builds,
    scanned: jsonl.counters.bytesScanned - scanned,
    loaded: store.counters.loads,
    /** release (saves the index) and wait for the write */
    async stop() {
      held.splice(held.indexOf(tl), 1)
      tl.release()
      await store.flush()
    },
  }
}

/** Every entry through pages of 7, compared with a naive read of the whole file. */
async function expectPagesRight(tl: JsonlTimeline, path: string) {
  const want = naiveEntries(readFileSync(path))
  expect(tl.total()).toBe(want.length)
  const got = []
  for (let s = 1; s <= tl.total(); s += 7) got.push(...(await tl.read(s, Math.min(tl.total(), s + 6))))
  expect(got).toEqual(want)
}

const cacheFileOf = (cacheDir: string) => {
  const names = readdirSync(cacheDir).filter((f) => f.endsWith('.idx'))
  expect(names.length).toBe(1)
  return join(cacheDir, names[0]!)
}

const factsOf = async (path: string) => {
  const view = await jsonl.heldFacts(path, countingNormalizer)
  if (!view) throw new Error(`${path} is not held`)
  return (view.facts as { n: number }).n
}

test('unchanged file: the restart loads the index and its facts and reads nothing of the file', async () => {
  const { path, cacheDir } = setup()
  writeFileSync(path, lines(0, 300))
  const a = await start(path, cacheDir)
  expect(a.built).toBe(1)
  await a.stop()
  expect(statSync(cacheFileOf(cacheDir)).mode & 0o777).toBe(0o600)
  const b = await start(path, cacheDir)
  expect({ built: b.built, scanned: b.scanned, loaded: b.loaded }).toEqual({ built: 0, scanned: 0, loaded: 1 })
  expect(await factsOf(path)).toBe(300)
  await expectPagesRight(b.tl, path)
})

test('grown file: extended from the saved end (only the new bytes are read), and the new end is saved', async () => {
  const { path, cacheDir } = setup()
  writeFileSync(path, lines(0, 200) + '{"uuid":"half","n":2') // a line still being written
  await (await start(path, cacheDir)).stop()
  const more = ',"t":"done"}\n' + lines(200, 260)
  appendFileSync(path, more)
  const b = await start(path, cacheDir)
  expect(b.built).toBe(0)
  expect(b.loaded).toBe(1)
  expect(b.scanned).toBe(Buffer.byteLength('{"uuid":"half","n":2' + more))
  expect(await factsOf(path)).toBe(261)
  await expectPagesRight(b.tl, path)
  await b.stop()
  const c = await start(path, cacheDir)
  expect({ built: c.built, scanned: c.scanned }).toEqual({ built: 0, scanned: 0 })
  await expectPagesRight(c.tl, path)
})

describe('an index just built', () => {
  /** a bridge start on a fresh file, its store's saves counted */
  async function counted(saveAfterBuildMs: number) {
    const { path, cacheDir } = setup()
    writeFileSync(path, lines(0, 50))
    const saves = { n: 0 }
    const a = await start(path, cacheDir, {
      saveAfterBuildMs,
      beforeAcquire: async (store) => {
        const save = store.save.bind(store)
        store.save = (...args) => (saves.n++, save(...args))
      },
    })
    expect(a.built).toBe(1)
    return { path, cacheDir, a, saves }
  }

  test("is not saved by the passes a first connect waits on (the roster's), but at release", async () => {
    const { path, cacheDir, a, saves } = await counted(60_000)
    expect(saves.n).toBe(0)
    await jsonl.heldFacts(path, countingNormalizer) // the roster's pass over the unchanged file
    await jsonl.heldFacts(path, countingNormalizer)
    expect(saves.n).toBe(0)
    await a.stop()
    expect(saves.n).toBe(1)
    const b = await start(path, cacheDir)
    expect({ built: b.built, loaded: b.loaded }).toEqual({ built: 0, loaded: 1 })
  })

  test('with no wait, is saved by the pass that built it, and once only', async () => {
    const { path, a, saves } = await counted(0)
    expect(saves.n).toBe(1)
    await jsonl.heldFacts(path, countingNormalizer)
    await a.stop()
    expect(saves.n).toBe(1) // nothing moved since: neither the next pass nor the release saves again
  })
})

/** Saves an index of `before`, changes the file with `change`, restarts: must re-index, and the pages must be right. */
async function expectReindex(change: (path: string) => void, reason: string) {
  const { path, cacheDir } = setup()
  writeFileSync(path, lines(0, 120))
  utimesSync(path, SAVED_MTIME, SAVED_MTIME) // whole seconds: a test can put it back exactly
  await (await start(path, cacheDir)).stop()
  change(path)
  const b = await start(path, cacheDir)
  expect(b.built).toBe(1)
  expect(b.store.counters.lastReject).toBe(reason)
  await expectPagesRight(b.tl, path)
  expect(await factsOf(path)).toBe(naiveLines(path))
}

const SAVED_MTIME = 1_764_000_000
const naiveLines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '').length

test('shrunk file → re-indexed', async () => {
  await expectReindex((p) => writeFileSync(p, lines(0, 50)), 'shorter than when saved')
})

test('replaced by another file (new inode), even with the same bytes → re-indexed', async () => {
  await expectReindex((p) => {
    copyFileSync(p, p + '.new')
    renameSync(p + '.new', p)
  }, 'another file at the path')
})

test('rewritten in place at the same size (mtime moved) → re-indexed', async () => {
  await expectReindex((p) => {
    const b = readFileSync(p)
    b[b.indexOf('"n":') + 4] = 0x33 // one line's n becomes 3
    writeFileSync(p, b)
    utimesSync(p, SAVED_MTIME + 5, SAVED_MTIME + 5)
  }, 'rewritten since saved')
})

test('first bytes changed, size and mtime put back → re-indexed (the head check)', async () => {
  await expectReindex((p) => {
    const b = readFileSync(p)
    b[10] = b[10] === 0x41 ? 0x42 : 0x41
    writeFileSync(p, b)
    utimesSync(p, SAVED_MTIME, SAVED_MTIME)
  }, 'first bytes changed')
})

test('bytes before the saved end changed, then grown → re-indexed (the tail check)', async () => {
  await expectReindex((p) => {
    const b = readFileSync(p)
    b[b.length - 5] = 0x5a
    writeFileSync(p, Buffer.concat([b, Buffer.from(lines(500, 510))]))
  }, 'bytes before the saved end changed')
})

/** Saves an index, spoils the cache file with `spoil`, restarts: must re-index, log once, and the pages must be right. */
async function expectIgnored(spoil: (cacheFile: string, cacheDir: string) => void | Promise<void>, reason: string) {
  const { path, cacheDir } = setup()
  writeFileSync(path, lines(0, 150))
  await (await start(path, cacheDir)).stop()
  await spoil(cacheFileOf(cacheDir), cacheDir)
  const logs: string[] = []
  const b = await start(path, cacheDir, { logs })
  expect(b.built).toBe(1)
  expect(b.store.counters.lastReject).toBe(reason)
  expect(logs.filter((l) => l.includes('index cache: ignored')).length).toBe(1)
  await expectPagesRight(b.tl, path)
  await b.stop() // and the rebuilt index replaces the bad file
  const c = await start(path, cacheDir)
  expect(c.built).toBe(0)
}

const flip = (f: string, at: (len: number) => number) => {
  const b = readFileSync(f)
  b[at(b.length)] ^= 0x01
  writeFileSync(f, b)
}

test('a cache file with a flipped bit in its rows → ignored (checksum), rebuilt', async () => {
  await expectIgnored((f) => flip(f, (len) => len - 40), 'checksum mismatch')
})

test('a cache file with a flipped bit in its header → ignored, rebuilt', async () => {
  await expectIgnored((f) => flip(f, () => 30), 'checksum mismatch')
})

test('a truncated cache file → ignored, rebuilt', async () => {
  await expectIgnored((f) => writeFileSync(f, readFileSync(f).subarray(0, 100)), 'checksum mismatch')
})

test('an empty or garbage cache file → ignored, rebuilt', async () => {
  await expectIgnored((f) => writeFileSync(f, ''), 'not an index cache file')
  await expectIgnored((f) => writeFileSync(f, 'GTHIDX01 but then nonsense'), 'checksum mismatch')
})

test('a well-formed cache file of another transcript at this name (foreign) → ignored, rebuilt', async () => {
  await expectIgnored(async (f, cacheDir) => {
    const other = join(cacheDir, '..', 'other.jsonl')
    writeFileSync(other, lines(0, 150))
    const o = await start(other, cacheDir)
    await o.stop()
    const otherFile = readdirSync(cacheDir)
      .map((x) => join(cacheDir, x))
      .find((x) => x !== f && x.endsWith('.idx'))!
    copyFileSync(otherFile, f) // same normalizer, same fold, same row count: only the header's path tells
  }, 'written for another transcript')
})

/** Recomputes a cache file's checksum, as a writer would (forged files that are whole). */
function resum(b: Buffer): Buffer {
  b.writeBigUInt64LE(Bun.hash.wyhash(b.subarray(0, b.length - 8), 0n), b.length - 8)
  return b
}

test('a whole cache file whose rows are out of shape → ignored, rebuilt', async () => {
  await expectIgnored((f) => {
    const b = readFileSync(f)
    b.writeDoubleLE(1, b.length - 16) // the last row's cumulative count goes backwards
    writeFileSync(f, resum(b))
  }, 'row 149 out of shape')
})

test('a cache written by other code → ignored, rebuilt', async () => {
  const { path, cacheDir } = setup()
  writeFileSync(path, lines(0, 80))
  await (await start(path, cacheDir, { stamp: 'old-build' })).stop()
  const b = await start(path, cacheDir, { stamp: 'new-build' })
  expect(b.built).toBe(1)
  expect(b.store.counters.lastReject).toBe('written by other code')
  await expectPagesRight(b.tl, path)
})

test('facts the fold cannot load → ignored, rebuilt', async () => {
  await expectIgnored((f) => {
    const text = readFileSync(f).toString('latin1')
    writeFileSync(
      f,
      resum(
        Buffer.from(
          text.replace(/"facts":(\d+)/, (_m, d: string) => `"facts":"${'x'.repeat(d.length - 2)}"`),
          'latin1',
        ),
      ),
    )
  }, 'facts not readable by this fold')
})

test('the cache directory stays within its bounds: least recently used entries are evicted', async () => {
  const { cacheDir } = setup()
  const paths: string[] = []
  for (let i = 0; i < 5; i++) {
    const p = join(cacheDir, '..', `s${i}.jsonl`)
    writeFileSync(p, lines(0, 40 + i))
    paths.push(p)
    const s = await start(p, cacheDir, { maxFiles: 3 })
    await s.stop()
    await s.store.evict()
  }
  const names = readdirSync(cacheDir).filter((f) => f.endsWith('.idx'))
  expect(names.length).toBe(3)
  // the two oldest are gone, the three newest kept
  const store = new IndexStore({ dir: cacheDir, stamp: 'test-code' })
  expect(paths.map((p) => existsSync(store.fileOf(p, 'countingNormalizer|lines-seen/1')))).toEqual([false, false, true, true, true])
  // a load counts as a use: s2, loaded now, outlives s3 when s0 comes back
  const s2 = await start(paths[2]!, cacheDir, { maxFiles: 3 })
  expect(s2.built).toBe(0)
  await s2.stop()
  const s0 = await start(paths[0]!, cacheDir, { maxFiles: 3 })
  expect(s0.built).toBe(1)
  await s0.stop()
  await s0.store.evict()
  expect(paths.map((p) => existsSync(store.fileOf(p, 'countingNormalizer|lines-seen/1')))).toEqual([true, false, true, false, true])
  // a byte bound too: one entry's worth keeps one entry
  const one = statSync(join(cacheDir, readdirSync(cacheDir)[0]!)).size
  const s = await start(paths[4]!, cacheDir, { maxBytes: one + 100 })
  await s.store.evict()
  const left = readdirSync(cacheDir).filter((f) => f.endsWith('.idx'))
  expect(left.reduce((sum, f) => sum + statSync(join(cacheDir, f)).size, 0)).toBeLessThanOrEqual(one + 100)
})

describe('read ahead at start', () => {
  const KEY = 'countingNormalizer|lines-seen/1'
  /** Three saved transcripts, r2 used last, r0 first; the size of r2's cache file. */
  async function three() {
    const { cacheDir } = setup()
    const files = new IndexStore({ dir: cacheDir })
    const paths = [0, 1, 2].map((i) => join(cacheDir, '..', `r${i}.jsonl`))
    for (const [i, p] of paths.entries()) {
      writeFileSync(p, lines(0, 60 + i))
      await (await start(p, cacheDir)).stop()
      utimesSync(files.fileOf(p, KEY), new Date(1_000_000 * (i + 1)), new Date(1_000_000 * (i + 1)))
    }
    const cacheOf = (i: number) => files.fileOf(paths[i]!, KEY)
    return { cacheDir, paths, cacheOf, size: statSync(cacheOf(2)).size }
  }

  test('the most recently used cache files within the budget are read, and the first load of one uses those bytes', async () => {
    const { cacheDir, paths, cacheOf, size } = await three()
    const b = await start(paths[2]!, cacheDir, {
      beforeAcquire: async (store) => {
        expect(await store.readAhead(size + 10, 60_000)).toBe(1) // a budget for one: the one used last
        writeFileSync(cacheOf(2), 'spoilt on disk after the read ahead')
      },
    })
    expect([b.built, b.loaded, b.scanned]).toEqual([0, 1, 0])
    await expectPagesRight(b.tl, paths[2]!)
    await b.stop()
  })

  test('a file left out by the budget, or read ahead but not loaded in time, is read from disk (and checked) when loaded', async () => {
    const { cacheDir, paths, cacheOf, size } = await three()
    const notRead = await start(paths[0]!, cacheDir, {
      beforeAcquire: async (store) => {
        expect(await store.readAhead(size + 10, 60_000)).toBe(1)
        writeFileSync(cacheOf(0), 'spoilt on disk')
      },
    })
    expect([notRead.built, notRead.store.counters.lastReject]).toEqual([1, 'not an index cache file'])
    const again = await three()
    const expired = await start(again.paths[1]!, again.cacheDir, {
      beforeAcquire: async (store) => {
        expect(await store.readAhead(10 * again.size, 0)).toBe(3)
        await new Promise((res) => setTimeout(res, 1)) // after the let-go timer (0 ms), which was set first
        writeFileSync(again.cacheOf(1), 'spoilt on disk')
      },
    })
    expect([expired.built, expired.store.counters.lastReject]).toEqual([1, 'not an index cache file'])
    await expectPagesRight(expired.tl, again.paths[1]!)
  })
})

test('a cache directory that cannot be written: serving goes on, one log line', async () => {
  const { path, cacheDir } = setup()
  writeFileSync(cacheDir, 'a file where the directory should be')
  writeFileSync(path, lines(0, 60))
  const logs: string[] = []
  const a = await start(path, cacheDir, { logs })
  await expectPagesRight(a.tl, path)
  await a.stop()
  expect(logs.filter((l) => l.startsWith('index cache: cannot write')).length).toBe(1)
  expect(existsSync(join(cacheDir, 'x'))).toBe(false)
})
