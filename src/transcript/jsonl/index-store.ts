// The on-disk cache of JSONL line indexes, in the data dir: a bridge restart
// serves a file it indexed before without reading it again, and a file that
// only grew is extended from the saved end. One file per (transcript path,
// normalizer, fold):
//
//   "GTHIDX01" | u32 header bytes | u32 0 | header JSON, padded to 8 |
//   starts f64×rows | ends f64×rows | cum f64×rows | wyhash64 of all before
//
// The header names the transcript path, the normalizer, the fold and the code
// that wrote it, the file as it was (dev, ino, size, mtime) and its head and
// tail bytes, and holds the newest page's entries when they were at hand (a
// restart sends them without normalizing their lines again). This module only checks that a cache file is whole and ours
// (checksum, header, shape); whether it still describes the transcript (same
// inode, not shorter, not rewritten, same head and tail bytes) is checked by
// the JSONL file against its open descriptor. Anything that fails is ignored
// and the file is indexed from scratch: a cache can cost a re-read, never a
// wrong page. The directory is bounded (bytes and files); the least recently
// used entries go first.
import { mkdirSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { readFile, readdir, rename, stat, unlink, utimes, writeFile } from 'node:fs/promises'
import { dirname, join, relative } from 'node:path'
import { LineIndex } from './line-index'
import type { LineFold } from './normalizer'
import type { Entry } from '../entry'

const MAGIC = Buffer.from('GTHIDX01')
const PRELUDE = 16
const ROW_BYTES = 24
const SUFFIX = '.idx'

/** What a cache file holds: an index (with its fold facts) and the transcript as it was when saved. */
export interface SavedIndex {
  index: LineIndex
  dev: number
  ino: number
  /** the transcript's size when saved (≥ index.scanned: a half-written line may follow) */
  size: number
  mtimeMs: number
  /** the first bytes of the transcript */
  headPrint: Buffer
  /** the bytes just before index.scanned */
  tailPrint: Buffer
  /** the newest entries, normalized (contiguous seqs ending at the index's total), when they were at hand */
  newest?: Entry[]
}

export interface IndexStoreOptions {
  dir: string
  /** bytes all cache files may use together (default 256 MiB) */
  maxBytes?: number
  /** cache files kept (default 256) */
  maxFiles?: number
  /** identifies the code that counts and folds; a cache written by other code is not used (default: computed) */
  stamp?: string
  log?: (message: string) => void
  /** where the store counts (default: counters of its own) */
  counters?: IndexStoreCounters
}

/** What an index store did (the app's own), for tests and measurements. */
export type IndexStoreCounters = ReturnType<typeof newIndexStoreCounters>

export const newIndexStoreCounters = () => ({
  /** saved indexes used */
  loads: 0,
  /** cache files ignored: unreadable, corrupt, foreign or from other code (see lastReject) */
  rejects: 0,
  /** cache files written */
  saves: 0,
  lastReject: '',
})

interface Header {
  path: string
  key: string
  stamp: string
  dev: number
  ino: number
  size: number
  mtimeMs: number
  scanned: number
  rows: number
  head: string
  tail: string
  facts?: unknown
  newest?: Entry[]
}

export class IndexStore {
  readonly dir: string
  /** what this store did (tests and benches read it) */
  readonly counters: IndexStoreCounters
  private readonly maxBytes: number
  private readonly maxFiles: number
  private readonly stamp: string
  private readonly log: (message: string) => void
  private lastLogged = ''
  /** per cache file: the write in flight, and the newest snapshot waiting for it */
  private readonly writing = new Map<string, { next: Buffer | null }>()
  /** cache files read ahead at start (readAhead), each given to the first load() of it */
  private readonly ahead = new Map<string, Buffer>()

  constructor(opts: IndexStoreOptions) {
    this.dir = opts.dir
    this.maxBytes = opts.maxBytes ?? 256 * 1024 * 1024
    this.maxFiles = opts.maxFiles ?? 256
    this.stamp = opts.stamp ?? codeStamp()
    this.log = opts.log ?? ((m) => console.warn(m))
    this.counters = opts.counters ?? newIndexStoreCounters()
  }

  /** The cache file of a transcript (the code stamp is not in the name: new code overwrites old entries). */
  fileOf(path: string, key: string): string {
    return join(this.dir, Bun.hash.wyhash(`${path}\0${key}`, 0n).toString(16).padStart(16, '0') + SUFFIX)
  }

  /**
   * The saved index of `path` under `key`, whole and ours, or undefined. Does
   * not look at the transcript: the caller checks it still matches.
   */
  async load(path: string, key: string, fold: LineFold | undefined): Promise<SavedIndex | undefined> {
    const file = this.fileOf(path, key)
    let buf: Buffer | undefined = this.ahead.get(file)
    this.ahead.delete(file)
    try {
      buf ??= await readFile(file)
    } catch (err) {
      if ((err as NodeJS.ErrnoException)?.code !== 'ENOENT') this.reject(file, `unreadable: ${(err as Error)?.message ?? err}`)
      return undefined
    }
    const why = { reason: '' }
    const saved = this.decode(buf, path, key, fold, why)
    if (!saved) {
      this.reject(file, why.reason)
      return undefined
    }
    this.counters.loads++
    const now = new Date()
    utimes(file, now, now).catch(() => {}) // recently used: evicted last
    return saved
  }

  /**
   * Saves a snapshot of the index now (copied before this returns, so the
   * caller may keep growing it); the write happens in the background, through a
   * temp file renamed into place. Never throws.
   */
  save(path: string, key: string, fold: LineFold | undefined, s: SavedIndex): void {
    let buf: Buffer
    try {
      buf = this.encode(path, key, fold, s)
    } catch (err) {
      this.report(`index cache: cannot save ${path}: ${(err as Error)?.message ?? err}`)
      return
    }
    if (buf.length > this.maxBytes) return // bigger than the whole cache: not worth keeping
    const file = this.fileOf(path, key)
    this.ahead.delete(file) // older than what is being saved
    const w = this.writing.get(file)
    if (w) {
      w.next = buf // a write is in flight: the newest snapshot follows it
      return
    }
    const slot = { next: buf as Buffer | null }
    this.writing.set(file, slot)
    void (async () => {
      while (slot.next) {
        const data = slot.next
        slot.next = null
        try {
          mkdirSync(this.dir, { recursive: true, mode: 0o700 })
          const tmp = `${file}.${process.pid}.tmp`
          await writeFile(tmp, data, { mode: 0o600 })
          await rename(tmp, file)
          this.counters.saves++
        } catch (err) {
          this.report(`index cache: cannot write ${file}: ${(err as Error)?.message ?? err}`)
        }
      }
      this.writing.delete(file)
      await this.evict().catch((err) => this.report(`index cache: eviction failed: ${(err as Error)?.message ?? err}`))
    })()
  }

  /**
   * Reads the most recently used cache files, up to `maxBytes` together, into
   * memory: after a restart the phones that were watching come back to the
   * same transcripts, and load() then finds their bytes already read (at
   * 500 MB, a 2.2 MB file: ~11 ms of a fresh process's first connect). What no
   * load() takes within `keepMs` is let go. Bytes read here are checked by
   * load() as any others. Returns how many files were read.
   */
  async readAhead(maxBytes: number, keepMs: number): Promise<number> {
    let names: string[]
    try {
      names = await readdir(this.dir)
    } catch {
      return 0
    }
    const files: { path: string; size: number; used: number }[] = []
    for (const name of names) {
      if (!name.endsWith(SUFFIX)) continue
      const path = join(this.dir, name)
      try {
        const st = await stat(path)
        if (st.isFile()) files.push({ path, size: st.size, used: st.mtimeMs })
      } catch {
        // gone meanwhile
      }
    }
    files.sort((a, b) => b.used - a.used)
    let budget = maxBytes
    let read = 0
    for (const f of files) {
      // being replaced: load() reads the new one, so it costs none of the budget
      if (f.size > budget || this.writing.has(f.path)) continue
      budget -= f.size
      try {
        const buf = await readFile(f.path)
        if (this.writing.has(f.path)) continue
        this.ahead.set(f.path, buf)
        read++
      } catch {
        // gone meanwhile: load() finds that out itself
      }
    }
    if (read > 0) {
      const t = setTimeout(() => this.ahead.clear(), keepMs)
      ;(t as { unref?: () => void }).unref?.()
    }
    return read
  }

  /** Resolves once every write started so far is done, or after `maxMs` (a shutdown must not hang on a disk). */
  async flush(maxMs = Number.POSITIVE_INFINITY): Promise<void> {
    const deadline = performance.now() + maxMs
    while (this.writing.size > 0 && performance.now() < deadline) await Bun.sleep(2)
  }

  /** Keeps the directory under its bounds, least recently used first; drops stray temp files. */
  async evict(): Promise<void> {
    let names: string[]
    try {
      names = await readdir(this.dir)
    } catch {
      return
    }
    const entries: { path: string; size: number; used: number }[] = []
    for (const name of names) {
      const path = join(this.dir, name)
      try {
        const st = await stat(path)
        if (name.endsWith('.tmp')) {
          if (Date.now() - st.mtimeMs > 60_000) await unlink(path) // left by a crash
          continue
        }
        if (name.endsWith(SUFFIX) && st.isFile()) entries.push({ path, size: st.size, used: st.mtimeMs })
      } catch {
        // gone meanwhile
      }
    }
    entries.sort((a, b) => a.used - b.used)
    let bytes = entries.reduce((n, e) => n + e.size, 0)
    let count = entries.length
    for (const e of entries) {
      if (bytes <= this.maxBytes && count <= this.maxFiles) break
      if (this.writing.has(e.path)) continue
      try {
        await unlink(e.path)
      } catch {
        // gone meanwhile
      }
      bytes -= e.size
      count--
    }
  }

  private encode(path: string, key: string, fold: LineFold | undefined, s: SavedIndex): Buffer {
    const { index } = s
    const header: Header = {
      path,
      key,
      stamp: this.stamp,
      dev: s.dev,
      ino: s.ino,
      size: s.size,
      mtimeMs: s.mtimeMs,
      scanned: index.scanned,
      rows: index.rows,
      head: s.headPrint.toString('base64'),
      tail: s.tailPrint.toString('base64'),
      ...(fold ? { facts: fold.save(index.facts) } : {}),
      ...(s.newest?.length ? { newest: s.newest } : {}),
    }
    const json = Buffer.from(JSON.stringify(header))
    const headerBytes = (json.length + 7) & ~7
    const body = PRELUDE + headerBytes
    const total = body + index.rows * ROW_BYTES + 8
    const buf = Buffer.from(new ArrayBuffer(total))
    MAGIC.copy(buf, 0)
    buf.writeUInt32LE(json.length, 8)
    json.copy(buf, PRELUDE)
    buf.fill(0x20, PRELUDE + json.length, body)
    const rows = new Float64Array(buf.buffer, body, index.rows * 3)
    rows.set(index.starts.subarray(0, index.rows), 0)
    rows.set(index.ends.subarray(0, index.rows), index.rows)
    rows.set(index.cum.subarray(0, index.rows), index.rows * 2)
    buf.writeBigUInt64LE(Bun.hash.wyhash(buf.subarray(0, total - 8), 0n), total - 8)
    return buf
  }

  private decode(buf: Buffer, path: string, key: string, fold: LineFold | undefined, why: { reason: string }): SavedIndex | undefined {
    const no = (reason: string) => ((why.reason = reason), undefined)
    if (buf.length < PRELUDE + 8 || !buf.subarray(0, 8).equals(MAGIC)) return no('not an index cache file')
    if (buf.readBigUInt64LE(buf.length - 8) !== Bun.hash.wyhash(buf.subarray(0, buf.length - 8), 0n)) return no('checksum mismatch')
    const jsonBytes = buf.readUInt32LE(8)
    const body = PRELUDE + ((jsonBytes + 7) & ~7)
    if (body > buf.length - 8) return no('header overruns the file')
    let h: Header
    try {
      h = JSON.parse(buf.toString('utf8', PRELUDE, PRELUDE + jsonBytes))
    } catch {
      return no('header is not JSON')
    }
    if (typeof h !== 'object' || h === null) return no('header is not an object')
    if (h.path !== path || h.key !== key) return no('written for another transcript')
    if (h.stamp !== this.stamp) return no('written by other code')
    const nums = [h.dev, h.ino, h.size, h.mtimeMs, h.scanned, h.rows]
    if (!nums.every((n) => typeof n === 'number' && Number.isFinite(n) && n >= 0)) return no('bad header numbers')
    if (!Number.isSafeInteger(h.rows) || buf.length !== body + h.rows * ROW_BYTES + 8) return no('rows do not fit the file')
    if (typeof h.head !== 'string' || typeof h.tail !== 'string') return no('bad prints')
    let facts: unknown
    if (fold) {
      facts = 'facts' in h ? fold.load(h.facts) : undefined
      if (facts === undefined) return no('facts not readable by this fold')
    } else if ('facts' in h) return no('facts without a fold')
    const n = h.rows
    // The rows stay where the read put them (the index copies them only when the
    // file grows past them) when the read's buffer is the file's alone, as a
    // whole-file read's is (the format pads the header, so they are 8-aligned);
    // else one copy.
    let rows: Float64Array
    if (buf.byteOffset === 0 && buf.buffer.byteLength === buf.length) rows = new Float64Array(buf.buffer, body, n * 3)
    else {
      rows = new Float64Array(n * 3)
      new Uint8Array(rows.buffer).set(buf.subarray(body, body + n * ROW_BYTES))
    }
    const index = LineIndex.adopt(rows, n, h.scanned, facts)
    const bad = index.firstMisshapen()
    if (bad >= 0) return no(`row ${bad} out of shape`)
    if (h.scanned > h.size) return no('scanned past the saved size')
    const headPrint = Buffer.from(h.head, 'base64')
    const tailPrint = Buffer.from(h.tail, 'base64')
    if (headPrint.length > h.scanned || tailPrint.length > h.scanned || (h.scanned > 0 && (headPrint.length === 0 || tailPrint.length === 0)))
      return no('prints do not fit')
    let newest: Entry[] | undefined
    if (h.newest !== undefined) {
      // Written by this code (stamp) and whole (checksum): its shape is checked, not every field.
      const total = n > 0 ? index.cum[n - 1]! : 0
      const ok =
        Array.isArray(h.newest) &&
        h.newest.length > 0 &&
        h.newest.every((e, i) => typeof e === 'object' && e !== null && typeof e.id === 'string' && e.seq === total - h.newest!.length + 1 + i)
      if (!ok) return no('newest entries do not fit the index')
      newest = h.newest
    }
    return { index, dev: h.dev, ino: h.ino, size: h.size, mtimeMs: h.mtimeMs, headPrint, tailPrint, newest }
  }

  /**
   * A saved index the caller found no longer describes its transcript (another
   * file at the path, rewritten, shorter): counted with the rejects; the caller
   * indexes the file again, and its next save replaces the entry.
   */
  stale(reason: string): void {
    this.counters.rejects++
    this.counters.lastReject = reason
  }

  private reject(file: string, reason: string): void {
    this.stale(reason)
    this.report(`index cache: ignored ${file} (${reason}); indexing the transcript again`)
    unlink(file).catch(() => {}) // replaced by the next save anyway; a corrupt file should not linger
  }

  private report(message: string): void {
    if (message === this.lastLogged) return
    this.lastLogged = message
    this.log(message)
  }
}

// Process-wide by nature: it names the code this process runs, the same for every app in it.
let stampMemo: string | undefined

/**
 * Identifies the code that counts lines and folds facts, so a cache written by
 * another build is not trusted: the executable's size and mtime when compiled,
 * else a hash of the source tree (src/).
 */
export function codeStamp(): string {
  if (stampMemo) return stampMemo
  if (import.meta.path.startsWith('/$bunfs') || import.meta.path.startsWith('B:\\~BUN')) {
    const st = statSync(process.execPath)
    return (stampMemo = `exe:${st.size}:${Math.floor(st.mtimeMs)}`)
  }
  const src = dirname(dirname(import.meta.dir)) // src/transcript/jsonl → src
  const files: string[] = []
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name)
      if (e.isDirectory()) walk(p)
      else if (e.name.endsWith('.ts')) files.push(p)
    }
  }
  walk(src)
  let h = 0n
  for (const f of files.sort()) h = Bun.hash.wyhash(relative(src, f) + '\0' + readFileSync(f, 'utf8'), h)
  return (stampMemo = `src:${h.toString(16)}`)
}
