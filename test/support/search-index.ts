// A SearchIndex over a fixture home, built straight from its parts (no app), and
// a wait for it to hold every session to its end.
import { join } from 'node:path'
import { SessionFinder } from '../../src/projects/listing'
import { rootsOf } from '../../src/projects/roots'
import { SearchIndex, type SearchIndexDeps } from '../../src/search/search-index'
import { SearchStore } from '../../src/search/store'
import { JsonlFiles } from '../../src/transcript/jsonl/timeline'
import { createSources } from '../../src/transcript/sources'
import { waitFor } from './harness'
import type { HistoryHome } from './history-home'

export function searchIndexOn(h: HistoryHome, dir: string): SearchIndex {
  return searchIndexParts(h, dir).index
}

/** The index and the parts it shares with the transcripts (a socket opens its sessions through `sources`). */
export function searchIndexParts(h: HistoryHome, dir: string, finder: SessionFinder = new SessionFinder(h.homes), pollMs = 50) {
  const jsonl = new JsonlFiles()
  const sources = createSources(h.homes, { jsonl, log: () => {} })
  const index = new SearchIndex({
    store: new SearchStore(join(dir, 'search.db'), () => {}),
    finder,
    roots: rootsOf([h.home]),
    sources,
    jsonl,
    log: () => {},
    pollMs,
    flushMs: 10,
  })
  return { index, jsonl, sources, finder }
}

/** A SearchIndex on the SQLite file `path` (or ':memory:') whose log lines are kept in `logs`; `o` over the defaults. */
export function loggedSearchIndex(h: HistoryHome, path: string, o: Partial<SearchIndexDeps> = {}) {
  const jsonl = new JsonlFiles()
  const logs: string[] = []
  const index = new SearchIndex({
    store: new SearchStore(path, (m) => logs.push(m)),
    finder: new SessionFinder(h.homes),
    roots: rootsOf([h.home]),
    sources: createSources(h.homes, { jsonl, log: () => {} }),
    jsonl,
    log: (m) => logs.push(m),
    pollMs: 50,
    flushMs: 10,
    ...o,
  })
  return { index, logs }
}

/** Starts the index and resolves once every session (of at least `sessions`) is indexed to its end. */
export async function indexedAll(index: SearchIndex, sessions = 4): Promise<void> {
  index.start()
  await waitFor(() => {
    const p = index.progress()
    return p.of >= sessions && p.files === p.of
  }, 10_000)
  await index.settled()
}
