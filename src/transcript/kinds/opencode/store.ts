// Read-only access to opencode's own store, for when its HTTP service is not
// reachable: the SQLite database (<data>/opencode.db, WAL mode) or, on older
// installs, the legacy JSON files under <data>/storage/.
// The database is opened read-only and every query is a short implicit read
// transaction, so opencode (the writer) is never locked out and each call sees
// the latest committed rows.
import { Database } from 'bun:sqlite'
import { existsSync, readdirSync, realpathSync, statSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { openInside } from '../../jsonl/jsonl-file'
import { join, sep } from 'node:path'
import type { Draft } from '../../entry'
import { isObj, jsonIn, str } from '../../tool-summary'
import { normalizeOpencodeMessages, type OpencodeLegacyMessage } from './normalize'

/** A session as every opencode reader (store, 1.x API, v2 API) can describe it. */
export interface OpencodeSession {
  id: string
  /** the session's working directory (1.x `directory`, v2 `location.directory`) */
  directory: string
  parentId?: string
  title?: string
  /** ms epoch */
  timeCreated?: number
  /** ms epoch */
  timeUpdated: number
}

export interface OpencodeStore {
  readonly kind: 'sqlite' | 'json'
  /** Sessions, newest updated first; archived ones left out. */
  listSessions(): Promise<OpencodeSession[]>
  session(id: string): Promise<OpencodeSession | undefined>
  /**
   * Raw messages oldest first: 2.x projected messages when the session has any in
   * session_message, else 1.x {info, parts}. `limit` keeps only the newest N.
   */
  rawMessages(sessionId: string, opts?: { limit?: number }): Promise<unknown[]>
  /** All of a session's entries, in order. */
  messages(sessionId: string): Promise<Draft[]>
  /**
   * A counter that changes whenever another connection committed (SQLite's
   * data_version): an unchanged value means nothing to re-read. undefined when
   * the store cannot tell (JSON files: always re-read).
   */
  dataVersion?(): number | undefined
  close(): void
}

/** `$XDG_DATA_HOME/opencode`. */
export function opencodeDataDir(xdgDataHome: string): string {
  return join(xdgDataHome, 'opencode')
}

/**
 * Opens the store in an opencode data dir: opencode.db (or the most recently modified
 * opencode*.db, for channel builds) when present, else storage/ JSON files.
 * undefined when there is neither, or the database cannot be opened.
 */
export function openOpencodeStore(dataDir: string, opts: { dbPath?: string } = {}): OpencodeStore | undefined {
  const dbPath = opts.dbPath ?? pickDatabase(dataDir)
  if (dbPath) {
    try {
      // Read only through a real path inside opencode's own data dir: a database
      // replaced by a symlink to somewhere else is not opened (as for session files).
      const real = realpathSync(dbPath)
      const root = realpathSync(dataDir)
      if (!real.startsWith(root.endsWith(sep) ? root : root + sep)) return undefined
      return new SqliteStore(real)
    } catch {
      return undefined
    }
  }
  const storage = join(dataDir, 'storage')
  if (isDir(join(storage, 'session'))) return new JsonStore(storage)
  return undefined
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory()
  } catch {
    return false
  }
}

function pickDatabase(dataDir: string): string | undefined {
  const main = join(dataDir, 'opencode.db')
  if (existsSync(main)) return main
  let best: { path: string; mtime: number } | undefined
  try {
    for (const name of readdirSync(dataDir)) {
      if (!/^opencode.*\.db$/.test(name)) continue
      const path = join(dataDir, name)
      const mtime = statSync(path).mtimeMs
      if (!best || mtime > best.mtime) best = { path, mtime }
    }
  } catch {
    return undefined
  }
  return best?.path
}

/** A session from a db row, a 1.x Session.Info or a v2 SessionInfo; undefined when it has no id/directory. */
export function toOpencodeSession(raw: unknown): OpencodeSession | undefined {
  if (!isObj(raw) || typeof raw.id !== 'string') return undefined
  const time = isObj(raw.time) ? raw.time : {}
  const location = isObj(raw.location) ? raw.location : {}
  const directory = str(raw.directory) ?? str(location.directory)
  if (directory === undefined) return undefined
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined)
  const s: OpencodeSession = {
    id: raw.id,
    directory,
    timeUpdated: num(raw.time_updated) ?? num(time.updated) ?? num(raw.time_created) ?? num(time.created) ?? 0,
  }
  const parent = str(raw.parent_id) ?? str(raw.parentID)
  if (parent) s.parentId = parent
  const title = str(raw.title)
  if (title !== undefined) s.title = title
  const created = num(raw.time_created) ?? num(time.created)
  if (created !== undefined) s.timeCreated = created
  return s
}

type Row = Record<string, unknown>

class SqliteStore implements OpencodeStore {
  readonly kind = 'sqlite' as const
  private db: Database

  constructor(path: string) {
    this.db = new Database(path, { readonly: true })
    // A read only waits when opencode checkpoints; keep that short (the poll retries).
    this.db.run('PRAGMA busy_timeout = 250')
    // Fails here, not on first use, when the file is not an opencode database.
    this.db.query('SELECT id FROM session LIMIT 0').all()
  }

  async listSessions(): Promise<OpencodeSession[]> {
    const rows = this.db.query('SELECT * FROM session WHERE time_archived IS NULL ORDER BY time_updated DESC').all() as Row[]
    return rows.flatMap((r) => toOpencodeSession(r) ?? [])
  }

  async session(id: string): Promise<OpencodeSession | undefined> {
    const r = this.db.query('SELECT * FROM session WHERE id = ?').get(id) as Row | null
    return r ? toOpencodeSession(r) : undefined
  }

  async rawMessages(sessionId: string, opts: { limit?: number } = {}): Promise<unknown[]> {
    const limit = opts.limit ?? -1
    const v2 = this.v2Messages(sessionId, limit)
    if (v2.length) return v2
    // The newest N by (time, id), then oldest first.
    const msgs = this.db
      .query('SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created DESC, id DESC LIMIT ?')
      .all(sessionId, limit) as Row[]
    msgs.reverse()
    const infos = msgs.map((r) => ({ id: r.id as string, data: jsonIn(r.data) }))
    if (!infos.length) return []
    const placeholders = infos.map(() => '?').join(',')
    const parts = this.db
      .query(`SELECT id, message_id, data FROM part WHERE message_id IN (${placeholders}) ORDER BY message_id, id`)
      .all(...infos.map((m) => m.id)) as Row[]
    const byMessage = new Map<string, unknown[]>()
    for (const p of parts) {
      const data = jsonIn(p.data)
      // The row holds the part without its ids: put them back.
      const part = isObj(data) ? { ...data, id: p.id, messageID: p.message_id, sessionID: sessionId } : { id: p.id, type: 'unparsable' }
      const list = byMessage.get(p.message_id as string) ?? []
      list.push(part)
      byMessage.set(p.message_id as string, list)
    }
    return infos.map(
      (m): OpencodeLegacyMessage => ({
        info: isObj(m.data) ? { ...m.data, id: m.id, sessionID: sessionId } : { id: m.id, sessionID: sessionId },
        parts: byMessage.get(m.id) ?? [],
      }),
    )
  }

  private v2Messages(sessionId: string, limit: number): unknown[] {
    let rows: Row[]
    try {
      rows = this.db
        .query('SELECT * FROM (SELECT id, type, seq, data FROM session_message WHERE session_id = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq')
        .all(sessionId, limit) as Row[]
    } catch {
      return [] // a 1.x database without the table
    }
    return rows.map((r) => {
      const data = jsonIn(r.data)
      return { ...(isObj(data) ? data : {}), id: r.id, type: r.type }
    })
  }

  async messages(sessionId: string): Promise<Draft[]> {
    return normalizeOpencodeMessages(await this.rawMessages(sessionId))
  }

  dataVersion(): number | undefined {
    try {
      const r = this.db.query('PRAGMA data_version').get() as { data_version?: number } | null
      return typeof r?.data_version === 'number' ? r.data_version : undefined
    } catch {
      return undefined
    }
  }

  close(): void {
    this.db.close()
  }
}

/** The pre-SQLite layout: storage/{session/<project>/<id>.json, message/<session>/<id>.json, part/<message>/<id>.json}. */
class JsonStore implements OpencodeStore {
  readonly kind = 'json' as const
  constructor(private root: string) {}

  private async readJson(path: string): Promise<unknown> {
    try {
      // Only through a real path inside opencode's storage: a symlink out of it reads as nothing.
      const fh = await openInside(path, this.root)
      try {
        return JSON.parse(await fh.readFile('utf8'))
      } finally {
        await fh.close()
      }
    } catch {
      return undefined
    }
  }

  /** *.json in a dir, sorted by name (opencode ids sort chronologically); temp files skipped. */
  private async jsonFiles(dir: string): Promise<string[]> {
    try {
      return (await readdir(dir)).filter((n) => n.endsWith('.json') && !n.startsWith('.')).sort()
    } catch {
      return []
    }
  }

  async listSessions(): Promise<OpencodeSession[]> {
    const base = join(this.root, 'session')
    const out: OpencodeSession[] = []
    let projects: string[]
    try {
      projects = await readdir(base)
    } catch {
      return []
    }
    for (const p of projects) {
      for (const f of await this.jsonFiles(join(base, p))) {
        const raw = await this.readJson(join(base, p, f))
        if (isObj(raw) && isObj(raw.time) && raw.time.archived !== undefined) continue
        const s = toOpencodeSession(raw)
        if (s) out.push(s)
      }
    }
    return out.sort((a, b) => b.timeUpdated - a.timeUpdated)
  }

  async session(id: string): Promise<OpencodeSession | undefined> {
    return (await this.listSessions()).find((s) => s.id === id)
  }

  async rawMessages(sessionId: string, opts: { limit?: number } = {}): Promise<unknown[]> {
    const dir = join(this.root, 'message', sessionId)
    let files = await this.jsonFiles(dir)
    if (opts.limit !== undefined && opts.limit >= 0) files = files.slice(Math.max(0, files.length - opts.limit))
    const out: OpencodeLegacyMessage[] = []
    for (const f of files) {
      const info = (await this.readJson(join(dir, f))) ?? { id: f.slice(0, -5), role: 'unparsable' }
      const mid = isObj(info) && typeof info.id === 'string' ? info.id : f.slice(0, -5)
      const pdir = join(this.root, 'part', mid)
      const parts: unknown[] = []
      for (const pf of await this.jsonFiles(pdir)) {
        const part = await this.readJson(join(pdir, pf))
        if (part !== undefined) parts.push(part)
      }
      out.push({ info, parts })
    }
    return out
  }

  async messages(sessionId: string): Promise<Draft[]> {
    return normalizeOpencodeMessages(await this.rawMessages(sessionId))
  }

  close(): void {}
}
