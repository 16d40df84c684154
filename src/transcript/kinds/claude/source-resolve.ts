// Which Claude Code session file belongs to a pane (docs/agent-pane-api.md, "How the
// transcript file is resolved"): direct hit, then a glob over every project dir
// for the session id, then the newest file in the project dir whose recorded cwd
// is the pane's. Reads only directory listings, stats and head lines.
import { readdir, stat } from 'node:fs/promises'
import { basename, join, resolve as resolvePath } from 'node:path'
import type { AgentInfo } from '../../../herdr/types'
import { isMissing, newestMatching, type JsonlFileInfo } from '../../jsonl/files'
import { paneCwd } from '../../source'

/** A session file that exists now. */
export interface LocatedSession {
  /** absolute path of <session>.jsonl */
  path: string
  /** the file stem (Claude Code's session id) */
  sessionId: string
  /** how it was found, for logs and tests */
  via: 'direct' | 'glob' | 'newest-matching'
}

/** A read failure other than "not there": the route answers 500. */
export class TranscriptReadError extends Error {
  constructor(message: string, cause: unknown) {
    super(message, { cause })
  }
}

/** The contract's rule: every `/` and `.` of the absolute cwd becomes `-`. */
export function encodeClaudeCwd(cwd: string): string {
  return cwd.replace(/[/.]/g, '-')
}

/**
 * The rule the CLI itself applies (docs/reference/claude-code.md §1.2): every
 * character outside [A-Za-z0-9] becomes `-`; a name over 200 units is cut and
 * suffixed with a hash we do not reproduce (such dirs are found by prefix).
 */
export function encodeClaudeCwdStrict(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, '-')
}

const MAX_PLAIN_NAME = 200

/**
 * Session ids from herdr end up in paths: anything not UUID-ish is treated as
 * unknown (never joined into a path). Dots are not allowed at all, so `..`
 * cannot appear; neither can a separator.
 */
export function isSafeSessionId(value: unknown): value is string {
  return typeof value === 'string' && /^[A-Za-z0-9-]{1,128}$/.test(value)
}

/** The pane's cwd, if it is usable (absolute), normalized (no trailing slash) as Claude Code records it. */
export function normalizedPaneCwd(agent: AgentInfo): string | undefined {
  const cwd = paneCwd(agent)
  return cwd === undefined ? undefined : resolvePath(cwd)
}

/** The session id herdr reported, when it is safe to use. */
export function reportedSessionId(agent: AgentInfo): string | undefined {
  const v = agent.agent_session?.value
  return isSafeSessionId(v) ? v : undefined
}

const sameDir = (a: string, b: string) => resolvePath(a) === resolvePath(b)

/** The `cwd` recorded in a session file's head: the first record that carries one. */
export function recordedCwd(headLines: readonly string[]): string | undefined {
  for (const line of headLines) {
    if (!line.includes('"cwd"')) continue
    try {
      const rec = JSON.parse(line) as unknown
      if (typeof rec === 'object' && rec !== null && typeof (rec as { cwd?: unknown }).cwd === 'string') {
        return (rec as { cwd: string }).cwd
      }
    } catch {
      // a half-written or foreign line: look further
    }
  }
  return undefined
}

/** stat that says undefined for "not there" and throws TranscriptReadError for anything else. */
async function statFile(path: string): Promise<{ mtimeMs: number } | undefined> {
  try {
    const st = await stat(path)
    return st.isFile() ? st : undefined
  } catch (err) {
    if (isMissing(err)) return undefined
    throw new TranscriptReadError(`stat ${path}: ${(err as Error).message}`, err)
  }
}

/** The project dirs the pane's cwd may be encoded as, most likely first (existing or not). */
async function projectDirsFor(projects: string, cwd: string): Promise<string[]> {
  const names = [encodeClaudeCwd(cwd)]
  const strict = encodeClaudeCwdStrict(cwd)
  if (strict.length <= MAX_PLAIN_NAME) names.push(strict)
  else {
    // Long cwd: <first 200>-<hash>. Find it by its prefix rather than reproduce the hash.
    const prefix = strict.slice(0, MAX_PLAIN_NAME) + '-'
    try {
      for (const n of await readdir(projects)) if (n.startsWith(prefix)) names.push(n)
    } catch {
      // no projects dir: nothing to add
    }
  }
  return [...new Set(names)].map((n) => join(projects, n))
}

/**
 * Finds the pane's session file now. undefined when none can be found;
 * throws TranscriptReadError when a read fails for another reason than absence.
 */
export async function locateClaudeSession(claudeDir: string, agent: AgentInfo): Promise<LocatedSession | undefined> {
  const projects = join(claudeDir, 'projects')
  const sid = reportedSessionId(agent)
  const cwd = normalizedPaneCwd(agent)
  const dirs = cwd ? await projectDirsFor(projects, cwd) : []

  if (sid) {
    // 1. direct hit
    for (const dir of dirs) {
      const path = join(dir, `${sid}.jsonl`)
      if (await statFile(path)) return { path: resolvePath(path), sessionId: sid, via: 'direct' }
    }
    // 2. encoding drift: the session id is globally unique, look in every project dir
    let best: { path: string; mtimeMs: number } | undefined
    let names: string[] = []
    try {
      names = await readdir(projects)
    } catch (err) {
      if (!isMissing(err)) throw new TranscriptReadError(`list ${projects}: ${(err as Error).message}`, err)
    }
    for (const name of names) {
      const path = join(projects, name, `${sid}.jsonl`)
      let st
      try {
        st = await statFile(path)
      } catch {
        continue // one unreadable foreign project dir must not hide the others
      }
      if (st && (!best || st.mtimeMs > best.mtimeMs)) best = { path, mtimeMs: st.mtimeMs }
    }
    if (best) return { path: resolvePath(best.path), sessionId: sid, via: 'glob' }
  }

  // 3. unknown or unmatched session id: newest file in the project dir recording this cwd
  if (!cwd) return undefined
  let found: JsonlFileInfo | undefined
  for (const dir of dirs) {
    const f = await newestMatching(
      dir,
      (head) => {
        const rec = recordedCwd(head)
        return rec !== undefined && sameDir(rec, cwd)
      },
      { maxLines: 40 },
    )
    if (f && (!found || f.mtimeMs > found.mtimeMs)) found = f
  }
  if (!found) return undefined
  const stem = basename(found.path, '.jsonl')
  return { path: resolvePath(found.path), sessionId: stem, via: 'newest-matching' }
}
