// One transcript file as the engine sees it: its index, an open descriptor, and
// its tailer (a watch on the parent directory as a hint plus the contract's
// 250 ms poll, both calling one serialized, idempotent pump()). Shared by every
// timeline on the file; the registry (timeline.ts) counts the references.
import { watch, type FSWatcher } from 'node:fs'
import { constants } from 'node:fs'
import { open, realpath, stat, type FileHandle } from 'node:fs/promises'
import { basename, dirname, sep } from 'node:path'
import { LIMITS, placed, type Draft, type Entry } from '../entry'
import type { IndexStore } from './index-store'
import { tooLarge } from './normalizer'
import { LineIndex, amendSafely, countSafely, indexLines, normalizeBytes } from './line-index'
import { ReadBuffer } from './read-buffer'
import { RecentEntries } from './recent-entries'
import type { LineCounter, LineFold, LineNormalizer } from './normalizer'

/** What a registry of JSONL files counts (its own: each app has its own registry). */
export type JsonlCounters = ReturnType<typeof newJsonlCounters>

export const newJsonlCounters = () => ({
  /** scans that started at byte 0 (a cold build or a re-index after a reset) */
  indexBuilds: 0,
  /** tailers (poll timers) running now */
  activeTailers: 0,
  /** pump passes run (each poll tick, watch hint or acquire runs one) */
  pumps: 0,
  /** bytes read by index scans */
  bytesScanned: 0,
  /** chunks an index scan read while it indexed the chunk before */
  chunksReadAhead: 0,
  /** turns an index scan gave the event loop between chunks read ahead (one per turnEveryBytes) */
  scanTurns: 0,
  /** re-indexes caused by a shrink, a replacement or changed bytes */
  resets: 0,
  /** files whose counter disagreed with their normalizer at read time (now indexed by the normalizer) */
  counterDistrusted: 0,
  /** read() calls served */
  reads: 0,
  /** read() calls served from the entries normalized lately, with no file read */
  recentHits: 0,
  /** pages read ahead of a request (prefetch) */
  prefetches: 0,
  /** read() calls that waited for a read ahead of them instead of reading the file again */
  aheadWaits: 0,
  /** the largest buffer a scan allocated to hold one line (bounded by maxLineBytes) */
  maxLineBuffer: 0,
})

/** A line longer than this is not read: it becomes one entry marked too large (tooLarge). */
export const MAX_LINE_BYTES = 8 * 1024 * 1024

export interface JsonlFileOptions {
  /** tail poll interval; the contract says 250 ms */
  pollMs?: number
  /** also watch the parent directory for a prompt reaction (default true) */
  watch?: boolean
  /** the buffer page reads borrow (a registry shares one among its files; default: the file's own) */
  readBuffer?: ReadBuffer
  /** bytes per read while scanning (default 2 MiB) */
  chunkBytes?: number
  /**
   * bytes an index pass scans between two turns it gives the event loop
   * (default 6 MiB: ~15 ms of parsing; chunks read ahead need not wait for one)
   */
  turnEveryBytes?: number
  /** where transient errors go (default console.warn) */
  log?: (message: string) => void
  /**
   * Counts a line's entries without building them, for index scans (the
   * normalizer's companion; must equal normalize(line).length). Reads and the
   * live tail always normalize. Default: normalize and count.
   */
  count?: LineCounter
  /** lines longer than this are skipped as too large (default MAX_LINE_BYTES) */
  maxLineBytes?: number
  /**
   * The agent's own directory. The file is opened through its real path, and
   * only when that lies inside this directory (itself resolved): a session
   * file replaced by a symlink to /etc/passwd is refused, not streamed.
   */
  within?: string
  /**
   * Facts gathered from every line in the index pass (and kept with the index).
   * Its countAndFold counts index scans in place of `count`, which must be given
   * too (reads check a line's count with it).
   */
  fold?: LineFold
  /** the on-disk index cache: a first open loads the saved index instead of scanning, and builds are saved */
  store?: IndexStore
  /** names the normalizer in the on-disk cache key (default: the function's name; no cache without one) */
  cacheKey?: string
  /** where this file counts its work (its registry's counters; default: its own) */
  counters?: JsonlCounters
  /** sees every line the index pass and the tail index (the search index, src/search/), from the same read */
  tap?: LineTap
  /** the path the tap is told (default the file's): a compressed session's plain copy names the session's own file */
  tapPath?: string
  /**
   * How long an index just built waits before a pass saves it to the store
   * (default SAVE_AFTER_BUILD_MS); a release saves it at once.
   */
  saveAfterBuildMs?: number
}

/**
 * What else is fed by a file's one index pass and tail: rows `fromRow`.. of
 * `index` were just indexed from `buf` (whose byte 0 is file offset `base`).
 * Synchronous, and never allowed to break the transcript (a throw is logged).
 */
export interface LineTap {
  /** `values[k]`: row fromRow + k's line as the pass parsed it (one JSON value), or undefined */
  lines(path: string, normalize: LineNormalizer, buf: Buffer, base: number, index: LineIndex, fromRow: number, values: unknown[]): void
  /** the file is indexed again from its start (rewritten, truncated) */
  reset(path: string): void
  /** false while nobody takes the rows (then the pass keeps no parsed values for it) */
  active?(): boolean
}

/** Long enough for a first connect to be served (its roster and newest page) before the new index is encoded for the store. */
export const SAVE_AFTER_BUILD_MS = 1000

/** A session file whose real path leaves the agent's directory. */
export class OutsideAgentDirError extends Error {
  readonly code = 'EOUTSIDE'
}

/**
 * Opens `path` for reading only if its real path lies inside `root`'s real
 * path, through that real path and without following a last-moment symlink.
 */
export async function openInside(path: string, root: string): Promise<FileHandle> {
  const [real, realRoot] = await Promise.all([realpath(path), realpath(root)])
  if (!real.startsWith(realRoot.endsWith(sep) ? realRoot : realRoot + sep)) throw new OutsideAgentDirError(`${path} resolves to ${real}, outside ${realRoot}`)
  // non-blocking: a named pipe at the path would hold the open (a thread of the pool) until a writer came; callers check isFile
  return open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
}

/** Reads `length` bytes at `pos` into the start of `buf`, in as many reads as it takes; fewer only at the file's end. */
async function readInto(fh: FileHandle, buf: Buffer, length: number, pos: number): Promise<number> {
  let got = 0
  while (got < length) {
    const { bytesRead } = await fh.read(buf, got, length - got, pos + got)
    if (bytesRead === 0) break
    got += bytesRead
  }
  return got
}

/** How many leading bytes identify a file's content (its first line, mostly). */
const HEAD_PRINT = 256
/** How many bytes just before the scanned offset must not change while we follow a file. */
const TAIL_PRINT = 64

/** The next chunk's read, started while the current one is indexed: its bytes count, or why it failed. */
interface ReadAhead {
  pos: number
  want: number
  buf: Buffer
  done: Promise<number | { error: unknown }>
}

/** While a file is held, its saved index is refreshed when it grew this much (and on release). */
const PERSIST_EVERY = 32 * 1024 * 1024

/** A fold's facts over a file's first `scanned` bytes, as the index pass left them. */
export interface FactsView {
  facts: unknown
  /** the facts cover bytes 0..scanned (always just past a newline) */
  scanned: number
  /** the index generation: bumps when the file is re-indexed and the facts start over */
  generation: number
  ino: number
  dev: number
}

export class JsonlFile {
  readonly dir: string
  readonly name: string
  index: LineIndex
  /** bumps whenever the index is replaced; a read that straddles one returns [] */
  generation = 0
  /** the file is not at its path now (pending, or deleted while we hold it open) */
  missing = false
  lastError: unknown = undefined
  refs = 0
  /** set by the registry while the file sits in the warm cache */
  evictTimer: ReturnType<typeof setTimeout> | null = null

  private fh: FileHandle | null = null
  private readonly counters: JsonlCounters
  /** false once close() ran: a pass still in flight must not leave a descriptor open */
  private wanted = true
  private ino = -1
  private dev = -1
  private headPrint: Buffer = Buffer.alloc(0)
  private tailPrint: Buffer = Buffer.alloc(0)
  private seenSize = -1
  private seenMtime = -1
  private resetting = false
  /** a read found a line whose entry count differs from the index: re-index on the next pass */
  private suspect = false
  private running: Promise<void> | null = null
  private again = false
  private timer: ReturnType<typeof setInterval> | null = null
  private watcher: FSWatcher | null = null
  private readonly growListeners = new Set<(entries: Entry[]) => void>()
  private readonly resetListeners = new Set<() => void>()
  private readonly pollMs: number
  private readonly useWatch: boolean
  private readonly chunkBytes: number
  private readonly readBuffer: ReadBuffer
  private readonly turnEveryBytes: number
  private readonly log: (message: string) => void
  private readonly within: string | undefined
  private readonly maxLineBytes: number
  /** an oversized line still being written: where it starts, and how far it was searched for its end */
  private longLine: { start: number; searched: number } | null = null
  private lastLogged = ''
  /** the counter used by index scans; dropped for good once it disagrees with the normalizer */
  private count: LineCounter | undefined
  private readonly fold: LineFold | undefined
  private readonly tap: LineTap | undefined
  private readonly tapPath: string
  private readonly store: IndexStore | undefined
  private readonly cacheKey: string
  /** the on-disk cache was consulted (once, for the first open) */
  private storeTried = false
  /** the index generation and reach last saved to (or loaded from) the cache */
  private savedAt = { generation: -1, scanned: -1, newest: false }
  /** the file's size and mtime at the last stat */
  private lastStat = { size: -1, mtime: -1 }
  private persistOnIdle = false
  /** the running pump built the index from byte 0 */
  private builtNow = false
  /** when the index was last built (performance.now()) */
  private builtAt = Number.NEGATIVE_INFINITY
  private readonly saveAfterBuildMs: number
  /** entries normalized lately (pages read, the live tail): served again without a read */
  private readonly recent = new RecentEntries()
  /** the read ahead in flight (prefetch), if any */
  private ahead: { generation: number; from: number; to: number; done: Promise<void> } | null = null

  constructor(
    readonly path: string,
    private readonly normalize: LineNormalizer,
    opts: JsonlFileOptions = {},
  ) {
    this.dir = dirname(path)
    this.name = basename(path)
    this.counters = opts.counters ?? newJsonlCounters()
    this.pollMs = opts.pollMs ?? 250
    this.useWatch = opts.watch ?? true
    this.chunkBytes = Math.max(4096, opts.chunkBytes ?? 2 * 1024 * 1024)
    this.readBuffer = opts.readBuffer ?? new ReadBuffer()
    this.turnEveryBytes = Math.max(4096, opts.turnEveryBytes ?? 6 * 1024 * 1024)
    this.log = opts.log ?? ((m) => console.warn(m))
    this.count = opts.count
    this.within = opts.within
    this.maxLineBytes = Math.max(4096, opts.maxLineBytes ?? MAX_LINE_BYTES)
    this.fold = opts.fold
    this.tap = opts.tap
    this.tapPath = opts.tapPath ?? path
    this.saveAfterBuildMs = opts.saveAfterBuildMs ?? SAVE_AFTER_BUILD_MS
    const name = opts.cacheKey ?? normalize.name
    this.store = name ? opts.store : undefined
    this.cacheKey = `${name}|${opts.fold?.id ?? ''}`
    this.index = this.emptyIndex()
  }

  /** An empty index, with fresh fold facts when the file has a fold. */
  private emptyIndex(): LineIndex {
    const index = new LineIndex()
    if (this.fold) index.facts = this.fold.fresh()
    return index
  }

  /**
   * The fold's facts as of the indexed bytes, with what identifies them (the
   * file and how far they reach); undefined while no descriptor is open or a
   * re-index is running.
   */
  factsView(): FactsView | undefined {
    if (!this.fold || !this.fh || this.resetting) return undefined
    return { facts: this.index.facts, scanned: this.index.scanned, generation: this.generation, ino: this.ino, dev: this.dev }
  }

  /** True while index scans use the kind's counter (false without one, or after it disagreed). */
  countsWithCounter(): boolean {
    return this.count !== undefined
  }

  total(): number {
    return this.index.total()
  }

  /** True when a descriptor is open: the indexed bytes can be served. */
  isOpen(): boolean {
    return this.fh !== null
  }

  onGrow(listener: (entries: Entry[]) => void): () => void {
    this.growListeners.add(listener)
    return () => this.growListeners.delete(listener)
  }

  onReset(listener: () => void): () => void {
    this.resetListeners.add(listener)
    return () => this.resetListeners.delete(listener)
  }

  /**
   * Brings the index up to the file: builds it, extends it, or re-indexes after
   * a shrink or replacement. Serialized: a call during a pass schedules one
   * more pass and resolves after it. Never rejects; errors land in lastError.
   */
  pump(): Promise<void> {
    if (this.running) {
      this.again = true
      return this.running
    }
    this.running = (async () => {
      do {
        this.again = false
        this.counters.pumps++
        try {
          await this.pumpOnce()
          this.lastError = undefined
        } catch (err) {
          this.lastError = err
          this.report(`jsonl tail ${this.path}: ${(err as Error)?.message ?? err}`)
        }
      } while (this.again)
      // An index just built is saved once it has settled (by a poll's pass, or
      // at release): the first connect, which waits on this pass and then on the
      // roster's and the newest page's, is served before the snapshot is encoded.
      if (this.builtNow) this.builtAt = performance.now()
      this.builtNow = false
      if (this.persistOnIdle || performance.now() - this.builtAt >= this.saveAfterBuildMs) this.persist(this.persistOnIdle)
      this.persistOnIdle = false
      this.running = null
    })()
    return this.running
  }

  /** Entries fromSeq..toSeq: one contiguous read of just their lines, normalized again. */
  async read(fromSeq: number, toSeq: number): Promise<Entry[]> {
    this.counters.reads++
    // A read ahead in flight covers it: wait for it, then take its entries from the recent ones.
    if (this.ahead && this.aheadCovers(fromSeq, toSeq)) {
      this.counters.aheadWaits++
      await this.ahead.done
    }
    return this.readEntries(fromSeq, toSeq)
  }

  private aheadCovers(fromSeq: number, toSeq: number): boolean {
    const ahead = this.ahead
    return ahead !== null && ahead.generation === this.generation && ahead.from <= fromSeq && toSeq <= ahead.to
  }

  /**
   * Reads fromSeq..toSeq ahead of a request that likely follows (the page above
   * the one a reader just got) into the recent entries, so that request is served
   * from memory; a read() of that range meanwhile waits for it rather than read
   * the file twice. A read that fails is dropped: the request reads again.
   */
  prefetch(fromSeq: number, toSeq: number): void {
    if (this.aheadCovers(fromSeq, toSeq)) return // being read ahead already (another socket on the file asked first)
    if (this.recent.get(this.generation, fromSeq, toSeq)) return // held already
    this.counters.prefetches++
    const done = this.readEntries(fromSeq, toSeq).then(
      () => {},
      () => {},
    )
    const ahead = { generation: this.generation, from: fromSeq, to: toSeq, done }
    this.ahead = ahead
    void done.then(() => {
      if (this.ahead === ahead) this.ahead = null
    })
  }

  private async readEntries(fromSeq: number, toSeq: number): Promise<Entry[]> {
    const index = this.index
    const generation = this.generation
    const fh = this.fh
    const from = Math.max(1, Math.floor(fromSeq))
    const to = Math.min(index.total(), Math.floor(toSeq))
    if (this.resetting || fh === null || !(from <= to)) return []
    const held = this.recent.get(generation, from, to)
    if (held) {
      this.counters.recentHits++
      return held
    }
    const r0 = index.rowOf(from)
    const r1 = index.rowOf(to)
    const out: Entry[] = []
    // Rows of oversized lines (at least maxLineBytes: no shorter line was skipped) are never read: each is its too-large entry.
    // The others are read in runs, one contiguous read per run.
    for (let r = r0; r <= r1; ) {
      if (index.ends[r] - index.starts[r] >= this.maxLineBytes) {
        const seq = index.before(r) + 1
        if (seq >= from && seq <= to) out.push(placed(tooLarge(index.starts[r], index.ends[r] - index.starts[r]), seq))
        r++
        continue
      }
      let e = r
      while (e < r1 && index.ends[e + 1] - index.starts[e + 1] < this.maxLineBytes) e++
      const run = await this.readRun(fh, index, generation, r, e, from, to)
      if (run === undefined) return []
      out.push(...run)
      r = e + 1
    }
    if (generation === this.generation && !this.resetting) this.recent.put(generation, out)
    return out
  }

  /** Entries of rows r0..r1 (no oversized line among them) within from..to; undefined when the read must be retried. */
  private async readRun(fh: FileHandle, index: LineIndex, generation: number, r0: number, r1: number, from: number, to: number): Promise<Entry[] | undefined> {
    const base = index.starts[r0]
    const length = index.ends[r1] - base
    // lent: nothing made from it may keep a view of its bytes (lines are copied out as strings)
    const buf = this.readBuffer.borrow(length)
    try {
      const got = await readInto(fh, buf, length, base).catch((err: unknown) => {
        this.report(`jsonl read ${this.path}: ${(err as Error)?.message ?? err}`)
        return -1
      })
      if (got >= 0 && got < length) this.report(`jsonl read ${this.path}: short read at ${base}: ${got} of ${length} bytes`)
      if (got < length) {
        void this.pump()
        return undefined
      }
      if (generation !== this.generation || this.resetting) return undefined
      const out: Entry[] = []
      for (let r = r0; r <= r1; r++) {
        const start = index.starts[r]
        const drafts = amendSafely(this.fold, index.facts, normalizeBytes(this.normalize, buf, start - base, index.ends[r] - base, start), start)
        const first = index.before(r) + 1
        if (drafts.length !== index.cum[r] - first + 1) {
          // The bytes changed under the index (an edit the head/tail prints
          // cannot see), or the counter that built it miscounted this line:
          // re-index on the next pass, which fires onReset. A counter that
          // disagrees with the normalizer on the very same line is not used
          // again for this file, so the re-index cannot repeat the mistake.
          const line = buf.toString('utf8', start - base, index.ends[r] - base)
          if (this.count && countSafely(this.count, this.normalize, line, start) !== drafts.length) {
            this.count = undefined
            this.counters.counterDistrusted++
            this.report(`jsonl ${this.path}: line counter disagrees with the normalizer at byte ${start}; indexing by normalizing`)
          }
          this.suspect = true
          void this.pump()
          return undefined
        }
        for (let i = 0; i < drafts.length; i++) {
          const seq = first + i
          if (seq >= from && seq <= to) out.push(placed(drafts[i], seq))
        }
      }
      return out
    } finally {
      this.readBuffer.giveBack(buf)
    }
  }

  /**
   * Saves the index to the on-disk cache when it changed since the last save
   * (at once when idle, else when the running pass ends). The registry calls
   * it when the last holder lets go.
   */
  persistSoon(): void {
    if (this.running) this.persistOnIdle = true
    else this.persist(true)
  }

  /** Saves a snapshot when the index was (re)built, grew PERSIST_EVERY, or `changed` and it moved at all. */
  private persist(changed: boolean): void {
    if (!this.store || this.resetting || this.lastError !== undefined || this.index.scanned === 0 || this.lastStat.size < 0) return
    const at = this.savedAt
    const sameGeneration = at.generation === this.generation
    const unmoved = sameGeneration && at.scanned === this.index.scanned
    if (unmoved && at.newest) return
    if (sameGeneration && !changed && this.index.scanned - at.scanned < PERSIST_EVERY) return
    // The newest page as a phone last got it: a restart serves it without normalizing.
    // (Looked up only when saving: this runs after every tail pass.)
    const total = this.index.total()
    const newest = total > 0 ? this.recent.get(this.generation, Math.max(1, total - LIMITS.newestPage + 1), total) : undefined
    if (unmoved && !newest) return
    this.savedAt = { generation: this.generation, scanned: this.index.scanned, newest: !!newest }
    this.store.save(this.path, this.cacheKey, this.fold, {
      index: this.index,
      dev: this.dev,
      ino: this.ino,
      size: this.lastStat.size,
      mtimeMs: this.lastStat.mtime,
      headPrint: this.headPrint,
      tailPrint: this.tailPrint,
      newest,
    })
  }

  /**
   * Adopts the saved index when it still describes the file just opened: same
   * inode, not shorter than when saved, not rewritten at the same size, same
   * head bytes and same bytes before the saved end. The follow() that comes next
   * extends it when the file grew. False (index the file from scratch) otherwise.
   */
  private async adoptSaved(st: { size: number; mtimeMs: number; ino: number; dev: number }): Promise<boolean> {
    const saved = await this.store!.load(this.path, this.cacheKey, this.fold)
    if (!saved) return false
    const stale = (why: string) => {
      this.store!.stale(why)
      return false
    }
    if (saved.dev !== st.dev || saved.ino !== st.ino) return stale('another file at the path')
    if (st.size < saved.size) return stale('shorter than when saved')
    if (st.size === saved.size && st.mtimeMs !== saved.mtimeMs) return stale('rewritten since saved')
    if (!(await this.bytesAt(0, saved.headPrint.length)).equals(saved.headPrint)) return stale('first bytes changed')
    const scanned = saved.index.scanned
    if (!(await this.bytesAt(scanned - saved.tailPrint.length, saved.tailPrint.length)).equals(saved.tailPrint))
      return stale('bytes before the saved end changed')
    this.replaceIndex(saved.index)
    this.headPrint = saved.headPrint
    this.tailPrint = saved.tailPrint
    const unchanged = st.size === saved.size && st.mtimeMs === saved.mtimeMs
    this.seenSize = unchanged ? st.size : -1
    this.seenMtime = unchanged ? st.mtimeMs : -1
    this.lastStat = { size: saved.size, mtime: saved.mtimeMs }
    this.savedAt = { generation: this.generation, scanned, newest: !!saved.newest }
    if (saved.newest) this.recent.put(this.generation, saved.newest)
    return true
  }

  startTailer(): void {
    this.wanted = true
    if (this.timer) return
    this.timer = setInterval(() => void this.pump(), this.pollMs)
    ;(this.timer as { unref?: () => void }).unref?.()
    this.counters.activeTailers++
    this.watchDir()
  }

  stopTailer(): void {
    if (!this.timer) return
    clearInterval(this.timer)
    this.timer = null
    this.counters.activeTailers--
    this.watcher?.close()
    this.watcher = null
  }

  /** Closes the descriptor (kept index stays valid; the next pump reopens and verifies). */
  async close(): Promise<void> {
    this.wanted = false
    const fh = this.fh
    this.fh = null
    await fh?.close().catch(() => {})
  }

  // ---- internals ----

  private watchDir(): void {
    if (!this.useWatch || this.watcher || !this.timer) return
    try {
      // The directory, not the file: a file watch loses the file on rename and
      // cannot be set on a file that does not exist yet. Only a hint; the poll is the truth.
      const w = watch(this.dir, { persistent: false }, (_event, name) => {
        if (name == null || String(name) === this.name) void this.pump()
      })
      w.on('error', () => {
        w.close()
        if (this.watcher === w) this.watcher = null
      })
      this.watcher = w
    } catch {
      this.watcher = null // directory missing: the poll carries on and retries
    }
  }

  private async pumpOnce(): Promise<void> {
    if (this.timer && !this.watcher) this.watchDir()
    let st
    try {
      st = await stat(this.path)
    } catch (err) {
      if ((err as NodeJS.ErrnoException)?.code !== 'ENOENT') throw err
      this.missing = true
      // Held open: keep serving what is indexed. Not held (a cached index whose
      // file went away while nobody watched): nothing can be served, start empty.
      if (!this.fh && this.index.scanned > 0) this.replaceIndex(this.emptyIndex())
      return
    }
    this.missing = false
    if (!this.fh || st.ino !== this.ino || st.dev !== this.dev) {
      const known = this.ino === st.ino && this.dev === st.dev
      const fh = this.within === undefined ? await open(this.path, 'r') : await openInside(this.path, this.within)
      const fst = await fh.stat().catch(async (err) => {
        await fh.close()
        throw err
      })
      if (!fst.isFile()) {
        await fh.close()
        throw Object.assign(new Error(`${this.path} is not a regular file`), { code: 'EISDIR' })
      }
      if (!this.wanted) {
        await fh.close() // closed while we were opening: do not leak it
        return
      }
      const old = this.fh
      this.fh = fh
      this.ino = fst.ino
      this.dev = fst.dev
      await old?.close().catch(() => {})
      const hadContent = this.index.scanned > 0
      if (!hadContent && this.store && !this.storeTried) {
        this.storeTried = true
        if (await this.adoptSaved(fst)) {
          await this.follow(fst.size, fst.mtimeMs)
          return
        }
      }
      if (hadContent && !(known && (await this.printsMatch(fst.size)))) {
        this.lastStat = { size: fst.size, mtime: fst.mtimeMs }
        await this.rebuild(fst.size) // a new file at our path (renamed over, recreated)
        return
      }
      await this.follow(fst.size, fst.mtimeMs)
      return
    }
    await this.follow(st.size, st.mtimeMs)
  }

  /** Same file as before: extend, or re-index when it shrank or its indexed bytes changed. */
  private async follow(size: number, mtime: number): Promise<void> {
    this.lastStat = { size, mtime }
    if (size < this.index.scanned || this.suspect) {
      await this.rebuild(size)
      return
    }
    if (size === this.seenSize && mtime === this.seenMtime) return
    if (!(await this.printsMatch(size))) {
      await this.rebuild(size)
      return
    }
    if (size > this.index.scanned) await this.extend(this.index, size, true)
    // Only once the pass is through: a read that failed half-way is retried from
    // where it stopped on the next pump, not taken as done until the file changes.
    this.seenSize = size
    this.seenMtime = mtime
    await this.takePrints()
  }

  private async rebuild(size: number): Promise<void> {
    const hadContent = this.index.scanned > 0
    if (hadContent) this.tap?.reset(this.tapPath)
    this.resetting = true
    this.suspect = false
    this.longLine = null
    try {
      const fresh = this.emptyIndex()
      await this.extend(fresh, size, false)
      this.replaceIndex(fresh)
      this.seenSize = size
      this.seenMtime = -1
      await this.takePrints()
    } catch (err) {
      this.suspect = true // the old index still stands: the next pump re-indexes again
      throw err
    } finally {
      this.resetting = false
    }
    if (hadContent) {
      this.counters.resets++
      for (const l of [...this.resetListeners]) {
        try {
          l()
        } catch (err) {
          this.report(`jsonl onReset listener: ${(err as Error)?.message ?? err}`)
        }
      }
    }
  }

  private replaceIndex(index: LineIndex): void {
    this.longLine = null
    this.index = index
    this.generation++
    this.headPrint = Buffer.alloc(0)
    this.tailPrint = Buffer.alloc(0)
  }

  /**
   * Scans index.scanned..size in chunks, never the whole file at once. When
   * `emit`, the new entries go to the grow listeners chunk by chunk, after the
   * index has them (so total() already equals the last seq delivered).
   * The next chunk is read while this one is indexed (two buffers): the read's
   * copy runs on another thread, and the pass never waits on it between chunks.
   */
  private async extend(index: LineIndex, size: number, emit: boolean): Promise<void> {
    const fh = this.fh
    if (!fh) return
    if (index.scanned === 0) {
      this.counters.indexBuilds++
      this.builtNow = true
    }
    let buf: Buffer = Buffer.allocUnsafe(Math.min(this.chunkBytes, this.maxLineBytes, Math.max(4096, size - index.scanned)))
    let spare: Buffer | null = null
    let ahead: ReadAhead | null = null
    let pos = index.scanned
    let turnAt = pos
    try {
      while (pos < size) {
        const collect: Draft[] | undefined = emit && this.growListeners.size > 0 ? [] : undefined
        const before = index.total()
        const long = this.longLine && this.longLine.start === pos ? this.longLine : null
        if (long) {
          // An oversized line: find its end without keeping any of it.
          const nl = await this.findNewline(fh, long.searched, size, buf)
          if (nl < 0) {
            long.searched = size
            break // still being written
          }
          this.longLine = null
          this.skipLongLine(index, pos, nl, collect)
          pos = nl + 1
          index.scanned = pos
          this.emitGrown(collect, before)
          continue
        }
        const want = Math.min(buf.length, size - pos)
        let bytesRead: number
        if (ahead && pos - turnAt >= this.turnEveryBytes) {
          // A read ahead is often done before the chunk before it is indexed:
          // awaiting it does not let other sockets and timers have their turn.
          await new Promise((resolve) => setImmediate(resolve))
          this.counters.scanTurns++
          turnAt = pos
        }
        if (ahead && ahead.pos === pos && ahead.want === want) {
          const got = await ahead.done
          spare = buf
          buf = ahead.buf
          ahead = null
          if (typeof got !== 'number') throw got.error
          bytesRead = got
          this.counters.chunksReadAhead++
        } else {
          if (ahead) await ahead.done // never two reads into one buffer
          ahead = null
          bytesRead = (await fh.read(buf, 0, want, pos)).bytesRead
        }
        if (bytesRead === 0) break
        this.counters.bytesScanned += bytesRead
        // What this chunk leaves for the next: from just past its last '\n'.
        const next: number = pos + buf.lastIndexOf(0x0a, bytesRead - 1) + 1
        if (next > pos && next < size) {
          spare ??= Buffer.allocUnsafe(buf.length)
          const into = spare
          const wantNext = Math.min(into.length, size - next)
          ahead = {
            pos: next,
            want: wantNext,
            buf: into,
            done: fh.read(into, 0, wantNext, next).then(
              (r) => r.bytesRead,
              (error: unknown) => ({ error }),
            ),
          }
          spare = null
        }
        const rowsBefore = index.rows
        const values: unknown[] | undefined = this.tap && this.tap.active?.() !== false ? [] : undefined
        const used = indexLines(buf.subarray(0, bytesRead), pos, this.normalize, index, collect, this.count, this.fold, values)
        if (this.tap && values && index.rows > rowsBefore) {
          try {
            this.tap.lines(this.tapPath, this.normalize, buf, pos, index, rowsBefore, values!)
          } catch (err) {
            this.report(`jsonl tap ${this.path}: ${(err as Error)?.message ?? err}`)
          }
        }
        if (used === 0) {
          // No '\n' in what we read: a half-written line, or one longer than the
          // buffer: grow the buffer up to maxLineBytes; past that, the line is
          // too large to hold and is skipped to its end.
          if (bytesRead >= this.maxLineBytes) {
            this.longLine = { start: pos, searched: pos + bytesRead }
            continue
          }
          if (bytesRead < want || pos + bytesRead >= size) break
          buf = Buffer.allocUnsafe(Math.min(buf.length * 2, this.maxLineBytes))
          spare = null
          if (buf.length > this.counters.maxLineBuffer) this.counters.maxLineBuffer = buf.length
          continue
        }
        pos += used
        this.emitGrown(collect, before)
      }
    } finally {
      if (ahead) await ahead.done // its buffer is let go only once the read is over
    }
  }

  /** Hands entries just indexed to the grow listeners. */
  private emitGrown(collect: Draft[] | undefined, before: number): void {
    if (!collect || collect.length === 0) return
    const entries = collect.map((d, i) => placed(d, before + 1 + i))
    this.recent.put(this.generation, entries)
    for (const l of [...this.growListeners]) {
      try {
        l(entries)
      } catch (err) {
        this.report(`jsonl onGrow listener: ${(err as Error)?.message ?? err}`)
      }
    }
  }

  /** Indexes an oversized line [start, nl) as one too-large entry. */
  private skipLongLine(index: LineIndex, start: number, nl: number, collect: Draft[] | undefined): void {
    index.push(start, nl, 1)
    collect?.push(tooLarge(start, nl - start))
    this.report(`jsonl ${this.path}: line at byte ${start} is ${nl - start} bytes, over ${this.maxLineBytes}: sent as too large`)
  }

  /** The offset of the first '\n' in [from, size), reading through `buf`; -1 when there is none yet. */
  private async findNewline(fh: FileHandle, from: number, size: number, buf: Buffer): Promise<number> {
    let pos = from
    while (pos < size) {
      const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, size - pos), pos)
      if (bytesRead === 0) break
      this.counters.bytesScanned += bytesRead
      const i = buf.subarray(0, bytesRead).indexOf(0x0a)
      if (i >= 0) return pos + i
      pos += bytesRead
    }
    return -1
  }

  /** Compares the remembered head and tail bytes of the indexed region with the file now. */
  private async printsMatch(size: number): Promise<boolean> {
    const scanned = this.index.scanned
    if (scanned === 0) return true
    if (size < scanned) return false
    const head = await this.bytesAt(0, this.headPrint.length)
    if (!head.equals(this.headPrint)) return false
    const tail = await this.bytesAt(scanned - this.tailPrint.length, this.tailPrint.length)
    return tail.equals(this.tailPrint)
  }

  private async takePrints(): Promise<void> {
    const scanned = this.index.scanned
    const headLen = Math.min(HEAD_PRINT, scanned)
    if (this.headPrint.length !== headLen) this.headPrint = await this.bytesAt(0, headLen)
    const tailLen = Math.min(TAIL_PRINT, scanned)
    this.tailPrint = await this.bytesAt(scanned - tailLen, tailLen)
  }

  private async bytesAt(pos: number, length: number): Promise<Buffer> {
    const buf = Buffer.alloc(length)
    if (length === 0 || !this.fh) return buf
    const got = await readInto(this.fh, buf, length, pos)
    return got === length ? buf : buf.subarray(0, got)
  }

  /** Logs an error once until a different one happens (a poll would repeat it 4× a second). */
  private report(message: string): void {
    if (message === this.lastLogged) return
    this.lastLogged = message
    this.log(message)
  }
}
