// GET /files: a read-only look inside the repository (or the pane's directory
// outside git). Every path resolves, symlinks followed, inside that base; `.git`
// is never listed or opened; anything else is "no such file".
import { closeSync, lstatSync, openSync, readSync, readdirSync, realpathSync, statSync } from 'node:fs'
import { extname, join, sep } from 'node:path'

export const ENTRIES_MAX = 4000
export const TEXT_MAX = 1024 * 1024
export const RAW_MAX = 5 * 1024 * 1024

/** Images a browser shows as images (SVG is not among them: it can run script). */
const IMAGE: Record<string, string> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp' }

export interface Resolved {
  real: string
  rel: string
  dir: boolean
  size: number
}

/** `rel` under `base`, or undefined: outside it (after symlinks), into `.git`, or missing. */
export function resolveIn(base: string, rel: string): Resolved | undefined {
  if (rel.includes('\u0000') || rel.length > 4096) return undefined
  const parts = rel.split('/').filter((p) => p !== '' && p !== '.')
  if (parts.some((p) => p === '.git')) return undefined
  let realBase: string
  let real: string
  try {
    realBase = realpathSync(base)
    real = realpathSync(join(realBase, ...parts))
  } catch {
    return undefined
  }
  if (real !== realBase && !real.startsWith(realBase + sep)) return undefined
  const inside = real.slice(realBase.length + 1)
  if (inside.split(sep).includes('.git')) return undefined
  const st = statSync(real)
  return { real, rel: parts.join('/'), dir: st.isDirectory(), size: st.size }
}

export interface DirEntry {
  name: string
  type: 'dir' | 'file' | 'symlink'
  size: number
  mtime: string
}

export function listEntries(dir: string): { entries: DirEntry[]; truncated: boolean } {
  const names = readdirSync(dir)
    .filter((n) => n !== '.git')
    .sort((a, b) => a.localeCompare(b))
  const entries: DirEntry[] = []
  for (const name of names.slice(0, ENTRIES_MAX)) {
    try {
      const st = lstatSync(join(dir, name))
      entries.push({ name, type: st.isSymbolicLink() ? 'symlink' : st.isDirectory() ? 'dir' : 'file', size: st.size, mtime: st.mtime.toISOString() })
    } catch {
      // gone meanwhile
    }
  }
  return { entries, truncated: names.length > ENTRIES_MAX }
}

/** The type a file is served with: an image as itself; anything else is text or bytes to download. */
export function mimeOf(path: string, head: Buffer): string {
  const img = IMAGE[extname(path).toLowerCase()]
  if (img) return img
  return head.includes(0) ? 'application/octet-stream' : 'text/plain'
}

/** The first `max` bytes of a file. */
export function readStart(file: string, max: number): Buffer {
  const fd = openSync(file, 'r')
  try {
    const buf = Buffer.allocUnsafe(max)
    let got = 0
    while (got < max) {
      const n = readSync(fd, buf, got, max - got, got)
      if (n <= 0) break
      got += n
    }
    return buf.subarray(0, got)
  } finally {
    closeSync(fd)
  }
}
