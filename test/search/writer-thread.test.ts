// The search index's FTS5 writes run on a Worker (src/search/writer.ts): the
// index it builds holds exactly what the same build on the main thread holds and
// finds the same; a writer thread that cannot start leaves the writes on the
// main thread, with a log line, and search still works.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import type { SearchIndex } from '../../src/search/search-index'
import { parseQuery } from '../../src/search/text'
import { tempDir, waitFor } from '../support/harness'
import { historyHome } from '../support/history-home'
import { indexedAll, loggedSearchIndex } from '../support/search-index'

const h = historyHome()
const QUERIES = ['the', 'file', 'Bash', 'README', 'quick', '"to the"', 'tool']

const indexOn = (dir: string, o: { inThreadWrites?: boolean; writerUrl?: string } = {}) => loggedSearchIndex(h, join(dir, 'search.db'), o)
const rows = (i: SearchIndex) => i.store.db.query('SELECT rowid, ts, role, off, nth FROM hits ORDER BY rowid').all()
const files = (i: SearchIndex) => i.store.db.query('SELECT id, path, ino, offset, seq, size FROM files ORDER BY id').all()
const found = async (i: SearchIndex) => {
  const out: string[] = []
  for (const q of QUERIES)
    for (const r of await i.search(parseQuery(q)!, { limit: 50 }, [])) out.push(`${q} ${r.agent_kind}:${r.session_id}#${r.seq} ${r.snippet}`)
  return out
}

const worker = indexOn(tempDir('gothalo-search-worker-'))
const here = indexOn(tempDir('gothalo-search-here-'), { inThreadWrites: true })
const broken = indexOn(tempDir('gothalo-search-broken-'), { writerUrl: join(tempDir('gothalo-search-nowriter-'), 'no-such-writer.ts') })
const dying = indexOn(tempDir('gothalo-search-dying-'), { writerUrl: join(import.meta.dir, '../support/dying-writer.ts') })
beforeAll(async () => {
  await Promise.all([indexedAll(worker.index), indexedAll(here.index)])
})
afterAll(async () => {
  await Promise.all([worker.index.close(), here.index.close(), broken.index.close(), dying.index.close()])
})

test('the writer thread builds the same index as the main thread, each file with its indexed size and inode, and finds the same', async () => {
  expect(worker.index.writesOffThread).toBe(true)
  expect(here.index.writesOffThread).toBe(false)
  expect(worker.index.counters.entriesWritten).toBeGreaterThan(20)
  expect(rows(worker.index)).toEqual(rows(here.index))
  expect(files(worker.index)).toEqual(files(here.index))
  const a = await found(worker.index)
  expect(a.length).toBeGreaterThan(20)
  expect(a).toEqual(await found(here.index))
  expect(worker.logs).toEqual([])
})

test('a writer thread that cannot start: the writes run on the main thread, with a log line, and search works', async () => {
  await indexedAll(broken.index)
  expect(broken.index.writesOffThread).toBe(false)
  expect(broken.logs.some((l) => l.includes('writer thread could not start') && l.includes('main thread'))).toBe(true)
  expect(rows(broken.index)).toEqual(rows(here.index))
  expect((await broken.index.search(parseQuery('quick')!, { limit: 50 }, [])).map((r) => r.session_id)).toContain(h.ids.pi)
})

test('a writer thread that dies (no error) with its writes not committed: queries do not hang; the writes go on on the main thread, what it lost indexed again', async () => {
  dying.index.start()
  await waitFor(() => {
    const p = dying.index.progress()
    return p.of >= 4 && p.files === p.of
  }, 10_000)
  // the query's sync is where it dies: answered, not waited on forever
  const first = await Promise.race([
    dying.index.search(parseQuery('quick')!, { limit: 50 }, []).then(() => 'answered'),
    new Promise((r) => setTimeout(() => r('hung'), 3000)),
  ])
  expect(first).toBe('answered')
  expect(dying.index.writesOffThread).toBe(false)
  expect(dying.logs.some((l) => l.includes('writer thread') && l.includes('main thread'))).toBe(true)
  await indexedAll(dying.index)
  expect(await found(dying.index)).toEqual(await found(here.index))
})
