// Who writes the search index. FTS5's trigram inserts were most of the initial
// build's CPU, on the thread that also parses and normalizes the sessions; a
// Bun Worker (write-worker.ts, its own connection to the same file, WAL) takes
// the writes, commits and merges onto the second core, in the order they were
// asked for. The main thread's connection only reads (queries). A worker that
// cannot start (or an index kept in memory, which no other connection can see)
// leaves the writes on the main thread, as before, with a log line.
import { isDiskFull, type FileRow, type IndexedEntry, type SearchStore } from './store'

export type Batch = { file: FileRow; entries: IndexedEntry[] }[]

/** A write that failed: the index is incomplete (disk full), nothing else is. */
export type WriteFailed = (message: string, diskFull: boolean, stack?: string) => void

export interface IndexWriter {
  addFile(f: Omit<FileRow, 'id'>): FileRow
  dropFile(id: number, keepFile?: boolean): void
  write(batch: Batch): void
  commit(): void
  /** merges the index's segments, at most `slices` slices of ~256 pages, between other writes */
  compact(slices: number): void
  readonly compacting: boolean
  /** whether the writes run on another thread */
  readonly offThread: boolean
  /** resolves once fewer than `bytes` of text sent wait to be written (the pass waits: no unbounded queue) */
  room(bytes: number): Promise<void>
  /** resolves once everything asked before is written and committed (a query then sees it) */
  settled(): Promise<void>
  close(): Promise<void>
}

/**
 * The writer thread's entry: beside this file; in the single binary (where it
 * is an entrypoint of its own, package.json "build"), at its path under the
 * entrypoints' common folder (src/), which is the binary's own root.
 */
const WRITER_ENTRY = import.meta.url.includes('$bunfs') ? '/$bunfs/root/search/write-worker.js' : new URL('./write-worker.ts', import.meta.url).href

/** Messages to the worker. */
export type ToWorker =
  | { t: 'open'; path: string; maxPages?: number }
  | { t: 'add'; f: FileRow }
  | { t: 'drop'; id: number; keepFile: boolean }
  | { t: 'write'; batch: Batch }
  | { t: 'commit' }
  | { t: 'compact'; slices: number }
  | { t: 'sync'; n: number }
  | { t: 'close'; n: number }

/** Messages from the worker. */
export type FromWorker =
  | { t: 'ready' }
  | { t: 'open-failed'; message: string }
  | { t: 'failed'; message: string; diskFull: boolean; stack?: string }
  | { t: 'compacted' }
  | { t: 'synced'; n: number }
  | { t: 'wrote'; bytes: number }

/** The text a batch carries (what the writer's backlog counts). */
export function textBytes(batch: Batch): number {
  let n = 0
  for (const b of batch) for (const e of b.entries) n += e.text.length
  return n
}

/** Runs one write, reporting a failure rather than throwing. */
export function guarded<T>(failed: WriteFailed, f: () => T): T | undefined {
  try {
    return f()
  } catch (e) {
    failed((e as Error)?.message ?? String(e), isDiskFull(e), (e as Error)?.stack)
    return undefined
  }
}

/** The writes on this thread, on the store's own connection. */
export class InThreadWriter implements IndexWriter {
  readonly offThread = false
  private merges = 0
  private mergeTimer: ReturnType<typeof setTimeout> | undefined

  constructor(
    private readonly store: SearchStore,
    private readonly failed: WriteFailed,
    /** whether other work waits (merging yields to it) */
    private readonly busy: () => boolean = () => false,
  ) {}

  addFile(f: Omit<FileRow, 'id'>): FileRow {
    return this.store.addFile(f)
  }
  dropFile(id: number, keepFile = false): void {
    guarded(this.failed, () => this.store.dropFile(id, keepFile))
  }
  write(batch: Batch): void {
    guarded(this.failed, () => this.store.write(batch))
  }
  commit(): void {
    guarded(this.failed, () => this.store.commit())
  }
  compact(slices: number): void {
    this.merges = slices
    this.mergeSoon()
  }
  get compacting(): boolean {
    return this.merges > 0
  }
  private mergeSoon(): void {
    if (this.merges <= 0 || this.mergeTimer) return
    this.mergeTimer = setTimeout(() => {
      this.mergeTimer = undefined
      if (this.busy()) return this.mergeSoon()
      this.merges--
      if (guarded(this.failed, () => this.store.mergeSome()) !== true) this.merges = 0
      this.mergeSoon()
    }, 0)
  }
  async room(): Promise<void> {}
  async settled(): Promise<void> {}
  async close(): Promise<void> {
    this.merges = 0
    clearTimeout(this.mergeTimer)
  }
}

/**
 * The writes in a Worker. File ids are given here (the next after the highest
 * known), so adding a file needs no answer; every other write is a message, in
 * order. Until the worker says it has the file open, the writes wait here; if
 * it cannot open it, they are run on this thread instead, and so is everything
 * after.
 */
export class WorkerWriter implements IndexWriter {
  private readonly worker: Worker
  private nextId: number
  private held: ToWorker[] | undefined = []
  private fallback: InThreadWriter | undefined
  private merging = false
  private syncs = 0
  private readonly waiting = new Map<number, () => void>()
  /** bytes of text sent, not written yet */
  private backlog = 0
  private roomWaiters: { bytes: number; res: () => void }[] = []
  /** the worker is let go by us (close, giveUp): its stopping is no failure */
  private stopping = false

  constructor(
    private readonly store: SearchStore,
    private readonly failed: WriteFailed,
    private readonly log: (m: string) => void,
    opts: { maxPages?: number; url?: string | URL; lost?: () => void } = {},
  ) {
    this.lost = opts.lost
    this.nextId = 1 + Math.max(0, ...store.files().map((f) => f.id))
    this.worker = new Worker(opts.url ?? WRITER_ENTRY)
    this.worker.onmessage = (ev: MessageEvent<FromWorker>) => this.heard(ev.data)
    this.worker.onerror = (ev) => this.giveUp(ev.message ?? String(ev))
    // a worker that stops without an error would leave every query waiting for its sync
    this.worker.addEventListener('close', () => {
      if (!this.stopping) this.giveUp('it stopped')
    })
    this.worker.postMessage({ t: 'open', path: store.path, maxPages: opts.maxPages } satisfies ToWorker)
  }

  /** told when the worker is gone: what it had not committed is lost */
  private readonly lost: (() => void) | undefined

  private heard(m: FromWorker): void {
    if (m.t === 'ready') {
      const held = this.held ?? []
      this.held = undefined
      for (const x of held) this.worker.postMessage(x)
    } else if (m.t === 'open-failed') this.giveUp(m.message)
    else if (m.t === 'failed') this.failed(m.message, m.diskFull, m.stack)
    else if (m.t === 'compacted') this.merging = false
    else if (m.t === 'wrote') {
      this.backlog -= m.bytes
      this.roomWaiters = this.roomWaiters.filter((w) => (this.backlog < w.bytes ? (w.res(), false) : true))
    } else if (m.t === 'synced') {
      for (const [n, res] of this.waiting)
        if (n <= m.n) {
          this.waiting.delete(n)
          res()
        }
    }
  }

  /** The worker could not start or open the file: its writes run here from now on. */
  private giveUp(why: string): void {
    if (this.fallback) return
    this.log(`search index: the writer thread could not start or stopped (${why}): writing on the main thread`)
    this.fallback = new InThreadWriter(this.store, this.failed)
    this.stopping = true
    this.worker.terminate()
    const held = this.held ?? []
    this.held = undefined
    for (const m of held) this.runHere(m)
    // the worker's open transaction died with it: the index goes on from what the file holds
    this.lost?.()
    this.merging = false
    for (const res of this.waiting.values()) res()
    this.waiting.clear()
    this.backlog = 0
    for (const w of this.roomWaiters) w.res()
    this.roomWaiters = []
  }

  private runHere(m: ToWorker): void {
    const w = this.fallback!
    if (m.t === 'add') guarded(this.failed, () => this.store.insertFile(m.f))
    else if (m.t === 'drop') w.dropFile(m.id, m.keepFile)
    else if (m.t === 'write') w.write(m.batch)
    else if (m.t === 'commit') w.commit()
    else if (m.t === 'compact') w.compact(m.slices)
  }

  private send(m: ToWorker): void {
    if (this.fallback) this.runHere(m)
    else if (this.held) this.held.push(m)
    else this.worker.postMessage(m)
  }

  addFile(f: Omit<FileRow, 'id'>): FileRow {
    const row = { ...f, id: this.nextId++ }
    this.send({ t: 'add', f: row })
    return row
  }
  dropFile(id: number, keepFile = false): void {
    this.send({ t: 'drop', id, keepFile })
  }
  write(batch: Batch): void {
    if (!this.fallback) this.backlog += textBytes(batch)
    this.send({ t: 'write', batch })
  }
  commit(): void {
    this.send({ t: 'commit' })
  }
  compact(slices: number): void {
    if (!this.fallback) this.merging = true
    this.send({ t: 'compact', slices })
  }
  get offThread(): boolean {
    return !this.fallback
  }
  get compacting(): boolean {
    return this.fallback ? this.fallback.compacting : this.merging
  }
  room(bytes: number): Promise<void> {
    if (this.fallback || this.backlog < bytes) return Promise.resolve()
    return new Promise((res) => this.roomWaiters.push({ bytes, res }))
  }
  settled(): Promise<void> {
    if (this.fallback) return Promise.resolve()
    const n = ++this.syncs
    return new Promise((res) => {
      this.waiting.set(n, res)
      this.send({ t: 'sync', n })
    })
  }
  async close(): Promise<void> {
    if (this.fallback) return this.fallback.close()
    const n = ++this.syncs
    const closed = new Promise<void>((res) => this.waiting.set(n, res))
    this.stopping = true
    this.send({ t: 'close', n })
    // a worker that never answers is not waited for past a few seconds
    await Promise.race([closed, new Promise((r) => setTimeout(r, 5000))])
    this.worker.terminate()
  }
}

/** The worker when it can be had (a file on disk), otherwise this thread. */
export function indexWriter(
  store: SearchStore,
  failed: WriteFailed,
  log: (m: string) => void,
  busy: () => boolean,
  opts: { inThread?: boolean; url?: string; lost?: () => void } = {},
): IndexWriter {
  if (store.path === ':memory:' || opts.inThread) return new InThreadWriter(store, failed, busy)
  try {
    return new WorkerWriter(store, failed, log, { maxPages: store.maxPages, url: opts.url, lost: opts.lost })
  } catch (e) {
    log(`search index: the writer thread could not start (${(e as Error)?.message ?? e}): writing on the main thread`)
    return new InThreadWriter(store, failed, busy)
  }
}
