// The search index's SQLite file (<data dir>/search.db, its own file: it can be
// dropped and rebuilt from the sessions at any time). FTS5 with the trigram
// tokenizer, contentless: it holds the index of the text, never the text (a
// hit's snippet is read back from the session through its transcript index), so
// it stays a fraction of the sessions' bytes. An entry's rowid is its session
// file's id × 2^24 + its seq.
import { Database } from 'bun:sqlite'
import { existsSync, rmSync } from 'node:fs'

const SCHEMA = 'gothalo-search/2'
/** rowid = file id × SEQ_SPAN + seq */
export const SEQ_SPAN = 2 ** 24

export interface FileRow {
  id: number
  /** the session file's path, or `opencode:<id>` for a session in opencode's store */
  path: string
  kind: string
  session_id: string
  project: string
  title: string
  ino: number
  /** bytes of the file indexed (opencode: its time_updated) */
  offset: number
  /** entries indexed: the next entry's seq is this + 1 */
  seq: number
  /** the file's size when last seen (progress: indexed when offset reached it) */
  size: number
  mtime_ms: number
}

export interface IndexedEntry {
  seq: number
  ts: number
  role: string
  text: string
  /** where its line starts in the file, and which of the line's entries it is (a snippet reads that one line); -1 when not known */
  off: number
  nth: number
}

export interface Hit {
  rid: number
  rank: number
  ts: number
  role: string
  file: number
  off: number
  nth: number
}

/** A write the disk refused (SQLITE_FULL, or an I/O error): the index is incomplete, nothing else is. */
export function isDiskFull(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code
  return code === 'SQLITE_FULL' || code === 'SQLITE_IOERR' || /disk is full|disk I\/O error/i.test(String((e as Error)?.message))
}

export interface SearchFilter {
  kind?: string
  project?: string
  sinceMs?: number
  limit: number
}

/**
 * The best `limit` entries matching `match`, by relevance then recency, with the
 * filters: the query GET /search runs, on the main thread's connection or the
 * reader thread's (reader.ts).
 */
export function searchHits(db: Database, match: string, f: SearchFilter): Hit[] {
  const where = ['body MATCH $match']
  const params: Record<string, string | number> = { match, limit: f.limit }
  if (f.kind !== undefined) {
    where.push('f.kind = $kind')
    params.kind = f.kind
  }
  if (f.project !== undefined) {
    where.push('f.project = $project')
    params.project = f.project
  }
  if (f.sinceMs !== undefined) {
    where.push('h.ts >= $since')
    params.since = f.sinceMs
  }
  return db
    .query(
      `SELECT body.rowid AS rid, body.rank AS rank, h.ts AS ts, h.role AS role, f.id AS file, h.off AS off, h.nth AS nth
       FROM body JOIN hits h ON h.rowid = body.rowid JOIN files f ON f.id = (body.rowid / ${SEQ_SPAN})
       WHERE ${where.join(' AND ')} ORDER BY body.rank, h.ts DESC LIMIT $limit`,
    )
    .all(params) as Hit[]
}

/**
 * A connection that only reads the index at `path` (the reader thread's): the
 * main thread has made or checked the file, and the writer's connection writes.
 */
export function openReadOnly(path: string): Database {
  const db = new Database(path, { readonly: true, strict: true })
  try {
    db.exec('PRAGMA busy_timeout = 5000')
    // fails here, not at the first query, when the file is not this index
    const v = db.query("SELECT v FROM meta WHERE k = 'schema'").get() as { v: string } | null
    if (v?.v !== SCHEMA) throw new Error(`not a ${SCHEMA} index (schema ${v?.v ?? 'none'})`)
    return db
  } catch (e) {
    db.close()
    throw e
  }
}

export class SearchStore {
  readonly db: Database
  /** SQLite's max_page_count for this file (tests: a full disk), for every connection that writes */
  readonly maxPages: number | undefined

  /**
   * Opens the index at `path` (':memory:' for none on disk). A file that is not
   * this index (corrupt, another program's, an older schema) is removed and
   * made afresh, with a log line.
   */
  constructor(
    readonly path: string,
    log: (m: string) => void,
    /** keep: a file that is not this index is an error, never removed (the writer thread's connection) */
    opts: { maxPages?: number; keep?: boolean } = {},
  ) {
    this.maxPages = opts.maxPages
    let db: Database | undefined
    try {
      db = SearchStore.open(path, opts.maxPages)
    } catch (e) {
      if (path === ':memory:' || opts.keep) throw e
      log(`search index ${path} is unreadable (${(e as Error).message}): rebuilding it from the sessions`)
      try {
        db?.close()
      } catch {}
      for (const f of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(f)) rmSync(f, { force: true })
      db = SearchStore.open(path, opts.maxPages)
    }
    this.db = db
  }

  private static open(path: string, maxPages?: number): Database {
    const db = new Database(path, { create: true, strict: true })
    try {
      db.exec('PRAGMA busy_timeout = 5000')
      // pages freed by merging go back to the disk (set before the first table: a new file only)
      db.exec('PRAGMA auto_vacuum = INCREMENTAL')
      db.exec('PRAGMA journal_mode = WAL')
      // no fsync: the index is rebuilt from the sessions if a power cut leaves it torn (quick_check below)
      db.exec('PRAGMA synchronous = OFF')
      if (maxPages !== undefined) db.exec(`PRAGMA max_page_count = ${Math.floor(maxPages)}`)
      const hasMeta = db.query("SELECT 1 FROM sqlite_master WHERE name = 'meta'").get()
      const tables = db.query("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get() as { n: number }
      if (hasMeta) {
        const v = db.query("SELECT v FROM meta WHERE k = 'schema'").get() as { v: string } | null
        if (v?.v !== SCHEMA) throw new Error(`not a ${SCHEMA} index (schema ${v?.v ?? 'none'})`)
        const ok = db.query('PRAGMA quick_check').get() as { quick_check: string }
        if (ok.quick_check !== 'ok') throw new Error(`quick_check: ${ok.quick_check}`)
      } else if (tables.n > 0) throw new Error('a database of something else')
      db.exec(`
        CREATE TABLE IF NOT EXISTS meta (k TEXT PRIMARY KEY, v TEXT NOT NULL);
        INSERT OR IGNORE INTO meta (k, v) VALUES ('schema', '${SCHEMA}');
        CREATE TABLE IF NOT EXISTS files (
          id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, kind TEXT NOT NULL, session_id TEXT NOT NULL,
          project TEXT NOT NULL, title TEXT NOT NULL, ino INTEGER NOT NULL, offset INTEGER NOT NULL,
          seq INTEGER NOT NULL, size INTEGER NOT NULL, mtime_ms INTEGER NOT NULL);
        CREATE TABLE IF NOT EXISTS hits (rowid INTEGER PRIMARY KEY, ts INTEGER NOT NULL, role TEXT NOT NULL, off INTEGER NOT NULL, nth INTEGER NOT NULL);
        CREATE VIRTUAL TABLE IF NOT EXISTS body USING fts5(text, content = '', contentless_delete = 1, tokenize = 'trigram');
      `)
      // few merges while entries are written (a merge inside a small write held the event loop for
      // a tenth of a second); the segments are merged afterwards, a slice at a time (mergeSome)
      db.exec("INSERT INTO body (body, rank) VALUES ('automerge', 16)")
      return db
    } catch (e) {
      db.close()
      throw e
    }
  }

  files(): FileRow[] {
    return this.db.query('SELECT * FROM files').all() as FileRow[]
  }

  addFile(f: Omit<FileRow, 'id'>): FileRow {
    const r = this.db
      .query(
        'INSERT INTO files (path, kind, session_id, project, title, ino, offset, seq, size, mtime_ms) VALUES ($path, $kind, $session_id, $project, $title, $ino, $offset, $seq, $size, $mtime_ms) RETURNING id',
      )
      .get(f) as { id: number }
    return { ...f, id: r.id }
  }

  /** A file with its id given (by the writer thread's caller). */
  insertFile(f: FileRow): void {
    this.db
      .query(
        'INSERT INTO files (id, path, kind, session_id, project, title, ino, offset, seq, size, mtime_ms) VALUES ($id, $path, $kind, $session_id, $project, $title, $ino, $offset, $seq, $size, $mtime_ms)',
      )
      .run({ ...f })
  }

  /** A file's progress and facts. */
  saveFile(f: FileRow): void {
    this.db
      .query('UPDATE files SET project = $project, title = $title, ino = $ino, offset = $offset, seq = $seq, size = $size, mtime_ms = $mtime_ms WHERE id = $id')
      .run({ id: f.id, project: f.project, title: f.title, ino: f.ino, offset: f.offset, seq: f.seq, size: f.size, mtime_ms: f.mtime_ms })
  }

  /** The file's last entry held with its line's start (a witness that the file still has that line there), if any. */
  lastPlaced(id: number): { seq: number; off: number } | undefined {
    const lo = id * SEQ_SPAN
    const r = this.db.query('SELECT rowid, off FROM hits WHERE rowid BETWEEN ? AND ? AND off >= 0 ORDER BY rowid DESC LIMIT 1').get(lo, lo + SEQ_SPAN - 1) as {
      rowid: number
      off: number
    } | null
    return r ? { seq: r.rowid - lo, off: r.off } : undefined
  }

  /** Forgets a file's entries (and the file itself unless `keepFile`). */
  dropFile(id: number, keepFile = false): void {
    const lo = id * SEQ_SPAN
    const hi = lo + SEQ_SPAN - 1
    this.db.transaction(() => {
      this.db.query('DELETE FROM body WHERE rowid BETWEEN ? AND ?').run(lo, hi)
      this.db.query('DELETE FROM hits WHERE rowid BETWEEN ? AND ?').run(lo, hi)
      if (!keepFile) this.db.query('DELETE FROM files WHERE id = ?').run(id)
    })()
  }

  /**
   * Entries of files, and each file's progress, in the open transaction (begun
   * here when none is): many writes share one until `commit`, since every commit
   * flushes FTS5's pending terms into a segment of its own (64 entries a commit
   * cost the build more than inserting them). A write that fails rolls back
   * everything not committed (as a failed commit would) and throws.
   */
  write(batch: { file: FileRow; entries: IndexedEntry[] }[]): void {
    const body = this.db.query('INSERT OR REPLACE INTO body (rowid, text) VALUES (?, ?)')
    const hits = this.db.query('INSERT OR REPLACE INTO hits (rowid, ts, role, off, nth) VALUES (?, ?, ?, ?, ?)')
    if (!this.db.inTransaction) this.db.exec('BEGIN')
    try {
      for (const { file, entries } of batch) {
        const base = file.id * SEQ_SPAN
        for (const e of entries) {
          body.run(base + e.seq, e.text)
          hits.run(base + e.seq, e.ts, e.role, e.off, e.nth)
        }
        this.saveFile(file)
      }
    } catch (e) {
      this.rollback()
      throw e
    }
  }

  /** Commits what `write` left open (nothing to do when nothing is). */
  commit(): void {
    if (!this.db.inTransaction) return
    try {
      this.db.exec('COMMIT')
    } catch (e) {
      this.rollback()
      throw e
    }
  }

  private rollback(): void {
    // SQLite may have rolled back by itself (SQLITE_FULL)
    if (this.db.inTransaction) this.db.exec('ROLLBACK')
  }

  /** The best `limit` entries matching `match`, by relevance then recency, with the filters (on this connection). */
  search(match: string, f: SearchFilter): Hit[] {
    return searchHits(this.db, match, f)
  }

  /**
   * One slice of FTS5's incremental merge of every segment (about `pages`
   * pages written): the index written in many small transactions is many small
   * segments until merged. True while there was work to do.
   */
  mergeSome(pages = 256): boolean {
    this.commit()
    const before = (this.db.query('SELECT total_changes() AS n').get() as { n: number }).n
    this.db.query("INSERT INTO body (body, rank) VALUES ('merge', ?)").run(-pages)
    if ((this.db.query('SELECT total_changes() AS n').get() as { n: number }).n - before > 1) return true
    // merged: the pages it freed go back to the disk, a slice at a time too
    const free = (this.db.query('PRAGMA freelist_count').get() as { freelist_count: number }).freelist_count
    if (free === 0) return false
    this.db.exec(`PRAGMA incremental_vacuum(${pages})`)
    return true
  }

  close(): void {
    try {
      this.commit()
    } catch {
      // a full disk: what was not committed is indexed again after a restart
    }
    this.db.close()
  }
}
