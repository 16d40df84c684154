// Which opencode session a pane shows (docs/agent-pane-api.md, "opencode"): the
// session herdr reported, if its directory is the pane's cwd; otherwise the
// newest top-level session recorded in that directory. Pure.
import type { OpencodeSession } from './store'

/** Trailing separators do not make a different directory. */
function sameDir(a: string, b: string): boolean {
  const norm = (p: string) => (p.length > 1 ? p.replace(/[\\/]+$/, '') : p)
  return norm(a) === norm(b)
}

/**
 * `byId` is the session looked up by herdr's session id (undefined when unknown or not
 * found); `sessions` the listing used for the fallback. A session from another
 * directory is never picked: that is "no transcript here", not another project's chat.
 */
export function pickOpencodeSession(cwd: string, byId: OpencodeSession | undefined, sessions: readonly OpencodeSession[]): OpencodeSession | undefined {
  if (byId) return sameDir(byId.directory, cwd) ? byId : undefined
  let best: OpencodeSession | undefined
  for (const s of sessions) {
    if (s.parentId || !sameDir(s.directory, cwd)) continue
    if (!best || s.timeUpdated > best.timeUpdated) best = s
  }
  return best
}
