// One viewer's flood of searches (docs/bridge.md "Every past conversation"): a
// query's SQLite work (a term that matches nearly every entry costs about a
// second per 200,000 entries) runs on the reader thread, or on the main thread
// when that cannot be had, so queries run one at a time and only a few wait; the
// rest are refused at once (GET /search's 429), never queued as seconds of work.
import { afterEach, expect, test } from 'bun:test'
import { SEARCH_WAITING_MAX, SearchBusyError, type SearchIndex } from '../../src/search/search-index'
import { parseQuery } from '../../src/search/text'
import { tempDir } from '../support/harness'
import { historyHome } from '../support/history-home'
import { indexedAll, searchIndexOn } from '../support/search-index'

let index: SearchIndex | undefined
afterEach(async () => {
  await index?.close()
  index = undefined
})

test('a flood of searches: one runs, a few wait their turn and are answered, the rest refused at once', async () => {
  index = searchIndexOn(historyHome(), tempDir('gothalo-search-flood-'))
  await indexedAll(index)
  const q = parseQuery('the')!
  const alone = await index.search(q, { limit: 100 }, [])
  expect(alone.length).toBeGreaterThan(0)
  // all asked in one turn of the event loop, as a burst of requests arrives
  const asked = Array.from({ length: 30 }, () =>
    index!.search(q, { limit: 100 }, []).then(
      (r) => r,
      (e: unknown) => e,
    ),
  )
  const answers = await Promise.all(asked)
  const refused = answers.filter((a) => a instanceof SearchBusyError)
  const answered = answers.filter((a) => Array.isArray(a))
  expect(answered.length).toBe(1 + SEARCH_WAITING_MAX)
  expect(refused.length).toBe(30 - 1 - SEARCH_WAITING_MAX)
  for (const a of answered) expect(a).toEqual(alone)
  // the queue empties: the next search runs
  expect(await index.search(q, { limit: 100 }, [])).toEqual(alone)
})
