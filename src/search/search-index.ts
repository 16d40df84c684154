// The search index over every past conversation (docs/bridge.md, "Every past
// conversation: history and search"). Fed by the transcripts' own index pass and
// tail (a LineTap on the app's JsonlFiles: the bytes a pass reads for the line
// index are the bytes the search index takes its text from, never read again).
// In the background it walks every session the finder lists, oldest work first:
// a session file not indexed to its end is opened through its kind's source (so
// its transcript index is built, and cached, by the same pass), and what a pass
// did not read (an index loaded from the cache) is read back by seq. A file that
// is gone is dropped; one with another inode, or shorter than indexed, is
// indexed again. Progress and the offsets live in the store, so a restart goes
// on from where it stopped.
import { type Static, Type } from '@sinclair/typebox'
import { constants, statSync } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'
import { NORMALIZERS, type FileKind } from '../projects/heads'
import { MAX_LINE_BYTES } from '../transcript/jsonl/jsonl-file'
import type { AgentInfo } from '../herdr/types'
import { agentShowing } from '../history/session-open'
import { livePanes } from '../history/sessions'
import type { FoundSession, SessionFinder } from '../projects/listing'
import { insideRoots, type Roots } from '../projects/roots'
import type { Draft } from '../transcript/entry'
import type { LineTap } from '../transcript/jsonl/jsonl-file'
import type { LineIndex } from '../transcript/jsonl/line-index'
import type { LineNormalizer } from '../transcript/jsonl/normalizer'
import type { JsonlFiles } from '../transcript/jsonl/timeline'
import { isCompressed, isCompressedSessionError } from '../transcript/jsonl/zst'
import type { SourceRegistry } from '../transcript/sources'
import { withoutDiffs } from '../transcript/tool-summary'
import { isDiskFull, SEQ_SPAN, type FileRow, type IndexedEntry, type SearchStore } from './store'
import { indexReader, type IndexReader } from './reader'
import { indexWriter, type IndexWriter } from './writer'
import { searchText, snippetOf, type ParsedQuery } from './text'

export interface SearchIndexDeps {
  store: SearchStore
  finder: SessionFinder
  roots: Roots
  sources: SourceRegistry
  jsonl: JsonlFiles
  log: (m: string) => void
  /** how often the sessions are looked over for new and grown ones (default 1 s) */
  pollMs?: number
  /** how long new entries wait to be written together (default 100 ms) */
  flushMs?: number
  /** the writes stay on this thread (default: a Worker writes them, writer.ts) */
  inThreadWrites?: boolean
  /** the writer thread's entry (tests: one that cannot start) */
  writerUrl?: string
  /** the queries stay on this thread (default: a Worker runs them, reader.ts) */
  inThreadQueries?: boolean
  /** the reader thread's entry (tests: one that cannot start, or dies) */
  readerUrl?: string
}

/** One hit of GET /search: the wire shape (its route's response) and the index's answer. */
export const SearchResultSchema = Type.Object({
  agent_kind: Type.String(),
  session_id: Type.String({ description: 'with agent_kind: WS /agent-transcript?session=KIND:ID&around=SEQ opens the hit' }),
  project: Type.String(),
  title: Type.String(),
  seq: Type.Integer({ description: "the entry's seq in its session" }),
  ts: Type.String({ description: 'ISO 8601: when the entry was written' }),
  role: Type.String({ description: 'user, assistant or system' }),
  snippet: Type.String({ description: 'about 160 characters of the entry around its first match, on one line (… where cut)' }),
  matches: Type.Array(Type.Tuple([Type.Integer(), Type.Integer()]), { description: '[start, end) of each match in the snippet (UTF-16 offsets)' }),
  pane_id: Type.Optional(Type.String({ description: 'the live pane showing this session' })),
})
export type SearchResult = Static<typeof SearchResultSchema>

export interface SearchFilters {
  kind?: string
  project?: string
  sinceMs?: number
  limit: number
}

/**
 * Searches that may wait while one runs; past them a search is refused at once
 * (GET /search's 429). A query's SQLite work (a term in nearly every entry:
 * about a second per 200,000 entries) runs on the reader thread, one at a time,
 * or on the main thread when that thread cannot be had: a burst of them would
 * queue seconds of work behind each other (and, on the main thread, every
 * other route behind all of it).
 */
export const SEARCH_WAITING_MAX = 8

/** Too many searches already waiting: try again shortly. */
export class SearchBusyError extends Error {
  constructor() {
    super(`busy: ${SEARCH_WAITING_MAX} searches already waiting, try again`)
  }
}

/** What the index counts, for tests and the bench. */
export const newSearchCounters = () => ({
  passes: 0,
  entriesWritten: 0,
  bytesTapped: 0,
  valuesTaken: 0,
  /** entries of session files read back by seq (their lines came from the on-disk line index cache, not a pass) */
  readBack: 0,
  /** entries of opencode's store, read by seq: their only read */
  storeEntries: 0,
  snippetLines: 0,
})
export type SearchCounters = ReturnType<typeof newSearchCounters>

/** bytes of tapped lines that may wait to be normalized; past it the pass waits */
const TAP_QUEUE_MAX = 32 * 1024 * 1024
/** how long one slice of that normalizing may hold the event loop */
const SLICE_MS = 6
/** text waiting for the writer thread, at most; past it the pass waits */
const WRITE_QUEUE_MAX = 16 * 1024 * 1024
/** merge slices after a pass, at most (each ~256 pages: a whole index of a few GB) */
const MERGE_SLICES_MAX = 20_000
/** entries written at once, between looks at the clock (FTS5's trigram insert is slow: a few milliseconds' worth) */
const FLUSH_MAX = 64
/** how long written entries may wait for their commit while more keep coming (one commit per slice made the build 1.3× slower) */
const COMMIT_MS = 1000

/** no entry known with its line's start (after a reset, until one is taken) */
const NO_WITNESS = { seq: 0, off: -1 }

/** a hit to read back: its seq, its place in the results, its line */
interface Wanted {
  seq: number
  i: number
  off: number
  nth: number
}

/** The line starting at `off` (a line over MAX_LINE_BYTES is not read: undefined). */
async function lineAt(fh: FileHandle, off: number): Promise<string | undefined> {
  let buf = Buffer.allocUnsafe(64 * 1024)
  let got = 0
  for (;;) {
    const { bytesRead } = await fh.read(buf, got, buf.length - got, off + got)
    const nl = buf.subarray(got, got + bytesRead).indexOf(0x0a)
    if (nl >= 0) return buf.toString('utf8', 0, got + nl).replace(/\r$/, '')
    got += bytesRead
    if (bytesRead === 0) return got > 0 ? buf.toString('utf8', 0, got) : undefined
    if (got === buf.length) {
      if (buf.length >= MAX_LINE_BYTES) return undefined
      const bigger = Buffer.allocUnsafe(Math.min(buf.length * 4, MAX_LINE_BYTES))
      buf.copy(bigger, 0, 0, got)
      buf = bigger
    }
  }
}

const tsOf = (d: Draft, fallback: number): number => {
  const t = d.ts === undefined ? Number.NaN : Date.parse(d.ts)
  return Number.isFinite(t) ? t : fallback
}

export class SearchIndex implements LineTap {
  private readonly byPath = new Map<string, FileRow>()
  private readonly byId = new Map<number, FileRow>()
  private readonly pending = new Map<number, IndexedEntry[]>()
  private flushTimer: ReturnType<typeof setTimeout> | undefined
  /** lines the passes handed over, not normalized yet (their bytes copied) */
  private tapped: { f: FileRow; normalize: LineNormalizer; first: number; last: number; start: number; bytes: Buffer; after: number }[] = []
  private tappedBytes = 0
  private tapTimer: ReturnType<typeof setTimeout> | undefined
  /** when the transaction the writes share began (undefined: none open) */
  private openSince: number | undefined
  private readonly writer: IndexWriter
  private readonly reader: IndexReader
  private loop: ReturnType<typeof setTimeout> | undefined
  private running: Promise<void> | undefined
  private closed = false
  /** a write was refused (disk full): results may miss entries */
  incomplete = false
  /** searches running or waiting their turn, and the end of the last one's turn */
  private queries = 0
  private queryTurn: Promise<unknown> = Promise.resolve()
  readonly counters: SearchCounters = newSearchCounters()
  private passWaiters: { target: number; res: () => void }[] = []
  /** background passes begun */
  private started = 0
  /** paths a transcript's pass met that are no listed session (asked about again after the next look) */
  private readonly unlisted = new Set<string>()
  /** while a pass looks the sessions over: the paths registered meanwhile by metUnlisted */
  private metDuringFind: Set<string> | undefined
  /**
   * Per file: an entry it holds and where that entry's line starts. A pass that
   * reads the file again from its start (its transcript index was not kept, or
   * was stale) must find that line there, else the file was rewritten in place
   * (pi migrating an old session) and is indexed again. Loaded from the store
   * the first time; NO_WITNESS after a reset until an entry is taken.
   */
  private readonly witnesses = new Map<number, { seq: number; off: number }>()

  /** the SQLite side (the bench checkpoints it to weigh the file) */
  get store(): SearchStore {
    return this.deps.store
  }

  constructor(private readonly deps: SearchIndexDeps) {
    for (const f of deps.store.files()) this.remember(f)
    this.writer = indexWriter(
      deps.store,
      (message, diskFull, stack) => this.failed(message, diskFull, stack),
      deps.log,
      () => this.tapped.length > 0 || this.pending.size > 0,
      { inThread: deps.inThreadWrites, url: deps.writerUrl, lost: () => this.lostWrites() },
    )
    this.reader = indexReader(deps.store, deps.log, { inThread: deps.inThreadQueries, url: deps.readerUrl })
    deps.jsonl.tap = this
  }

  private remember(f: FileRow): void {
    this.byPath.set(f.path, f)
    this.byId.set(f.id, f)
  }

  /**
   * The writer thread died with writes not committed: each file's progress goes
   * back to what the index file holds (the next pass reads the rest back), and
   * a file the file does not hold is forgotten (the next pass adds it again).
   */
  private lostWrites(): void {
    const held = new Map(this.deps.store.files().map((r) => [r.id, r]))
    for (const f of [...this.byId.values()]) {
      const r = held.get(f.id)
      if (!r) {
        this.pending.delete(f.id)
        this.dropTapped(f)
        this.witnesses.delete(f.id)
        this.byPath.delete(f.path)
        this.byId.delete(f.id)
      } else if (r.offset < f.offset || r.seq < f.seq) {
        f.offset = r.offset
        f.seq = r.seq
      }
    }
  }

  /** Starts the background passes (the first at once). */
  start(): void {
    if (this.closed || this.running) return
    clearTimeout(this.loop)
    this.loop = undefined
    const n = ++this.started
    this.running = this.pass()
      .catch((e) => this.deps.log(`search index: ${(e as Error)?.stack ?? e}`))
      .finally(() => {
        this.running = undefined
        this.passWaiters = this.passWaiters.filter((w) => (w.target <= n ? (w.res(), false) : true))
        if (!this.closed) this.loop = setTimeout(() => this.start(), this.deps.pollMs ?? 1000)
      })
  }

  /** Resolves once a pass that began after this call has ended (tests await it rather than sleep). */
  nextPass(): Promise<void> {
    return new Promise((res) => this.passWaiters.push({ target: this.started + 1, res }))
  }

  /** Resolves once every entry taken so far is written and committed (the bench's end of the build; tests). */
  async settled(): Promise<void> {
    this.normalizeTapped(Number.POSITIVE_INFINITY)
    this.flush(true)
    await this.writer.settled()
  }

  /** whether the writes run on a Worker (false: on this thread) */
  get writesOffThread(): boolean {
    return this.writer.offThread
  }

  /** whether the queries run on a Worker (false: on this thread) */
  get queriesOffThread(): boolean {
    return this.reader.offThread
  }

  /** A session's entries, when it is indexed to its end (GET /sessions' `entries`). */
  entriesOf = (s: FoundSession): number | undefined => {
    const f = this.byPath.get(s.file ?? `${s.kind}:${s.id}`)
    return f && f.offset >= f.size && f.seq > 0 ? f.seq : undefined
  }

  /** {files indexed to their end, of all the sessions known}. */
  progress(): { files: number; of: number } {
    // a file whose lines wait to be normalized or written is not indexed yet
    const waiting = new Set<FileRow>(this.tapped.map((t) => t.f))
    for (const id of this.pending.keys()) {
      const f = this.byId.get(id)
      if (f) waiting.add(f)
    }
    let files = 0
    for (const f of this.byPath.values()) if (f.offset >= f.size && !waiting.has(f)) files++
    return { files, of: this.byPath.size }
  }

  /** One look over every session: new ones added, gone ones dropped, grown ones indexed. */
  private async pass(): Promise<void> {
    this.counters.passes++
    this.unlisted.clear()
    const metDuringFind = (this.metDuringFind = new Set())
    const found = await this.deps.finder.find()
    this.metDuringFind = undefined
    const seen = new Set<string>()
    const work: { s: FoundSession; f: FileRow }[] = []
    for (const s of found) {
      if (!insideRoots(s.cwd, this.deps.roots)) continue
      const key = s.file ?? `${s.kind}:${s.id}`
      let size = s.mtimeMs
      let ino = 0
      if (s.file && s.size !== undefined && s.ino !== undefined) {
        // the finder stat-ed it a moment ago
        size = s.size
        ino = s.ino
      } else if (s.file) {
        try {
          const st = statSync(s.file)
          size = st.size
          ino = st.ino
        } catch {
          continue // gone since it was listed: dropped below
        }
      }
      seen.add(key)
      let f = this.byPath.get(key)
      if (!f) {
        f = this.register(key, s, size, ino)
        if (!f) continue
      } else if (f.ino !== ino || (s.file !== undefined && (isCompressed(key) ? size !== f.size : size < f.offset))) {
        // another file at the path, or cut short (a compressed one: any other size): indexed again
        this.reset(key)
        f.ino = ino
      }
      f.size = size
      f.project = s.cwd
      f.title = s.title
      f.mtime_ms = s.mtimeMs
      if (f.offset < size) work.push({ s, f })
    }
    for (const f of [...this.byPath.values()]) {
      // one a transcript's pass met while the sessions were being looked over is kept: the next look lists it
      if (seen.has(f.path) || metDuringFind.has(f.path)) continue
      this.pending.delete(f.id)
      this.witnesses.delete(f.id)
      this.byPath.delete(f.path)
      this.byId.delete(f.id)
      this.writer.dropFile(f.id)
    }
    // the sessions used last first: what a phone searches for is mostly recent
    work.sort((a, b) => b.s.mtimeMs - a.s.mtimeMs)
    for (const { s, f } of work) {
      if (this.closed) return
      await this.indexOne(s, f)
      this.flush()
      await this.writer.room(WRITE_QUEUE_MAX)
    }
    this.flush()
    if (work.length > 0) this.writer.compact(MERGE_SLICES_MAX)
  }

  /** A session's row, added to the store and remembered (undefined: the write was refused). */
  private register(key: string, s: FoundSession, size: number, ino: number): FileRow | undefined {
    const f = this.write(() =>
      this.writer.addFile({
        path: key,
        kind: s.kind,
        session_id: s.id,
        project: s.cwd,
        title: s.title,
        ino,
        offset: 0,
        seq: 0,
        size,
        mtime_ms: s.mtimeMs,
      }),
    )
    if (f) this.remember(f)
    return f
  }

  /**
   * The row of a file a transcript's pass or tail just met that no look over the
   * sessions has listed yet (a socket opened it first): registered now, from the
   * finder's answer for that one path, so its lines are taken from this read
   * instead of read back later. A path that is no session (a subagent's file,
   * one outside the project roots) is not asked about again until the next look.
   */
  private metUnlisted(path: string): FileRow | undefined {
    if (this.closed || this.unlisted.has(path)) return undefined
    const s = this.deps.finder.sessionAt(path)
    if (!s || s.file !== path || s.size === undefined || s.ino === undefined || !insideRoots(s.cwd, this.deps.roots)) {
      this.unlisted.add(path)
      return undefined
    }
    const f = this.register(path, s, s.size, s.ino)
    if (f) this.metDuringFind?.add(path)
    else this.unlisted.add(path)
    return f
  }

  /** The index's segments are being merged after a pass (the bench weighs the file after). */
  get compacting(): boolean {
    return this.writer.compacting
  }

  /** Brings one session's entries up to its end: its kind's source opens it (the pass feeds the tap). */
  private async indexOne(s: FoundSession, f: FileRow): Promise<void> {
    const size = f.size
    const source = this.deps.sources.forKind(s.kind)
    if (!source) return
    let resolved
    try {
      resolved = await this.deps.jsonl.inBackground(() => source.resolve(agentShowing(s, ''), {}))
    } catch (e) {
      this.deps.log(`search index ${f.path}: ${(e as Error)?.message ?? e}`)
      // a compressed file that cannot be unpacked (corrupt, a bomb) is skipped until it changes, not tried every pass
      if (isCompressedSessionError(e)) {
        f.offset = Math.max(f.offset, size)
        this.queue(f, [])
      }
      return
    }
    if (!resolved.ok) return
    const tl = resolved.timeline
    try {
      if (resolved.sessionId !== s.id) return
      // What the pass did not read for the tap (an index from the cache, opencode's store): read back by seq.
      const total = tl.total()
      for (let from = f.seq + 1; from <= total && !this.closed; from += 500) {
        const entries = await tl.read(from, Math.min(total, from + 499))
        if (s.file) this.counters.readBack += entries.length
        else this.counters.storeEntries += entries.length
        this.take(f, entries, s.mtimeMs)
      }
      f.offset = Math.max(f.offset, size)
      this.queue(f, [])
    } finally {
      tl.release()
    }
  }

  /** Entries (placed) of a file, in seq order, past what it holds. */
  private take(f: FileRow, entries: (Draft & { seq: number })[], fallbackTs: number): void {
    const out: IndexedEntry[] = []
    for (const e of entries) {
      if (e.seq <= f.seq) continue
      f.seq = e.seq
      const text = searchText(e)
      if (text) out.push({ seq: e.seq, ts: tsOf(e, fallbackTs), role: e.role, text, off: -1, nth: 0 })
    }
    this.queue(f, out)
  }

  /**
   * LineTap: rows just indexed by a file's pass or tail, from the same buffer.
   * Their bytes are copied and normalized later in slices of a few milliseconds
   * (the pass must not hold the event loop any longer than it does alone); past
   * TAP_QUEUE_MAX bytes waiting, the pass waits for them (normalized at once).
   * A line the pass parsed for its count (`values`) is normalized from that
   * value at once instead (JSON.parse was a third of the normalizing, and the
   * line is not copied): a few milliseconds a turn of the pass.
   */
  lines(path: string, normalize: LineNormalizer, buf: Buffer, base: number, index: LineIndex, fromRow: number, values: unknown[]): void {
    const f = this.byPath.get(path) ?? this.metUnlisted(path)
    if (!f) return
    // lines it holds read again: still where they were? (else the rows after are read back by seq, below)
    if (fromRow < index.rows && index.before(fromRow) < f.seq && this.movedUnder(f, index, fromRow)) this.reset(path)
    // a pass that starts past what the index holds (its line index came from the cache) leaves a gap: the background reads it back
    if (index.before(fromRow) > f.seq) return
    const now: IndexedEntry[] = []
    for (let r = fromRow; r < index.rows; r++) {
      const first = index.before(r) + 1
      const last = index.cum[r]!
      if (last <= f.seq) continue
      const start = index.starts[r]!
      const length = index.ends[r]! - start
      this.counters.bytesTapped += length
      const value = values[r - fromRow]
      let drafts: Draft[] | undefined
      if (value !== undefined && normalize.fromJson) {
        try {
          drafts = withoutDiffs(() => normalize.fromJson!(value, start))
        } catch {}
      }
      if (drafts) {
        this.counters.valuesTaken++
        this.searchable(f, drafts, first, last, f.seq, start, now)
      } else {
        const bytes = Buffer.from(buf.subarray(start - base, start - base + length))
        this.tapped.push({ f, normalize, first, last, start, bytes, after: f.seq })
        this.tappedBytes += length
      }
      f.seq = last
    }
    if (now.length > 0) this.queue(f, now)
    // a compressed file's lines come from its plain copy: its progress is the compressed size, set once its pass is through
    if (!isCompressed(path)) {
      f.offset = Math.max(f.offset, index.scanned)
      if (f.offset > f.size) f.size = f.offset
    }
    if (this.tappedBytes > TAP_QUEUE_MAX) this.normalizeTapped(Number.POSITIVE_INFINITY)
    else this.scheduleTapped()
  }

  /** Whether the file's witness entry is in these rows on another line start than when it was indexed. */
  private movedUnder(f: FileRow, index: LineIndex, fromRow: number): boolean {
    let w = this.witnesses.get(f.id)
    if (!w) {
      w = this.deps.store.lastPlaced(f.id) ?? NO_WITNESS
      this.witnesses.set(f.id, w)
    }
    if (w.seq === 0 || w.seq > f.seq || w.seq > index.total() || w.seq <= index.before(fromRow)) return false
    return index.starts[index.rowOf(w.seq)] !== w.off
  }

  private scheduleTapped(): void {
    if (this.tapTimer || this.closed || this.tapped.length === 0) return
    this.tapTimer = setTimeout(() => {
      this.tapTimer = undefined
      this.normalizeTapped(SLICE_MS)
      this.scheduleTapped()
    }, 0)
  }

  /** Normalizes tapped lines for up to `budgetMs`, queueing their searchable text. */
  private normalizeTapped(budgetMs: number): void {
    const t0 = performance.now()
    const out = new Map<FileRow, IndexedEntry[]>()
    let i = 0
    for (; i < this.tapped.length; i++) {
      if ((i & 15) === 0 && performance.now() - t0 > budgetMs) break
      const t = this.tapped[i]!
      this.tappedBytes -= t.bytes.length
      let drafts: Draft[]
      try {
        drafts = withoutDiffs(() => t.normalize(t.bytes.toString('utf8'), t.start))
      } catch {
        drafts = []
      }
      let list = out.get(t.f)
      if (!list) out.set(t.f, (list = []))
      this.searchable(t.f, drafts, t.first, t.last, t.after, t.start, list)
    }
    this.tapped.splice(0, i)
    for (const [f, entries] of out) this.queue(f, entries)
  }

  /** The searchable entries of a line's drafts (seqs first..last), past `after`, onto `out`. */
  private searchable(f: FileRow, drafts: Draft[], first: number, last: number, after: number, start: number, out: IndexedEntry[]): void {
    for (let k = 0; k < Math.min(last - first + 1, drafts.length); k++) {
      const seq = first + k
      if (seq <= after) continue
      const text = searchText(drafts[k]!)
      if (text) {
        out.push({ seq, ts: tsOf(drafts[k]!, f.mtime_ms), role: drafts[k]!.role, text, off: start, nth: k })
        if ((this.witnesses.get(f.id)?.seq ?? 0) === 0) this.witnesses.set(f.id, { seq, off: start })
      }
    }
  }

  /** LineTap: the file is indexed again from its start. */
  reset(path: string): void {
    const f = this.byPath.get(path)
    if (!f) return
    this.pending.delete(f.id)
    this.dropTapped(f)
    this.witnesses.set(f.id, NO_WITNESS)
    f.offset = 0
    f.seq = 0
    this.writer.dropFile(f.id, true)
    this.queue(f, [])
  }

  private dropTapped(f: FileRow): void {
    const kept = this.tapped.filter((t) => t.f !== f)
    for (const t of this.tapped) if (t.f === f) this.tappedBytes -= t.bytes.length
    this.tapped = kept
  }

  private queue(f: FileRow, entries: IndexedEntry[]): void {
    const held = this.pending.get(f.id)
    if (held) for (const e of entries) held.push(e)
    else this.pending.set(f.id, entries)
    if (!this.flushTimer && !this.closed) this.flushTimer = setTimeout(() => this.flush(), this.deps.flushMs ?? 100)
  }

  /**
   * Writes what is pending, FLUSH_MAX entries at a time, for about SLICE_MS a
   * turn unless `all` (2,000 entries at once held the event loop for seconds on
   * a busy machine). The writes share a transaction, committed once nothing
   * waits to be normalized or written, or COMMIT_MS after its first write
   * (a query on this connection sees them before that).
   */
  flush(all = false): void {
    clearTimeout(this.flushTimer)
    this.flushTimer = undefined
    const t0 = performance.now()
    while (this.pending.size > 0) {
      const batch: { file: FileRow; entries: IndexedEntry[] }[] = []
      let n = 0
      for (const [id, entries] of this.pending) {
        const file = this.byId.get(id)
        const take = entries.length <= FLUSH_MAX - n ? entries.length : Math.max(0, FLUSH_MAX - n)
        if (take === 0 && entries.length > 0) break
        if (file) batch.push({ file, entries: take === entries.length ? entries : entries.slice(0, take) })
        if (take === entries.length) this.pending.delete(id)
        else this.pending.set(id, entries.slice(take))
        n += take
      }
      this.openSince ??= performance.now()
      this.writer.write(batch)
      for (const b of batch) this.counters.entriesWritten += b.entries.length
      if (!all && this.pending.size > 0 && performance.now() - t0 >= SLICE_MS) {
        if (!this.closed) this.flushTimer = setTimeout(() => this.flush(), 0)
        break
      }
    }
    if (this.openSince === undefined) return
    if (all || (this.pending.size === 0 && this.tapped.length === 0) || performance.now() - this.openSince >= COMMIT_MS) {
      this.openSince = undefined
      this.writer.commit()
    }
  }

  /** Adding a file on this thread may be refused (disk full): the index is incomplete, and costs nothing else. */
  private write<T>(f: () => T): T | undefined {
    try {
      return f()
    } catch (e) {
      this.failed((e as Error)?.message ?? String(e), isDiskFull(e), (e as Error)?.stack)
      return undefined
    }
  }

  /** A write the disk refused marks the index incomplete (one log line); any other failure is logged whole. */
  private failed(message: string, diskFull: boolean, stack?: string): void {
    if (!this.incomplete) this.deps.log(`search index: a write failed (${message}): search results are incomplete`)
    this.incomplete = true
    if (!diskFull) this.deps.log(`search index: ${stack ?? message}`)
  }

  /** The best hits for a query, each with its snippet read back from its session; one query at a time (SEARCH_WAITING_MAX). */
  async search(q: ParsedQuery, filters: SearchFilters, agents: AgentInfo[]): Promise<SearchResult[]> {
    if (this.queries > SEARCH_WAITING_MAX) throw new SearchBusyError()
    this.queries++
    const turn = this.queryTurn.then(() => this.searchNow(q, filters, agents))
    this.queryTurn = turn.catch(() => {})
    try {
      return await turn
    } finally {
      this.queries--
    }
  }

  private async searchNow(q: ParsedQuery, filters: SearchFilters, agents: AgentInfo[]): Promise<SearchResult[]> {
    this.flush(true)
    // what was written is committed before the query (the writer thread's connection, and the reader's, are not this one)
    await this.writer.settled()
    const hits = await this.reader.search(q.match, filters)
    const live = livePanes(agents)
    const bySession = new Map<number, Wanted[]>()
    hits.forEach((h, i) => {
      const list = bySession.get(h.file) ?? []
      list.push({ seq: h.rid % SEQ_SPAN, i, off: h.off, nth: h.nth })
      bySession.set(h.file, list)
    })
    const out: (SearchResult | undefined)[] = new Array(hits.length)
    for (const [id, wanted] of bySession) {
      const f = this.byId.get(id)
      if (!f) continue
      const texts = await this.readBack(f, wanted)
      for (const w of wanted) {
        const text = texts.get(w.seq)
        // the session changed since it was indexed: this hit is not there any more
        if (text === undefined) continue
        const { snippet, matches } = snippetOf(text, q.terms)
        // another text at that place now (a file rewritten in place): not a hit
        if (matches.length === 0 && /^[\x00-\x7f]*$/.test(q.terms.join(''))) continue
        const h = hits[w.i]!
        const r: SearchResult = {
          agent_kind: f.kind,
          session_id: f.session_id,
          project: f.project,
          title: f.title,
          seq: w.seq,
          ts: new Date(h.ts).toISOString(),
          role: h.role,
          snippet,
          matches,
        }
        const pane = live.get(`${f.kind}\u0000${f.session_id}`)
        if (pane) r.pane_id = pane
        out[w.i] = r
      }
    }
    return out.filter((r): r is SearchResult => r !== undefined)
  }

  /**
   * The searchable text of some entries of a session: each from its own line,
   * read at the offset the index kept (one read, one line normalized), while the
   * file is the one indexed; otherwise (opencode's store, an entry read back by
   * seq, another file at the path) through its transcript.
   */
  private async readBack(f: FileRow, wanted: Wanted[]): Promise<Map<number, string>> {
    const texts = new Map<number, string>()
    const normalize: LineNormalizer | undefined = NORMALIZERS[f.kind as FileKind]
    // a compressed file's offsets are its plain copy's: read through its transcript
    const byLine = f.path.startsWith('/') && !isCompressed(f.path) && normalize !== undefined ? wanted.filter((w) => w.off >= 0) : []
    let rest = wanted
    if (byLine.length) {
      let fh: FileHandle | undefined
      try {
        fh = await open(f.path, constants.O_RDONLY | constants.O_NOFOLLOW)
        if ((await fh.stat()).ino === f.ino) {
          for (const w of byLine) {
            const line = await lineAt(fh, w.off)
            this.counters.snippetLines++
            let drafts: Draft[] = []
            try {
              drafts = line === undefined || !normalize ? [] : withoutDiffs(() => normalize(line, w.off))
            } catch {}
            const d = drafts[w.nth]
            const text = d && searchText(d)
            if (text) texts.set(w.seq, text)
          }
          rest = wanted.filter((w) => w.off < 0)
        }
      } catch {
        // gone or unreadable: no snippet, no hit
        return texts
      } finally {
        await fh?.close().catch(() => {})
      }
    }
    if (rest.length)
      for (const [seq, text] of await this.readBackBySeq(
        f,
        rest.map((w) => w.seq),
      ))
        texts.set(seq, text)
    return texts
  }

  /** The searchable text of some entries of a session, through its transcript (its line index). */
  private async readBackBySeq(f: FileRow, seqs: number[]): Promise<Map<number, string>> {
    const texts = new Map<number, string>()
    const source = this.deps.sources.forKind(f.kind)
    if (!source) return texts
    const s: FoundSession = {
      kind: f.kind as FoundSession['kind'],
      id: f.session_id,
      cwd: f.project,
      title: f.title,
      mtimeMs: f.mtime_ms,
      file: f.path.startsWith('/') ? f.path : undefined,
    }
    let resolved
    try {
      resolved = await source.resolve(agentShowing(s, ''), {})
    } catch {
      return texts
    }
    if (!resolved.ok) return texts
    try {
      if (resolved.sessionId !== f.session_id) return texts
      for (const seq of seqs) {
        const [e] = await resolved.timeline.read(seq, seq)
        const text = e && searchText(e)
        if (text) texts.set(seq, text)
      }
    } finally {
      resolved.timeline.release()
    }
    return texts
  }

  async close(): Promise<void> {
    this.closed = true
    clearTimeout(this.loop)
    await this.running
    clearTimeout(this.tapTimer)
    this.normalizeTapped(Number.POSITIVE_INFINITY)
    this.flush(true)
    if (this.deps.jsonl.tap === this) this.deps.jsonl.tap = undefined
    await this.writer.close()
    await this.reader.close()
    this.deps.store.close()
  }
}
