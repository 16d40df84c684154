// GET /projects: the directories agents worked in, newest first, each with its
// sessions per agent kind, from the agents' own stores and from herdr's panes.
// It stays fast on a machine with years of sessions: a file is read only when its
// mtime or size changed since the last listing (the head of it: the title and the
// cwd), and only as far as the head needs.
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync, realpathSync, statSync } from 'node:fs'
import { basename, dirname, join, sep } from 'node:path'
import type { AgentInfo } from '../herdr/types'
import type { AgentHomes } from '../transcript/source'
import { opencodeDataDir, openOpencodeStore, type OpencodeStore } from '../transcript/kinds/opencode/store'
import { codexThreadIdFromPath } from '../transcript/kinds/codex/normalize'
import { piSessionIdFromPath } from '../transcript/kinds/pi/normalize'
import { readHead, titleOf, type FileKind, type SessionHead } from './heads'
import { insideRoots, type Roots } from './roots'
import { isCompressed, ZST_SUFFIX, zstHead } from '../transcript/jsonl/zst'

export const PROJECTS_MAX = 50
export const SESSIONS_PER_PROJECT = 20
/** the first read of a file's head; a head with no prompt in it reads up to HEAD_MAX */
const HEAD_FIRST = 16 * 1024
const HEAD_MAX = 256 * 1024

export type AgentKind = 'claude' | 'pi' | 'codex' | 'opencode'
export const AGENT_KINDS: readonly AgentKind[] = ['claude', 'pi', 'opencode', 'codex']

export interface SessionRow {
  agent_kind: AgentKind
  session_id: string
  title: string
  last_activity_ts: string
  pane_id?: string
}

export interface ProjectRow {
  path: string
  name: string
  last_activity_ts: string
  sessions: SessionRow[]
}

/** A session as found, before grouping: where its file is (pi resumes by path). */
export interface FoundSession {
  kind: AgentKind
  id: string
  cwd: string
  title: string
  mtimeMs: number
  /** ms: the session's first record (else its file's birth); GET /sessions' started_ts */
  startedMs?: number
  file?: string
  /** the file's size and inode when it was listed (the search index's pass needs no stat of its own) */
  size?: number
  ino?: number
}

/** A file as last seen: its identity (size, mtime, inode) and what it gave the listing. */
interface Cached {
  mtimeMs: number
  size: number
  ino: number
  head: SessionHead
  /** the listing's row of it (undefined: no cwd or no id) */
  found: FoundSession | undefined
  /** a listing has returned it (false: only sessionAt has seen it, so the next listing is new) */
  listed: boolean
}

/** A directory as last listed: read again only when its mtime or inode changed. */
interface ListedDir {
  mtimeMs: number
  ino: number
  /** the entries kept, as full paths */
  paths: string[]
  /** the mtime was older than the listing by more than a file system's mtime tick (else the next listing reads it again) */
  settled: boolean
}

/**
 * How long after its mtime a directory's listing is trusted: an mtime with a
 * fraction of a second comes from a file system with fine timestamps (ext4,
 * btrfs, APFS: a kernel tick of a few ms); whole seconds may be FAT's 2 s.
 */
const mtimeTick = (mtimeMs: number) => (mtimeMs % 1000 === 0 ? 2000 : 100)

function readHeadOf(kind: FileKind, file: string, size: number): SessionHead {
  if (isCompressed(file)) {
    // only the whole zstd blocks that hold the head are decompressed (at most ~128 KiB past it)
    let z = zstHead(file, HEAD_FIRST)
    let head = readHead(kind, z.text.toString('utf8'), z.complete)
    if (head.title || z.complete) return head
    z = zstHead(file, HEAD_MAX)
    head = readHead(kind, z.text.toString('utf8'), z.complete)
    return head
  }
  // non-blocking: a named pipe swapped in after the stat would hold the open (and the event loop) until a writer came
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK)
  try {
    if (!fstatSync(fd).isFile()) return {}
    let want = Math.min(size, HEAD_FIRST)
    for (;;) {
      const buf = Buffer.allocUnsafe(want)
      const n = readSync(fd, buf, 0, want, 0)
      const head = readHead(kind, buf.subarray(0, n).toString('utf8'), n >= size)
      if (head.title || n >= size || want >= HEAD_MAX) return head
      want = Math.min(size, HEAD_MAX)
    }
  } finally {
    closeSync(fd)
  }
}

const isJsonl = (f: string) => f.endsWith('.jsonl')
/** a codex rollout: plain, or compressed by codex after 7 days (<name>.jsonl.zst) */
const isRollout = (f: string) => f.startsWith('rollout-') && (f.endsWith('.jsonl') || f.endsWith('.jsonl.zst'))
/** a compressed rollout whose plain file is beside it: the plain one is the session (codex's rule) */
const shadowed = (paths: string[]): ((p: string) => boolean) => {
  const plain = new Set(paths.filter((p) => !isCompressed(p)))
  return (p) => isCompressed(p) && plain.has(p.slice(0, -ZST_SUFFIX.length))
}
const rolloutsOf = (paths: string[]): string[] => {
  const hidden = shadowed(paths)
  return paths.some(isCompressed) ? paths.filter((p) => !hidden(p)) : paths
}
const any = () => true

const sessionIdOf = (kind: FileKind, file: string) =>
  kind === 'claude' ? basename(file, '.jsonl') : kind === 'pi' ? piSessionIdFromPath(file) : codexThreadIdFromPath(file)

/**
 * Every session of every kind. A warm listing costs little more than the stat
 * calls that tell it nothing changed: a directory is listed again only when its
 * mtime changed (a stat instead of a readdir), a file's head is read again only
 * when its size, mtime or inode changed, and when nothing did, the same array
 * comes back (projectsOf then reuses its grouping).
 */
export class SessionFinder {
  private readonly cache = new Map<string, Cached>()
  /** folders' real paths, during one listing (insideAgentDir) */
  private realDirs: Map<string, string> | undefined
  private readonly dirs = new Map<string, ListedDir>()
  private last: { files: FoundSession[]; opencode: FoundSession[]; all: FoundSession[] } | undefined
  private opencode: OpencodeStore | undefined

  constructor(private readonly homes: AgentHomes) {}

  /** A directory's entries that `keep` accepts, as full paths; listed again only when it changed. */
  private list(dir: string, keep: (name: string) => boolean): string[] {
    const st = statSync(dir, { throwIfNoEntry: false })
    if (!st?.isDirectory()) {
      this.dirs.delete(dir)
      return []
    }
    const c = this.dirs.get(dir)
    if (c && c.mtimeMs === st.mtimeMs && c.ino === st.ino && c.settled) return c.paths
    const listedAt = Date.now()
    let names: string[] = []
    try {
      names = readdirSync(dir)
    } catch {}
    const paths = names.filter(keep).map((n) => join(dir, n))
    // an entry made in the same mtime tick as this listing would leave the mtime as it is: trust it only once it is older
    this.dirs.set(dir, { mtimeMs: st.mtimeMs, ino: st.ino, paths, settled: st.mtimeMs < listedAt - mtimeTick(st.mtimeMs) })
    return paths
  }

  /** The session files of the file-backed kinds, by kind. */
  private *files(): Generator<[FileKind, string]> {
    const { claude, pi, codex, codexArchived } = this.dirsOf()
    for (const p of this.list(claude, any)) for (const f of this.list(p, isJsonl)) yield ['claude', f]
    for (const p of this.list(pi, any)) for (const f of this.list(p, isJsonl)) yield ['pi', f]
    for (const y of this.list(codex, any))
      for (const m of this.list(y, any)) for (const d of this.list(m, any)) for (const f of rolloutsOf(this.list(d, isRollout))) yield ['codex', f]
    // `codex archive` moves a rollout here (flat, same names); one still under sessions/ is that one
    for (const f of rolloutsOf(this.list(codexArchived, isRollout))) yield ['codex', f]
  }

  /** Whether `file`'s real path lies inside its kind's directory (where its transcript source reads: openInside's rule). */
  private insideAgentDir(kind: FileKind, file: string): boolean {
    const root = kind === 'claude' ? this.homes.claudeDir : kind === 'pi' ? this.homes.piDir : (this.homes.codexDir ?? join(this.homes.home, '.codex'))
    const realRoot = this.realOf(root)
    // a file that is itself a link: where it leads decides; any other: its folder's real path (one per folder)
    const real = lstatSync(file).isSymbolicLink() ? realpathSync(file) : join(this.realOf(dirname(file)), basename(file))
    return real.startsWith(realRoot.endsWith(sep) ? realRoot : realRoot + sep)
  }

  /** A folder's real path: kept for one listing only (a folder swapped for a link later is seen at the next). */
  private realOf(dir: string): string {
    let real = this.realDirs?.get(dir)
    if (real === undefined) {
      real = realpathSync(dir)
      this.realDirs?.set(dir, real)
    }
    return real
  }

  /** The session files' directories of each file-backed kind: where files() looks. */
  private dirsOf() {
    const codexHome = this.homes.codexDir ?? join(this.homes.home, '.codex')
    return {
      claude: join(this.homes.claudeDir, 'projects'),
      pi: join(this.homes.piDir, 'sessions'),
      codex: join(codexHome, 'sessions'),
      codexArchived: join(codexHome, 'archived_sessions'),
    }
  }

  /** A file's listing row, its head read again only when its size, mtime or inode changed (`changed`: it was read). */
  private rowOf(kind: FileKind, file: string, st: { mtimeMs: number; size: number; ino: number }): { c: Cached; changed: boolean } {
    const c = this.cache.get(file)
    if (c && c.mtimeMs === st.mtimeMs && c.size === st.size && c.ino === st.ino) return { c, changed: false }
    let head: SessionHead = {}
    try {
      // a file whose real path leaves the agent's directory (a symlink there, or to a folder) is none of its
      // sessions: its source would refuse to open it (openInside), and its head is not shown either
      if (this.insideAgentDir(kind, file)) head = readHeadOf(kind, file, st.size)
    } catch {
      // unreadable now: listed without a title, read again next time
    }
    const id = head.cwd ? sessionIdOf(kind, file) : undefined
    const row =
      head.cwd && id
        ? { kind, id, cwd: head.cwd, title: head.title ?? '', mtimeMs: st.mtimeMs, startedMs: head.startedMs, file, size: st.size, ino: st.ino }
        : undefined
    const fresh = { mtimeMs: st.mtimeMs, size: st.size, ino: st.ino, head, found: row, listed: false }
    this.cache.set(file, fresh)
    return { c: fresh, changed: true }
  }

  /**
   * The session a path names, as find() would list it, or undefined when it is
   * not a session file find() looks at (a subagent's file, another directory)
   * or has no cwd yet. Synchronous: for the search index, which meets a file in
   * a transcript's index pass before its own look over the sessions has.
   */
  sessionAt(path: string): FoundSession | undefined {
    const d = this.dirsOf()
    const name = basename(path)
    const up = (n: number) => {
      let p = path
      for (let i = 0; i < n; i++) p = dirname(p)
      return p
    }
    const kind: FileKind | undefined =
      isJsonl(name) && up(2) === d.claude
        ? 'claude'
        : isJsonl(name) && up(2) === d.pi
          ? 'pi'
          : isRollout(name) && (up(4) === d.codex || up(1) === d.codexArchived)
            ? 'codex'
            : undefined
    if (!kind) return undefined
    // a compressed rollout with its plain file beside it is not the session
    if (isCompressed(path) && statSync(path.slice(0, -ZST_SUFFIX.length), { throwIfNoEntry: false })?.isFile()) return undefined
    const st = statSync(path, { throwIfNoEntry: false })
    if (!st?.isFile()) return undefined
    return this.rowOf(kind, path, st).c.found
  }

  async find(): Promise<FoundSession[]> {
    this.realDirs = new Map()
    try {
      return await this.listing()
    } finally {
      this.realDirs = undefined
    }
  }

  private async listing(): Promise<FoundSession[]> {
    const found: FoundSession[] = []
    let changed = !this.last
    let files = 0
    // a codex session under sessions/ and archived_sessions/ both (an archive under way): the first listed
    const codexIds = new Set<string>()
    for (const [kind, file] of this.files()) {
      files++
      const st = statSync(file, { throwIfNoEntry: false })
      if (!st) {
        changed = true
        continue
      }
      // a named pipe, a device, a folder named like a session: nothing to read (opening a pipe would wait for a writer)
      if (!st.isFile()) continue
      const r = this.rowOf(kind, file, st)
      if (r.changed || !r.c.listed) changed = true
      r.c.listed = true
      const row = r.c.found
      if (!row) continue
      if (kind === 'codex') {
        if (codexIds.has(row.id)) continue
        codexIds.add(row.id)
      }
      found.push(row)
    }
    // a file gone is a change even when another came (the count differs, or an unseen path was read above)
    if (files !== this.cache.size) {
      changed = true
      const seen = new Set<string>()
      for (const [, f] of this.files()) seen.add(f)
      for (const k of this.cache.keys()) if (!seen.has(k)) this.cache.delete(k)
    }
    const opencode = await this.opencodeSessions()
    const last = this.last
    if (!changed && last && sameSessions(last.opencode, opencode)) return last.all
    const all = opencode.length ? [...found, ...opencode] : found
    this.last = { files: found, opencode, all }
    return all
  }

  private async opencodeSessions(): Promise<FoundSession[]> {
    // looked for again while there is none (opencode installed, or its database made, after the start)
    this.opencode ??= openOpencodeStore(opencodeDataDir(this.homes.xdgDataHome))
    if (!this.opencode) return []
    try {
      return (await this.opencode.listSessions())
        .filter((s) => !s.parentId)
        .map((s) => ({
          kind: 'opencode' as const,
          id: s.id,
          cwd: s.directory,
          title: titleOf(s.title ?? '') ?? '',
          mtimeMs: s.timeUpdated,
          startedMs: s.timeCreated,
        }))
    } catch {
      // busy (opencode writing) or torn for a moment: the sessions last listed, not all of them gone
      // (the search index would drop every one and read them all again)
      return this.last?.opencode ?? []
    }
  }

  close(): void {
    this.opencode?.close()
  }
}

function sameSessions(a: FoundSession[], b: FoundSession[]): boolean {
  return a.length === b.length && a.every((x, i) => x.id === b[i]!.id && x.mtimeMs === b[i]!.mtimeMs && x.cwd === b[i]!.cwd && x.title === b[i]!.title)
}

/** herdr's session reference of a live agent → the session id the listing uses. */
export function liveSessionOf(a: AgentInfo): string | undefined {
  const ref = a.agent_session as { value?: unknown; kind?: unknown } | undefined
  if (!ref || typeof ref.value !== 'string') return undefined
  // pi's reference is the session file's path: its id is in the name
  return ref.kind === 'path' ? piSessionIdFromPath(ref.value) : ref.value
}

/** The sessions of one directory, newest first, as rows. */
interface Group {
  newest: number
  rows: SessionRow[]
}

/**
 * The grouping of a found list, kept while that list is the finder's answer: a
 * warm listing (the same array back) only merges herdr's live panes into it.
 * Keyed by the array itself, so it goes when the array does.
 */
const grouped = new WeakMap<FoundSession[], { roots: Roots; groups: Map<string, Group> }>()

function groupsOf(sessions: FoundSession[], roots: Roots): Map<string, Group> {
  const memo = grouped.get(sessions)
  if (memo && memo.roots === roots) return memo.groups
  const byDir = new Map<string, FoundSession[]>()
  for (const s of sessions) {
    if (!insideRoots(s.cwd, roots)) continue
    let list = byDir.get(s.cwd)
    if (!list) byDir.set(s.cwd, (list = []))
    list.push(s)
  }
  const groups = new Map<string, Group>()
  for (const [dir, list] of byDir) {
    list.sort((a, b) => b.mtimeMs - a.mtimeMs || a.id.localeCompare(b.id))
    groups.set(dir, {
      newest: list[0]!.mtimeMs,
      rows: list.map((s) => ({ agent_kind: s.kind, session_id: s.id, title: s.title, last_activity_ts: new Date(s.mtimeMs).toISOString() })),
    })
  }
  grouped.set(sessions, { roots, groups })
  return groups
}

/** The listing: sessions grouped by directory inside the roots, newest first; live panes marked (pure). */
export function projectsOf(sessions: FoundSession[], agents: AgentInfo[], roots: Roots, now: number): ProjectRow[] {
  const live = new Map<string, string>()
  for (const a of agents) {
    const id = liveSessionOf(a)
    if (id && a.agent) live.set(`${a.agent}\u0000${id}`, a.pane_id)
  }
  const groups = groupsOf(sessions, roots)
  const newest: [string, number][] = []
  for (const [dir, g] of groups) newest.push([dir, g.newest])
  // a directory an agent runs in now is a project, sessions found or not
  const running = new Set<string>()
  for (const a of agents) if (a.agent && a.cwd && insideRoots(a.cwd, roots)) running.add(a.cwd)
  if (running.size) {
    for (const e of newest) if (running.has(e[0])) e[1] = Math.max(e[1], now)
    for (const dir of running) if (!groups.has(dir)) newest.push([dir, now])
  }
  return newest
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, PROJECTS_MAX)
    .map(([path, t]) => ({
      path,
      name: basename(path) || path,
      last_activity_ts: new Date(t).toISOString(),
      sessions: (groups.get(path)?.rows.slice(0, SESSIONS_PER_PROJECT) ?? []).map((row) => {
        const pane = live.size ? live.get(`${row.agent_kind}\u0000${row.session_id}`) : undefined
        return pane ? { ...row, pane_id: pane } : row
      }),
    }))
}
