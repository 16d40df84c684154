// The JSONL Timeline and its registry (JsonlFiles): one JsonlFile (index +
// tailer) per (absolute path, normalizer), shared by every socket on that file
// and reference counted. A file nobody holds stops its tailer at once but keeps
// its index in a small warm cache, so a reconnect only verifies and extends it.
import { resolve } from 'node:path'
import type { Entry } from '../entry'
import type { Timeline } from '../timeline'
import { JsonlFile, newJsonlCounters, type JsonlCounters, type JsonlFileOptions, type LineTap } from './jsonl-file'
import type { LineNormalizer } from './normalizer'
import { ReadBuffer } from './read-buffer'

export type { JsonlCounters } from './jsonl-file'

export interface JsonlTimelineOptions extends JsonlFileOptions {
  /** Serve a path that does not exist yet as an empty timeline that fills when it appears (pi). */
  allowMissing?: boolean
  /**
   * Names the normalizer in the registry key. Default: the function's identity,
   * so pass the same function (not a fresh closure) to share an index.
   */
  normalizerId?: string
}

/** A Timeline over a JSONL file, plus what a source may want to know about it. */
export interface JsonlTimeline extends Timeline {
  onReset(listener: () => void): () => void
  /** the absolute path followed */
  readonly path: string
  /** true while the file is not at its path (pending, or deleted) */
  missing(): boolean
}

/** the index pass's turn for files opened by background work (JsonlFiles.inBackground) */
export const BACKGROUND_TURN_BYTES = 512 * 1024

/** How long released indexes stay warm, and how many. */
export interface JsonlCacheSettings {
  keepAliveMs: number
  maxFiles: number
}

/**
 * The JSONL files of one app: one JsonlFile (index + tailer) per (absolute
 * path, normalizer), shared by every socket on that file and reference counted.
 * A file nobody holds stops its tailer at once but keeps its index in a small
 * warm cache (LRU, `keepAliveMs`), so a reconnect only verifies and extends it.
 * Owned by whoever builds the sources (createApp): two apps share nothing.
 */
export class JsonlFiles {
  /** what the files of this registry did (tests and benches read it) */
  readonly counters: JsonlCounters = newJsonlCounters()
  /** the one buffer its files' page reads borrow in turn */
  private readonly readBuffer = new ReadBuffer()
  private readonly files = new Map<string, JsonlFile>()
  private readonly settings: JsonlCacheSettings
  /** Released files in the order they were released (oldest first), for the LRU bound. */
  private readonly released: JsonlFile[] = []
  private readonly normalizerIds = new WeakMap<LineNormalizer, number>()
  private nextNormalizerId = 1
  /** background work under way (the search index's walk): files opened meanwhile give the event loop a turn more often */
  private background = 0
  /** fed by every file's index pass and tail (the search index); set once by the app */
  tap: LineTap | undefined
  private readonly tapOfFiles: LineTap = {
    lines: (...a) => this.tap?.lines(...a),
    active: () => this.tap !== undefined,
    reset: (path) => this.tap?.reset(path),
  }

  constructor(settings: Partial<JsonlCacheSettings> = {}) {
    this.settings = { keepAliveMs: 60_000, maxFiles: 8, ...settings }
  }

  /**
   * Opens (or joins) the shared index of a JSONL file and returns a handle on it.
   * The index is built (cold) or verified and extended (warm) before this resolves,
   * so total() is current. Rejects when the file cannot be read, and with an
   * ENOENT error when it does not exist unless `allowMissing`. The first acquirer's
   * poll/watch/chunk/count options are the file's; later ones join as they are.
   * Pass the kind's `count` (a LineCounter equal to normalize(line).length) to
   * make index builds cheap; reads and the live tail still use `normalize`.
   */
  async acquire(path: string, normalize: LineNormalizer, opts: JsonlTimelineOptions = {}): Promise<JsonlTimeline> {
    const abs = resolve(path)
    const key = this.keyOf(abs, normalize, opts.normalizerId)
    let file = this.files.get(key)
    if (!file) {
      file = new JsonlFile(abs, normalize, {
        ...opts,
        cacheKey: opts.cacheKey ?? opts.normalizerId,
        counters: this.counters,
        readBuffer: this.readBuffer,
        tap: this.tapOfFiles,
        turnEveryBytes: opts.turnEveryBytes ?? (this.background > 0 ? BACKGROUND_TURN_BYTES : undefined),
      })
      this.files.set(key, file)
    }
    this.retain(file)
    try {
      await file.pump()
      if (!file.isOpen()) {
        if (file.lastError && (file.lastError as NodeJS.ErrnoException).code !== 'ENOENT') throw file.lastError
        if (!opts.allowMissing) {
          const err = new Error(`ENOENT: no such file, open '${abs}'`) as NodeJS.ErrnoException
          err.code = 'ENOENT'
          err.path = abs
          throw err
        }
      }
    } catch (err) {
      this.unretain(file, key)
      throw err
    }
    return handleOn(file, () => this.unretain(file, key))
  }

  /**
   * The fold facts of a file a timeline holds now, brought up to the file first
   * (one pump: a stat when nothing changed), as JsonlFile.factsView() gives them;
   * undefined when nobody holds the file, it has no fold, or it is not at its
   * path now. Lets a kind use what the index pass gathered instead of reading the
   * file again.
   */
  async heldFacts(path: string, normalize: LineNormalizer, normalizerId?: string) {
    const file = this.files.get(this.keyOf(resolve(path), normalize, normalizerId))
    if (!file || file.refs === 0) return undefined
    await file.pump()
    return file.refs > 0 && !file.missing ? file.factsView() : undefined
  }

  /**
   * Runs `work` as background work: a file it opens gives the event loop a turn
   * every BACKGROUND_TURN_BYTES of its index pass (not 6 MiB), so a phone's
   * first page is not kept waiting behind it on a busy machine.
   */
  async inBackground<T>(work: () => Promise<T>): Promise<T> {
    this.background++
    try {
      return await work()
    } finally {
      this.background--
    }
  }

  /** Tunes the warm cache of released indexes (defaults: 60 s, 8 files). */
  configure(settings: Partial<JsonlCacheSettings>): void {
    Object.assign(this.settings, settings)
  }

  /** Forgets every released index now (files still held are untouched). */
  drop(): void {
    for (const [k, f] of [...this.files]) if (f.refs === 0) this.evict(f, k)
  }

  /** What the registry holds now, for tests and measurements (what it did is in `counters`). */
  holding() {
    let held = 0
    let cached = 0
    let indexBytes = 0
    for (const f of this.files.values()) {
      if (f.refs > 0) held++
      else cached++
      indexBytes += f.index.byteSize()
    }
    return { heldFiles: held, cachedFiles: cached, indexBytes }
  }

  private keyOf(path: string, normalize: LineNormalizer, id: string | undefined): string {
    if (id === undefined) {
      let n = this.normalizerIds.get(normalize)
      if (n === undefined) this.normalizerIds.set(normalize, (n = this.nextNormalizerId++))
      id = `#${n}`
    }
    return `${path}\0${id}`
  }

  private retain(file: JsonlFile): void {
    if (file.evictTimer) {
      clearTimeout(file.evictTimer)
      file.evictTimer = null
    }
    const i = this.released.indexOf(file)
    if (i >= 0) this.released.splice(i, 1)
    file.refs++
    file.startTailer()
  }

  private unretain(file: JsonlFile, key: string): void {
    file.refs--
    if (file.refs > 0) return
    file.persistSoon()
    file.stopTailer()
    void file.close()
    const { keepAliveMs, maxFiles } = this.settings
    if (file.index.scanned === 0 || keepAliveMs <= 0 || maxFiles <= 0) {
      this.evict(file, key)
      return
    }
    this.released.push(file)
    file.evictTimer = setTimeout(() => this.evict(file, key), keepAliveMs)
    ;(file.evictTimer as { unref?: () => void }).unref?.()
    while (this.released.length > maxFiles) {
      const oldest = this.released[0]
      for (const [k, f] of this.files) if (f === oldest) this.evict(f, k)
    }
  }

  private evict(file: JsonlFile, key: string): void {
    if (file.refs > 0) return
    if (file.evictTimer) clearTimeout(file.evictTimer)
    file.evictTimer = null
    const i = this.released.indexOf(file)
    if (i >= 0) this.released.splice(i, 1)
    if (this.files.get(key) === file) this.files.delete(key)
  }
}

function handleOn(file: JsonlFile, unretain: () => void): JsonlTimeline {
  const subscriptions = new Set<() => void>()
  let isReleased = false
  const subscribe = (off: () => void): (() => void) => {
    if (isReleased) {
      off()
      return () => {}
    }
    const once = () => {
      subscriptions.delete(once)
      off()
    }
    subscriptions.add(once)
    return once
  }
  return {
    path: file.path,
    total: () => file.total(),
    missing: () => file.missing,
    read: (fromSeq: number, toSeq: number): Promise<Entry[]> => (isReleased ? Promise.resolve([]) : file.read(fromSeq, toSeq)),
    prefetch: (fromSeq: number, toSeq: number) => {
      if (!isReleased) file.prefetch(fromSeq, toSeq)
    },
    onGrow: (listener) => subscribe(file.onGrow(listener)),
    onReset: (listener) => subscribe(file.onReset(listener)),
    release: () => {
      if (isReleased) return
      isReleased = true
      for (const off of [...subscriptions]) off()
      unretain()
    },
  }
}
