// Codex CLI's transcript source: one rollout JSONL per thread under
// <CODEX_HOME>/sessions/YYYY/MM/DD/rollout-<local time>-<thread uuid>.jsonl, read
// through the shared JSONL timeline (index, tailer, paging, caps). Resolution:
//  1. herdr's codex integration reports agent_session {kind:"id"} = the thread uuid: its
//     rollout is found by name (the date folder of a UUIDv7 first, else the whole tree);
//  2. otherwise the newest rollout whose session_meta records the pane's cwd, judged by
//     the timestamp of its LAST record: a resumed thread appends to its old file (no
//     second session_meta), so neither the file name nor session_meta says which thread
//     the user is in now, and copied files lose their mtimes.
// The socket follows rotation through currentSession (the thread id). Codex writes the
// file at the first prompt: before that there is nothing to serve (404).
// Codex has no subagent files: no roster, and ?subagent= is "no transcript".
import { open, readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { AgentInfo } from '../../../herdr/types'
import { readHeadLines } from '../../jsonl/files'
import type { LineFold } from '../../jsonl/normalizer'
import type { AgentHomes, TranscriptSource } from '../../source'
import { paneCwd } from '../../source'
import { sessionFileSource, type SessionSourceOptions } from '../../jsonl/session-source'
import { codexLineTime, codexMetaCwd, codexThreadIdFromPath, countCodexLine, normalizeCodexLine } from './normalize'
import { codexFileFold, type CodexFileFacts } from './file-fold'
import { CODEX_WARM_UP_LINES } from './warm-up'
import { isCompressed } from '../../jsonl/zst'

/** The index pass's fold: usage (GET /usage, context_pct) and the aborted calls, from the same parse as the count. */
const codexFacts = { fold: codexFileFold as LineFold, usageOf: (facts: unknown) => (facts as CodexFileFacts | undefined)?.usage }

export type CodexSourceOptions = SessionSourceOptions

export interface CodexSession {
  path: string
  threadId: string
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const ROLLOUT = /^rollout-.*\.jsonl$/
/** a rollout plain or compressed by codex (<name>.jsonl.zst): a thread looked for by id may be either */
const ROLLOUT_ANY = /^rollout-.*\.jsonl(?:\.zst)?$/
// how much of a rollout's end is read to find its last record's timestamp
const TAIL_BYTES = 64 * 1024

/** CODEX_HOME (config) or ~/.codex. */
export function codexDirOf(homes: AgentHomes): string {
  return homes.codexDir ?? join(homes.home, '.codex')
}

async function dirNames(dir: string, re: RegExp): Promise<string[]> {
  try {
    return (await readdir(dir))
      .filter((n) => re.test(n))
      .sort()
      .reverse()
  } catch {
    return []
  }
}

/** Every sessions/YYYY/MM/DD folder, newest first. */
async function dayDirs(sessions: string): Promise<string[]> {
  const out: string[] = []
  for (const y of await dirNames(sessions, /^\d{4}$/))
    for (const m of await dirNames(join(sessions, y), /^\d{2}$/))
      for (const d of await dirNames(join(sessions, y, m), /^\d{2}$/)) out.push(join(sessions, y, m, d))
  return out
}

async function rolloutsIn(dir: string, re = ROLLOUT): Promise<string[]> {
  return (await dirNames(dir, re)).map((n) => join(dir, n))
}

/** The rollout of a thread among a folder's files: the plain one before a compressed one (codex's rule). */
function rolloutOf(files: string[], id: string): string | undefined {
  const mine = files.filter((f) => codexThreadIdFromPath(f) === id)
  return mine.find((f) => !isCompressed(f)) ?? mine[0]
}

/** The day folders a UUIDv7 thread id was created on (its first 48 bits are ms), ±1 day for the local-time name. */
function daysOfUuid7(id: string): string[] | undefined {
  if (id[14] !== '7') return undefined
  const ms = parseInt(id.slice(0, 8) + id.slice(9, 13), 16)
  if (!Number.isFinite(ms) || ms <= 0) return undefined
  const out: string[] = []
  for (const delta of [0, -1, 1]) {
    const d = new Date(ms + delta * 86_400_000)
    if (Number.isNaN(d.getTime())) return undefined
    out.push(join(String(d.getUTCFullYear()).padStart(4, '0'), String(d.getUTCMonth() + 1).padStart(2, '0'), String(d.getUTCDate()).padStart(2, '0')))
  }
  return out
}

/** The timestamp (ms) of the last record of a rollout, from its last 64 KiB. */
export async function lastRecordTime(path: string): Promise<number | undefined> {
  let fh
  try {
    fh = await open(path, 'r')
    const { size } = await fh.stat()
    const len = Math.min(size, TAIL_BYTES)
    const buf = Buffer.allocUnsafe(len)
    const { bytesRead } = await fh.read(buf, 0, len, size - len)
    const lines = buf.toString('utf8', 0, bytesRead).split('\n')
    for (let i = lines.length - 1; i >= 0; i--) {
      const t = codexLineTime(lines[i])
      if (t !== undefined) return t
    }
    return undefined
  } catch {
    return undefined
  } finally {
    await fh?.close().catch(() => {})
  }
}

interface Known {
  size: number
  mtimeMs: number
  cwd: string | undefined
  last: number | undefined
}

/**
 * Finds a pane's codex rollout. Keeps what it learnt about each file (cwd, last
 * record time) keyed by size and mtime, so the 2 s rotation poll re-reads only files
 * that grew, and a thread id's path once found.
 */
export class CodexLocator {
  private byId = new Map<string, string>()
  private known = new Map<string, Known>()
  constructor(private readonly codexDir: string) {}

  private get sessions(): string {
    return join(this.codexDir, 'sessions')
  }

  async locate(agent: AgentInfo): Promise<CodexSession | undefined> {
    const value = agent.agent_session?.value
    if (value !== undefined && UUID.test(value.trim())) {
      const path = await this.byThreadId(value.trim().toLowerCase())
      if (path) return { path, threadId: value.trim().toLowerCase() }
    }
    const cwd = paneCwd(agent)
    return cwd === undefined ? undefined : this.newestForCwd(cwd)
  }

  private async isFile(p: string): Promise<boolean> {
    try {
      return (await stat(p)).isFile()
    } catch {
      return false
    }
  }

  async byThreadId(id: string): Promise<string | undefined> {
    const cached = this.byId.get(id)
    if (cached && (await this.isFile(cached))) return cached
    this.byId.delete(id)
    const match = (files: string[]) => rolloutOf(files, id)
    const days = daysOfUuid7(id)
    let found: string | undefined
    // the days its UUIDv7 names first, then every day, then the archived ones (as the listing finds them)
    for (const d of days ?? []) {
      found = match(await rolloutsIn(join(this.sessions, d), ROLLOUT_ANY))
      if (found) break
    }
    if (!found)
      for (const d of await dayDirs(this.sessions)) {
        found = match(await rolloutsIn(d, ROLLOUT_ANY))
        if (found) break
      }
    found ??= match(await rolloutsIn(join(this.codexDir, 'archived_sessions'), ROLLOUT_ANY))
    if (found) this.byId.set(id, found)
    return found
  }

  async newestForCwd(cwd: string): Promise<CodexSession | undefined> {
    let best: { path: string; last: number } | undefined
    const seen = new Set<string>()
    for (const d of await dayDirs(this.sessions)) {
      for (const path of await rolloutsIn(d)) {
        seen.add(path)
        const info = await this.inspect(path)
        if (!info || info.cwd !== cwd) continue
        const last = info.last ?? info.mtimeMs
        if (!best || last > best.last) best = { path, last }
      }
    }
    for (const p of this.known.keys()) if (!seen.has(p)) this.known.delete(p)
    if (!best) return undefined
    const threadId = codexThreadIdFromPath(best.path)
    return threadId ? { path: best.path, threadId } : undefined
  }

  private async inspect(path: string): Promise<Known | undefined> {
    let st
    try {
      st = await stat(path)
    } catch {
      return undefined
    }
    if (!st.isFile()) return undefined
    const prev = this.known.get(path)
    if (prev && prev.size === st.size && prev.mtimeMs === st.mtimeMs) return prev
    const cwd = prev?.cwd ?? codexMetaCwd((await readHeadLines(path, 1))[0] ?? '')
    const info: Known = { size: st.size, mtimeMs: st.mtimeMs, cwd, last: await lastRecordTime(path) }
    this.known.set(path, info)
    return info
  }
}

export function createCodexSource(homes: AgentHomes, opts: CodexSourceOptions = {}): TranscriptSource {
  const codexDir = codexDirOf(homes)
  const locator = new CodexLocator(codexDir)
  return sessionFileSource(
    {
      kind: 'codex',
      normalize: normalizeCodexLine,
      count: countCodexLine,
      usage: codexFacts,
      warmUpLines: CODEX_WARM_UP_LINES,
      within: codexDir,
      locate: async (agent) => {
        const at = await locator.locate(agent)
        return at && { path: at.path, sessionId: at.threadId }
      },
    },
    opts,
  )
}
