// The search index's writes share one transaction while entries keep coming
// (src/search/store.ts): it is committed once nothing waits to be normalized or
// written, with no query and no close asking for it, so another connection (or
// a restart after a crash) sees every entry written.
import { Database } from 'bun:sqlite'
import { afterAll, expect, test } from 'bun:test'
import { join } from 'node:path'
import { tempDir, waitFor } from '../support/harness'
import { historyHome } from '../support/history-home'
import { indexedAll, searchIndexOn } from '../support/search-index'

const dir = tempDir('gothalo-search-commit-')
const index = searchIndexOn(historyHome(), dir)
afterAll(() => index.close())

test('every entry written is committed once the index is built, with no query and no close', async () => {
  await indexedAll(index)
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
