// GET /projects: the directories agents worked in, newest first, each with its
// sessions per agent kind, from the agents' own stores and from herdr's panes.
// It stays fast on a machine with years of sessions: a file is read only when its
// mtime or size changed since the last listing (the head of it: the title and the
// cwd), and only as far as the head needs.
import { openSync, readdirSync, readSync, closeSync, statSync } from 'node:fs'
import { basename, join } from 'node:path'
import type { AgentInfo } from '../herdr/types'
import type { AgentHomes } from '../transcript/source'
import { opencodeDataDir, openOpencodeStore, type OpencodeStore } from '../transcript/kinds/opencode/store'
import { codexThreadIdFromPath } from '../transcript/kinds/codex/normalize'
import { piSessionIdFromPath } from '../transcript/kinds/pi/normalize'
import { readHead, titleOf, type FileKind, type SessionHead } from './heads'
import { insideRoots, type Roots } from './roots'

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
}

interface Cached {
  mtimeMs: number
  size: number
  head: SessionHead
}

function readHeadOf(kind: FileKind, file: string, size: number): SessionHead {
  const fd = openSync(file, 'r')
  try {
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

function list(dir: string): string[] {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}

/** Every session of every kind, each file read only when it changed since the last call. */
export class SessionFinder {
  private readonly cache = new Map<string, Cached>()
  private opencode: OpencodeStore | undefined | null = null

  constructor(private readonly homes: AgentHomes) {}

  /** The session files of the file-backed kinds: [kind, path]. */
  private files(): [FileKind, string][] {
    const out: [FileKind, string][] = []
    const claude = join(this.homes.claudeDir, 'projects')
    for (const p of list(claude)) for (const f of list(join(claude, p))) if (f.endsWith('.jsonl')) out.push(['claude', join(claude, p, f)])
    const pi = join(this.homes.piDir, 'sessions')
    for (const p of list(pi)) for (const f of list(join(pi, p))) if (f.endsWith('.jsonl')) out.push(['pi', join(pi, p, f)])
    const codex = join(this.homes.codexDir ?? join(this.homes.home, '.codex'), 'sessions')
    for (const y of list(codex))
      for (const m of list(join(codex, y)))
        for (const d of list(join(codex, y, m)))
          for (const f of list(join(codex, y, m, d))) if (f.startsWith('rollout-') && f.endsWith('.jsonl')) out.push(['codex', join(codex, y, m, d, f)])
    return out
  }

  async find(): Promise<FoundSession[]> {
    const found: FoundSession[] = []
    const seen = new Set<string>()
    for (const [kind, file] of this.files()) {
      seen.add(file)
      let st: { mtimeMs: number; size: number }
      try {
        st = statSync(file)
      } catch {
        continue
      }
      let c = this.cache.get(file)
      if (!c || c.mtimeMs !== st.mtimeMs || c.size !== st.size) {
        let head: SessionHead = {}
        try {
          head = readHeadOf(kind, file, st.size)
        } catch {
          // unreadable now: listed without a title, read again next time
        }
        c = { mtimeMs: st.mtimeMs, size: st.size, head }
        this.cache.set(file, c)
      }
      if (!c.head.cwd) continue
      const id = kind === 'claude' ? basename(file, '.jsonl') : kind === 'pi' ? piSessionIdFromPath(file) : codexThreadIdFromPath(file)
      if (!id) continue
      found.push({ kind, id, cwd: c.head.cwd, title: c.head.title ?? '', mtimeMs: st.mtimeMs, startedMs: c.head.startedMs, file })
    }
    for (const k of this.cache.keys()) if (!seen.has(k)) this.cache.delete(k)
    for (const s of await this.opencodeSessions()) found.push(s)
    return found
  }

  private async opencodeSessions(): Promise<FoundSession[]> {
    if (this.opencode === null) this.opencode = openOpencodeStore(opencodeDataDir(this.homes.xdgDataHome))
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
      return []
    }
  }

  close(): void {
    this.opencode?.close()
  }
}

/** herdr's session reference of a live agent → the session id the listing uses. */
export function liveSessionOf(a: AgentInfo): string | undefined {
  const ref = a.agent_session as { value?: unknown; kind?: unknown } | undefined
  if (!ref || typeof ref.value !== 'string') return undefined
  // pi's reference is the session file's path: its id is in the name
  return ref.kind === 'path' ? piSessionIdFromPath(ref.value) : ref.value
}

/** The listing: sessions grouped by directory inside the roots, newest first; live panes marked (pure). */
export function projectsOf(sessions: FoundSession[], agents: AgentInfo[], roots: Roots, now: number): ProjectRow[] {
  const live = new Map<string, string>()
  for (const a of agents) {
    const id = liveSessionOf(a)
    if (id && a.agent) live.set(`${a.agent}\u0000${id}`, a.pane_id)
  }
  const byDir = new Map<string, { newest: number; sessions: (SessionRow & { t: number })[] }>()
  const add = (dir: string, t: number) => {
    let p = byDir.get(dir)
    if (!p) byDir.set(dir, (p = { newest: t, sessions: [] }))
    p.newest = Math.max(p.newest, t)
    return p
  }
  for (const s of sessions) {
    if (!insideRoots(s.cwd, roots)) continue
    const row: SessionRow & { t: number } = {
      agent_kind: s.kind,
      session_id: s.id,
      title: s.title,
      last_activity_ts: new Date(s.mtimeMs).toISOString(),
      t: s.mtimeMs,
    }
    const pane = live.get(`${s.kind}\u0000${s.id}`)
    if (pane) row.pane_id = pane
    add(s.cwd, s.mtimeMs).sessions.push(row)
  }
  // a directory an agent runs in now is a project, sessions found or not
  for (const a of agents) if (a.agent && a.cwd && insideRoots(a.cwd, roots)) add(a.cwd, now)
  return [...byDir.entries()]
    .sort((a, b) => b[1].newest - a[1].newest || a[0].localeCompare(b[0]))
    .slice(0, PROJECTS_MAX)
    .map(([path, p]) => ({
      path,
      name: basename(path) || path,
      last_activity_ts: new Date(p.newest).toISOString(),
      sessions: p.sessions
        .sort((a, b) => b.t - a.t || a.session_id.localeCompare(b.session_id))
        .slice(0, SESSIONS_PER_PROJECT)
        .map(({ t: _t, ...row }) => row),
    }))
}
