// GET /search's FTS5 query runs on a reader thread (src/search/reader.ts): a
// heavy query no longer holds the event loop, it finds exactly what the query
// on the main thread finds, and sees every write committed before it; a reader
// that cannot start (or an index in memory) leaves the queries on the main
// thread, and one that dies mid-query leaves no query hanging.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { WorkerReader } from '../../src/search/reader'
import type { SearchIndex, SearchIndexDeps } from '../../src/search/search-index'
import { SearchStore } from '../../src/search/store'
import { parseQuery } from '../../src/search/text'
import { tempDir, waitFor } from '../support/harness'
import { historyHome } from '../support/history-home'
import { indexedAll, loggedSearchIndex } from '../support/search-index'

const h = historyHome()
const QUERIES = ['the', 'file', 'Bash', 'README', 'quick', '"to the"', 'tool']

const indexOn = (path: string, o: Partial<SearchIndexDeps> = {}) => loggedSearchIndex(h, path, o)
const found = async (i: SearchIndex) => {
  const out: string[] = []
  for (const q of QUERIES)
    for (const r of await i.search(parseQuery(q)!, { limit: 50 }, [])) out.push(`${q} ${r.agent_kind}:${r.session_id}#${r.seq} ${r.ts} ${r.role} ${r.snippet}`)
  for (const r of await i.search(parseQuery('the')!, { limit: 5, kind: 'pi' }, [])) out.push(`pi ${r.session_id}#${r.seq}`)
  return out
}

const reader = indexOn(join(tempDir('gothalo-search-reader-'), 'search.db'))
const here = indexOn(join(tempDir('gothalo-search-queries-here-'), 'search.db'), { inThreadQueries: true })
const broken = indexOn(join(tempDir('gothalo-search-noreader-'), 'search.db'), { readerUrl: join(tempDir('gothalo-search-noreader-'), 'no-such-reader.ts') })
const memory = indexOn(':memory:')
const dying = indexOn(join(tempDir('gothalo-search-dying-reader-'), 'search.db'), { readerUrl: join(import.meta.dir, '../support/dying-reader.ts') })
beforeAll(async () => {
  await Promise.all([indexedAll(reader.index), indexedAll(here.index)])
})
afterAll(async () => {
  await Promise.all([reader.index.close(), here.index.close(), broken.index.close(), memory.index.close(), dying.index.close()])
})

test('the reader thread finds exactly what the query on the main thread finds', async () => {
  expect(reader.index.queriesOffThread).toBe(true)
  expect(here.index.queriesOffThread).toBe(false)
  const a = await found(reader.index)
  expect(a.length).toBeGreaterThan(20)
  expect(a).toEqual(await found(here.index))
  expect(reader.logs).toEqual([])
})

test('a query on the reader thread sees every write committed before it was asked', async () => {
  const dir = tempDir('gothalo-search-reader-fresh-')
  const store = new SearchStore(join(dir, 'search.db'), () => {})
  const logs: string[] = []
  const r = new WorkerReader(store, (m) => logs.push(m))
  try {
    const f = store.addFile({ path: '/s', kind: 'claude', session_id: 's', project: '/p', title: 't', ino: 1, offset: 0, seq: 0, size: 0, mtime_ms: 0 })
    for (let i = 1; i <= 20; i++) {
      store.write([{ file: { ...f, seq: i }, entries: [{ seq: i, ts: i, role: 'user', text: `word${i}zz and the rest`, off: -1, nth: 0 }] }])
      store.commit()
      expect((await r.search(`"word${i}zz"`, { limit: 5 })).map((x) => x.rid % 2 ** 24)).toEqual([i])
      expect((await r.search('"zz and"', { limit: 50 })).length).toBe(i)
    }
    expect(r.offThread).toBe(true)
    expect(logs).toEqual([])
  } finally {
    await r.close()
    store.close()
  }
})

/** An index of `n` entries of many common words each (FTS5 ranks every one a query for them matches). */
function heavyIndex(path: string, n: number): void {
  const store = new SearchStore(path, () => {})
  const words = 'the and you for with this that from have are not but can all was use file code test run make'.split(' ')
  const f = store.addFile({ path: '/gone', kind: 'claude', session_id: 'g', project: '/p', title: 't', ino: 1, offset: 0, seq: 0, size: 0, mtime_ms: 0 })
  let seed = 1
  const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff
  for (let i = 0; i < n; i += 1000) {
    const entries = []
    for (let j = i + 1; j <= i + 1000; j++)
      entries.push({
        seq: j,
        ts: j,
        role: 'user',
        text: Array.from({ length: 150 }, () => words[Math.floor(next() * words.length)]).join(' '),
        off: -1,
        nth: 0,
      })
    store.write([{ file: { ...f, seq: i + 1000 }, entries }])
    store.commit()
  }
  while (store.mergeSome(4096)) {}
  store.close()
}

/** The longest a 1 ms timer waited while `f` ran (how long the event loop was held at once), and how long `f` took. */
async function heldWhile(f: () => Promise<unknown>): Promise<{ held: number; took: number }> {
  let held = 0
  let last = performance.now()
  const timer = setInterval(() => {
    const now = performance.now()
    held = Math.max(held, now - last)
    last = now
  }, 1)
  const t0 = performance.now()
  await f()
  const took = performance.now() - t0
  clearInterval(timer)
  return { held: Math.max(held, performance.now() - last), took }
}

test('a heavy query on the reader thread does not hold the event loop (on the main thread it held it the whole query)', async () => {
  const path = join(tempDir('gothalo-search-heavy-'), 'search.db')
  heavyIndex(path, 20_000)
  const off = indexOn(path)
  const on = indexOn(path, { inThreadQueries: true })
  try {
    const q = parseQuery('the and you for with this that from have are not but can all was use')!
    // warm both connections' caches, then measure
    await off.index.search(q, { limit: 20 }, [])
    await on.index.search(q, { limit: 20 }, [])
    expect(off.index.queriesOffThread).toBe(true)
    const mainThread = await heldWhile(() => on.index.search(q, { limit: 20 }, []))
    const readerThread = await heldWhile(() => off.index.search(q, { limit: 20 }, []))
    // the query is heavy enough to measure: on the main thread it held the loop nearly all its time
    expect(mainThread.took).toBeGreaterThan(60)
    expect(mainThread.held).toBeGreaterThan(mainThread.took * 0.7)
    // on the reader thread the timer kept running: held a small part of that at most (measured: ~1.5 %;
    // against the main thread's hold, so a busy machine slowing both does not make it fail)
    expect(readerThread.took).toBeGreaterThan(mainThread.took * 0.3)
    expect(readerThread.held).toBeLessThan(mainThread.held * 0.25)
  } finally {
    await Promise.all([off.index.close(), on.index.close()])
  }
}, 30_000)

test('a reader thread that cannot start: the queries run on the main thread, with a log line, and find the same', async () => {
  await indexedAll(broken.index)
  await waitFor(() => !broken.index.queriesOffThread, 5000)
  expect(broken.logs.some((l) => l.includes('reader thread could not start') && l.includes('main thread'))).toBe(true)
  expect(await found(broken.index)).toEqual(await found(here.index))
})

test('an index in memory: the queries run on the main thread (no other connection can see it), quietly, and find the same', async () => {
  expect(memory.index.queriesOffThread).toBe(false)
  await indexedAll(memory.index)
  expect(await found(memory.index)).toEqual(await found(here.index))
  expect(memory.logs).toEqual([])
})

test('a reader thread that dies mid-query: the query is answered from the main thread, and every one after', async () => {
  await indexedAll(dying.index)
  expect(dying.index.queriesOffThread).toBe(true)
  const first = await Promise.race([
    dying.index.search(parseQuery('quick')!, { limit: 50 }, []).then((r) => r.map((x) => x.session_id)),
    new Promise((r) => setTimeout(() => r('hung'), 3000)),
  ])
  expect(first).toContain(h.ids.pi)
  expect(dying.index.queriesOffThread).toBe(false)
  expect(dying.logs.some((l) => l.includes('reader thread') && l.includes('stopped') && l.includes('main thread'))).toBe(true)
  expect(await found(dying.index)).toEqual(await found(here.index))
})
