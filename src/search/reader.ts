// Who runs GET /search's query. FTS5's matching and ranking of a common word
// over a large index takes a good part of a second (16 common words over 200,000
// entries: over a second), and on the main thread every phone's socket, /events
// and card waited that long. A Bun Worker (read-worker.ts, its own read-only
// connection to the same file, WAL) runs it; the main thread only waits for its
// answer. A worker that cannot start (or an index kept in memory, which no other
// connection can see) leaves the queries on the main thread, as before, with a
// log line; so does one that stops later, and the queries it had are answered here.
import type { Hit, SearchFilter, SearchStore } from './store'

export interface IndexReader {
  /** the hits of a query, over everything committed before it was asked */
  search(match: string, f: SearchFilter): Promise<Hit[]>
  /** whether the queries run on another thread */
  readonly offThread: boolean
  close(): Promise<void>
}

/** The reader thread's entry, found as the writer's is (writer.ts): beside this file, or in the single binary. */
const READER_ENTRY = import.meta.url.includes('$bunfs') ? '/$bunfs/root/search/read-worker.js' : new URL('./read-worker.ts', import.meta.url).href

/** Messages to the reader thread. */
export type ToReader = { t: 'open'; path: string } | { t: 'search'; n: number; match: string; f: SearchFilter } | { t: 'close' }

/** Messages from the reader thread. */
export type FromReader =
  | { t: 'ready' }
  | { t: 'open-failed'; message: string }
  | { t: 'hits'; n: number; hits: Hit[] }
  | { t: 'failed'; n: number; message: string; code?: string }
  | { t: 'closed' }

/** The queries on this thread, on the store's own connection. */
export class InThreadReader implements IndexReader {
  readonly offThread = false
  constructor(private readonly store: SearchStore) {}
  async search(match: string, f: SearchFilter): Promise<Hit[]> {
    return this.store.search(match, f)
  }
  async close(): Promise<void> {}
}

interface Asked {
  match: string
  f: SearchFilter
  res: (hits: Hit[]) => void
  rej: (e: Error) => void
}

/**
 * The queries in a Worker, each a message answered by its number. Until the
 * worker says it has the file open, they wait here; if it cannot open it, or
 * stops, they (and every one after) run on this thread instead.
 */
export class WorkerReader implements IndexReader {
  private readonly worker: Worker
  private held: ToReader[] | undefined = []
  private fallback: InThreadReader | undefined
  private asked = new Map<number, Asked>()
  private next = 0
  /** the worker is let go by us (close, giveUp): its stopping is no failure */
  private stopping = false
  private closed: (() => void) | undefined

  constructor(
    private readonly store: SearchStore,
    private readonly log: (m: string) => void,
    url: string | URL = READER_ENTRY,
  ) {
    this.worker = new Worker(url)
    this.worker.onmessage = (ev: MessageEvent<FromReader>) => this.heard(ev.data)
    this.worker.onerror = (ev) => this.giveUp(ev.message ?? String(ev))
    // a worker that stops without an error would leave its queries unanswered
    this.worker.addEventListener('close', () => {
      if (!this.stopping) this.giveUp('it stopped')
    })
    this.worker.postMessage({ t: 'open', path: store.path } satisfies ToReader)
  }

  private heard(m: FromReader): void {
    if (m.t === 'ready') {
      const held = this.held ?? []
      this.held = undefined
      for (const x of held) this.worker.postMessage(x)
    } else if (m.t === 'open-failed') this.giveUp(m.message)
    else if (m.t === 'hits') {
      const a = this.asked.get(m.n)
      this.asked.delete(m.n)
      a?.res(m.hits)
    } else if (m.t === 'failed') {
      const a = this.asked.get(m.n)
      this.asked.delete(m.n)
      a?.rej(Object.assign(new Error(m.message), m.code ? { code: m.code } : {}))
    } else if (m.t === 'closed') this.closed?.()
  }

  /** The worker could not start or open the file, or stopped: its queries run here from now on. */
  private giveUp(why: string): void {
    if (this.fallback || this.stopping) return
    this.log(`search index: the reader thread could not start or stopped (${why}): querying on the main thread`)
    const here = new InThreadReader(this.store)
    this.fallback = here
    this.stopping = true
    this.worker.terminate()
    this.held = undefined
    const asked = this.asked
    this.asked = new Map()
    for (const a of asked.values()) here.search(a.match, a.f).then(a.res, a.rej)
  }

  get offThread(): boolean {
    return !this.fallback
  }

  search(match: string, f: SearchFilter): Promise<Hit[]> {
    if (this.fallback) return this.fallback.search(match, f)
    if (this.stopping) return Promise.reject(new Error('search index closed'))
    const n = ++this.next
    return new Promise((res, rej) => {
      this.asked.set(n, { match, f, res, rej })
      const m: ToReader = { t: 'search', n, match, f }
      if (this.held) this.held.push(m)
      else this.worker.postMessage(m)
    })
  }

  async close(): Promise<void> {
    if (this.fallback || this.stopping) return
    this.stopping = true
    for (const a of this.asked.values()) a.rej(new Error('search index closed'))
    this.asked.clear()
    if (!this.held) {
      const closed = new Promise<void>((res) => (this.closed = res))
      this.worker.postMessage({ t: 'close' } satisfies ToReader)
      // a worker that never answers is not waited for past a second
      await Promise.race([closed, new Promise((r) => setTimeout(r, 1000))])
    }
    this.worker.terminate()
  }
}

/** The worker when it can be had (a file on disk), otherwise this thread. */
export function indexReader(store: SearchStore, log: (m: string) => void, opts: { inThread?: boolean; url?: string } = {}): IndexReader {
  if (store.path === ':memory:' || opts.inThread) return new InThreadReader(store)
  try {
    return new WorkerReader(store, log, opts.url)
  } catch (e) {
    log(`search index: the reader thread could not start (${(e as Error)?.message ?? e}): querying on the main thread`)
    return new InThreadReader(store)
  }
}
