// The search index's reader thread (reader.ts): its own read-only connection to
// the index's file, running GET /search's FTS5 query (matching and ranking) so
// the main thread's event loop is not held while it runs. Each query sees what
// was committed before it was asked (the main thread waits for the writer's
// commit first).
import type { Database } from 'bun:sqlite'
import type { FromReader, ToReader } from './reader'
import { openReadOnly, searchHits } from './store'

declare const self: Worker
const say = (m: FromReader) => self.postMessage(m)
let db: Database | undefined

self.onmessage = (ev: MessageEvent<ToReader>) => {
  const m = ev.data
  if (m.t === 'open') {
    try {
      db = openReadOnly(m.path)
      say({ t: 'ready' })
    } catch (e) {
      say({ t: 'open-failed', message: (e as Error)?.message ?? String(e) })
    }
  } else if (m.t === 'search') {
    try {
      if (!db) throw new Error('the reader thread has no index open')
      say({ t: 'hits', n: m.n, hits: searchHits(db, m.match, m.f) })
    } catch (e) {
      const code = (e as { code?: unknown })?.code
      say({ t: 'failed', n: m.n, message: (e as Error)?.message ?? String(e), code: typeof code === 'string' ? code : undefined })
    }
  } else if (m.t === 'close') {
    db?.close()
    db = undefined
    say({ t: 'closed' })
  }
}
