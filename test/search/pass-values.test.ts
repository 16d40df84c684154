// A Claude session's lines reach the search index as the transcript's index pass
// parsed them (one JSON.parse for the count, the roster facts and the search
// text): the index holds exactly what it holds when the tap normalizes each
// line's own bytes, and finds the same.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import type { SearchIndex } from '../../src/search/search-index'
import { parseQuery } from '../../src/search/text'
import { normalizeClaudeLine } from '../../src/transcript/kinds/claude/normalize'
import { tempDir } from '../support/harness'
import { historyHome } from '../support/history-home'
import { indexedAll, searchIndexOn } from '../support/search-index'

const h = historyHome()
const rows = (i: SearchIndex) => i.store.db.query('SELECT rowid, ts, role, off, nth FROM hits ORDER BY rowid').all()
const QUERIES = ['the', 'file', 'Bash', 'README', 'test', '"to the"', 'tool']
const found = async (i: SearchIndex) => {
  const out: string[] = []
  for (const q of QUERIES)
    for (const r of await i.search(parseQuery(q)!, { limit: 50 }, [])) out.push(`${q} ${r.agent_kind}:${r.session_id}#${r.seq} ${r.snippet}`)
  return out
}

let byValue: SearchIndex
let byBytes: SearchIndex
beforeAll(async () => {
  byValue = searchIndexOn(h, tempDir('gothalo-search-values-'))
  await indexedAll(byValue)
  // the same home with no value path: each line normalized from its own bytes
  const fromJson = normalizeClaudeLine.fromJson
  normalizeClaudeLine.fromJson = undefined
  try {
    byBytes = searchIndexOn(h, tempDir('gothalo-search-bytes-'))
    await indexedAll(byBytes)
  } finally {
    normalizeClaudeLine.fromJson = fromJson
  }
})
afterAll(async () => {
  await byValue?.close()
  await byBytes?.close()
})

test("the pass's parsed values give the index the same entries and the same hits as each line's bytes", async () => {
  expect(byValue.counters.valuesTaken).toBeGreaterThan(10)
  expect(byBytes.counters.valuesTaken).toBe(0)
  expect(byValue.counters.entriesWritten).toBe(byBytes.counters.entriesWritten)
  expect(rows(byValue)).toEqual(rows(byBytes))
  const a = await found(byValue)
  expect(a.length).toBeGreaterThan(20)
  expect(a).toEqual(await found(byBytes))
})
