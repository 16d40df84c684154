// The search index's writes share one transaction while entries keep coming
// (src/search/store.ts): it is committed once nothing waits to be normalized or
// written, with no query and no close asking for it, so another connection (or
// a restart after a crash) sees every entry written.
import { Database } from 'bun:sqlite'
import { afterAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { SessionFinder } from '../../src/projects/listing'
import { rootsOf } from '../../src/projects/roots'
import { SearchIndex } from '../../src/search/search-index'
import { SearchStore } from '../../src/search/store'
import { JsonlFiles } from '../../src/transcript/jsonl/timeline'
import { createSources } from '../../src/transcript/sources'
import { tempDir, waitFor } from '../support/harness'
import { historyHome } from '../support/history-home'

const h = historyHome()
const dir = tempDir('gothalo-search-commit-')
const jsonl = new JsonlFiles()
const index = new SearchIndex({
  store: new SearchStore(join(dir, 'search.db'), () => {}),
  finder: new SessionFinder(h.homes),
  roots: rootsOf([h.home]),
  sources: createSources(h.homes, { jsonl, log: () => {} }),
  jsonl,
  log: () => {},
  pollMs: 50,
  flushMs: 10,
})
afterAll(() => index.close())

test('every entry written is committed once the index is built, with no query and no close', async () => {
  index.start()
  await waitFor(() => {
    const p = index.progress()
    return p.of >= 4 && p.files === p.of
  }, 10_000)
  const written = index.counters.entriesWritten
  expect(written).toBeGreaterThan(20)
  const other = new Database(join(dir, 'search.db'), { readonly: true })
  try {
    await waitFor(() => (other.query('SELECT count(*) AS n FROM hits').get() as { n: number }).n === written, 2000, 'every entry committed')
    expect(index.store.db.inTransaction).toBe(false)
  } finally {
    other.close()
  }
})
