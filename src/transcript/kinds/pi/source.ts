// pi's transcript source (docs/agent-pane-api.md, "pi"): one JSONL per session under
// <piDir>/sessions/<encoded-cwd>/<ts>_<id>.jsonl, read through the shared JSONL
// timeline. Resolution, in the contract's order:
//  1. herdr's agent_session.value as a path (pi's integration reports the file) —
//     trusted only when absolute and inside <piDir>/sessions/; a file pi has not
//     written yet (it writes lazily, on the first reply) is served as a pending,
//     empty timeline that starts streaming when the file appears;
//  2. a bare session id, found as <piDir>/sessions/*/*_<id>.jsonl;
//  3. otherwise the newest session in the pane's encoded-cwd dir whose header
//     records the pane's cwd.
// pi has no subagents: no roster, and ?subagent= is "no transcript".
import { realpathSync } from 'node:fs'
import { readdir, stat } from 'node:fs/promises'
import { basename, dirname, isAbsolute, join, normalize, sep } from 'node:path'
import type { AgentInfo } from '../../../herdr/types'
import { listJsonlFiles, newestMatching } from '../../jsonl/files'
import type { AgentHomes, TranscriptSource } from '../../source'
import { paneCwd } from '../../source'
import { sessionFileSource, type SessionSourceOptions } from '../../jsonl/session-source'
import { countPiLine, encodePiCwd, normalizePiLine, piHeaderCwd, piSessionIdFromPath, countPiLineTapped } from './normalize'
import { usageFold } from '../../../usage/fold'
import { addPiUsage } from '../../../usage/kinds/pi'
import { PI_WARM_UP_LINES } from './warm-up'

/** The index pass's usage fold (GET /usage, context_pct): from the same parse as the count. */
const piUsageFold = usageFold('pi-usage/2', countPiLineTapped, addPiUsage)

export type PiSourceOptions = SessionSourceOptions

/** Where a pane's pi session is: a file (maybe not written yet) and its id. */
export interface PiSessionFile {
  path: string
  sessionId: string
  /** true when the file does not exist yet (served as pending) */
  pending: boolean
}

/** A session id herdr may report bare: uuid-ish, never a path. */
const SESSION_ID = /^[A-Za-z0-9-]+$/

/**
 * Canonical form of a path for containment checks: symlinks resolved in the longest
 * existing prefix, the not-yet-existing rest appended (a pending file, a new dir).
 */
function canonical(p: string): string {
  const rest: string[] = []
  let at = normalize(p)
  for (;;) {
    try {
      return join(realpathSync(at), ...rest.reverse())
    } catch {
      const up = dirname(at)
      if (up === at) return normalize(p)
      rest.push(basename(at))
      at = up
    }
  }
}

/**
 * Whether `path` names a session file inside `sessionsDir`, both as written and
 * once symlinks are followed (a link out of the dir is not inside it).
 */
export function isInsideSessions(sessionsDir: string, path: string): boolean {
  if (!isAbsolute(path) || !path.endsWith('.jsonl')) return false
  const root = normalize(sessionsDir).replace(/[\\/]+$/, '') + sep
  if (!normalize(path).startsWith(root)) return false
  return canonical(path).startsWith(canonical(sessionsDir).replace(/[\\/]+$/, '') + sep)
}

async function isFile(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isFile()
  } catch {
    return false
  }
}

/** `<sessionsDir>/*​/*_<id>.jsonl` (also `<id>.jsonl`), newest first; undefined when none. */
async function findById(sessionsDir: string, id: string): Promise<string | undefined> {
  let dirs: string[]
  try {
    dirs = await readdir(sessionsDir)
  } catch {
    return undefined
  }
  const suffix = `_${id}.jsonl`
  let best: { path: string; mtimeMs: number } | undefined
  for (const d of dirs) {
    for (const f of await listJsonlFiles(join(sessionsDir, d))) {
      const name = basename(f.path)
      if ((name.endsWith(suffix) || name === `${id}.jsonl`) && (!best || f.mtimeMs > best.mtimeMs)) best = f
    }
  }
  return best?.path
}

/** Finds the pane's session file without opening it (resolve and currentSession share this). */
export async function locatePiSession(piDir: string, agent: AgentInfo): Promise<PiSessionFile | undefined> {
  const sessionsDir = join(piDir, 'sessions')
  const value = agent.agent_session?.value
  if (value) {
    const looksLikePath = agent.agent_session?.kind === 'path' || value.includes('/') || value.includes('\\') || value.endsWith('.jsonl')
    if (looksLikePath) {
      // A path outside the sessions dir is not trusted: it reads as an unknown session.
      if (isInsideSessions(sessionsDir, value)) {
        const path = normalize(value)
        const sessionId = piSessionIdFromPath(path)
        if (sessionId) return { path, sessionId, pending: !(await isFile(path)) }
      }
    } else if (SESSION_ID.test(value)) {
      const path = await findById(sessionsDir, value)
      if (path) return { path, sessionId: value, pending: false }
    }
  }
  const cwd = paneCwd(agent)
  if (!cwd) return undefined
  const found = await newestMatching(join(sessionsDir, encodePiCwd(cwd)), (head) => head.length > 0 && piHeaderCwd(head[0]) === cwd, {
    maxLines: 1,
  })
  if (!found) return undefined
  const sessionId = piSessionIdFromPath(found.path)
  return sessionId ? { path: found.path, sessionId, pending: false } : undefined
}

export function createPiSource(homes: AgentHomes, opts: PiSourceOptions = {}): TranscriptSource {
  return sessionFileSource(
    {
      kind: 'pi',
      normalize: normalizePiLine,
      count: countPiLine,
      usage: piUsageFold,
      warmUpLines: PI_WARM_UP_LINES,
      within: homes.piDir,
      locate: (agent) => locatePiSession(homes.piDir, agent),
    },
    opts,
  )
}
