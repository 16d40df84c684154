// GET /files: a read-only look inside the repository (or the pane's directory
// outside git). A path names something below that base without a symlink on the
// way (src/changes/open.ts); `.git` and everything private are never listed or
// opened; what git ignores is listed as such, never read; anything else is "no such file".
import { closeSync } from 'node:fs'
import { extname, join } from 'node:path'
import { kindOf, openExact, readDirFd, type NodeKind } from './open'
import { componentsOf, isPrivate, pathBelow, type PrivatePlaces } from './private'
import { gitShowsDir, gitShowsFile, ignoredAmong, type WorkingBase } from './shown'

export const ENTRIES_MAX = 4000
export const TEXT_MAX = 1024 * 1024
export const RAW_MAX = 5 * 1024 * 1024

/** Images a browser shows as images (SVG is not among them: it can run script). */
const IMAGE: Record<string, string> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp' }

/** Something the route may serve, open: a directory or a regular file, exactly at `path`. */
export interface Shown {
  rel: string
  path: string
  kind: 'dir' | 'file'
  fd: number
  size: number
}

/**
 * `relPath` below the base, opened, when it may be served; otherwise undefined (answered
 * as "no such file"): a path leaving the base or into `.git`, anything private, a symlink
 * or a FIFO, socket or device (never opened), and inside a repository anything git does
 * not show. The caller closes `fd`.
 */
export async function openShown(base: WorkingBase, relPath: string, places: PrivatePlaces): Promise<Shown | undefined> {
  const parts = componentsOf(relPath)
  if (!parts) return undefined
  const path = pathBelow(base.root, parts)
  if (isPrivate(path, places)) return undefined
  const o = openExact(path)
  if (!o || (o.kind !== 'dir' && o.kind !== 'file')) return undefined
  const rel = parts.join('/')
  if (base.git && !(o.kind === 'dir' ? await gitShowsDir(base.root, rel) : await gitShowsFile(base.root, rel))) {
    closeSync(o.fd)
    return undefined
  }
  return { rel, path, kind: o.kind, fd: o.fd, size: o.stat.size }
}

export interface DirEntry {
  name: string
  type: NodeKind
  size: number
  mtime: string
  /** git ignores it: listed, never read */
  ignored?: true
}

/**
 * The entries of the directory open as `fd` (at `path`, below `base`): `.git` and
 * everything private left out, as if absent; inside a repository, each one git ignores
 * marked so. Nothing is followed or opened: types come from lstat.
 */
export async function listEntries(
  fd: number,
  path: string,
  base: WorkingBase,
  rel: string,
  places: PrivatePlaces,
): Promise<{ entries: DirEntry[]; truncated: boolean }> {
  const dir = readDirFd(fd, path)
  const names = dir.names.filter((n) => n !== '.git' && !isPrivate(join(path, n), places)).sort((a, b) => a.localeCompare(b))
  const shown = names.slice(0, ENTRIES_MAX)
  const relOf = (n: string) => (rel ? `${rel}/${n}` : n)
  const ignored = base.git ? await ignoredAmong(base.root, shown.map(relOf)) : new Set<string>()
  const entries: DirEntry[] = []
  for (const name of shown) {
    const st = dir.stat(name)
    if (!st) continue // gone meanwhile
    entries.push({ name, type: kindOf(st), size: st.size, mtime: st.mtime.toISOString(), ...(ignored.has(relOf(name)) ? { ignored: true as const } : {}) })
  }
  return { entries, truncated: names.length > ENTRIES_MAX }
}

/** The type a file is served with: an image as itself; anything else is text or bytes to download. */
export function mimeOf(path: string, head: Buffer): string {
  const img = IMAGE[extname(path).toLowerCase()]
  if (img) return img
  return head.includes(0) ? 'application/octet-stream' : 'text/plain'
}
