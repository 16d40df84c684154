// Project roots (docs/bridge.md "Starting, stopping and resuming agents"): every
// directory the phone names must resolve, symlinks followed, inside a root; a
// path that does not is "no such directory", exactly as if it did not exist.
import { readdirSync, realpathSync, statSync } from 'node:fs'
import { basename, dirname, isAbsolute, join, sep } from 'node:path'

export interface Roots {
  /** the roots as configured (absolute) */
  readonly given: string[]
  /** their real paths (roots that do not exist are left out) */
  readonly real: string[]
}

export function rootsOf(given: string[]): Roots {
  const real: string[] = []
  for (const g of given) {
    try {
      real.push(realpathSync(g))
    } catch {
      // a root that does not exist holds nothing
    }
  }
  return { given, real: [...new Set(real)] }
}

/** `dir` (a real path) is a root or below one. */
export function insideRoots(dir: string, roots: Roots): boolean {
  return roots.real.some((r) => dir === r || dir.startsWith(r.endsWith(sep) ? r : r + sep))
}

/**
 * The real path of a directory the phone names, or undefined: not a string, not
 * absolute (after `~`), missing, not a directory, or outside every root.
 */
export function resolveDir(input: unknown, roots: Roots, home: string): string | undefined {
  if (typeof input !== 'string' || input === '' || input.length > 4096 || input.includes('\u0000')) return undefined
  const path = input === '~' ? home : input.startsWith('~/') ? join(home, input.slice(2)) : input
  if (!isAbsolute(path)) return undefined
  let real: string
  try {
    real = realpathSync(path)
    if (!statSync(real).isDirectory()) return undefined
  } catch {
    return undefined
  }
  return insideRoots(real, roots) ? real : undefined
}

export const DIRS_MAX = 500

export interface DirListing {
  path: string
  parent?: string
  entries: { name: string; git: boolean }[]
  truncated?: true
}

/** The sub-directories of a resolved directory (no hidden ones; a symlink only when it leads to a directory inside the roots), sorted. */
export function listDir(dir: string, roots: Roots): DirListing {
  const entries: { name: string; git: boolean }[] = []
  let truncated = false
  const names = readdirSync(dir, { withFileTypes: true })
    .filter((d) => !d.name.startsWith('.'))
    .sort((a, b) => a.name.localeCompare(b.name))
  for (const d of names) {
    const full = join(dir, d.name)
    if (d.isSymbolicLink()) {
      try {
        const real = realpathSync(full)
        if (!statSync(real).isDirectory() || !insideRoots(real, roots)) continue
      } catch {
        continue
      }
    } else if (!d.isDirectory()) continue
    if (entries.length === DIRS_MAX) {
      truncated = true
      break
    }
    entries.push({ name: d.name, git: isGitDir(full) })
  }
  const up = dirname(dir)
  const listing: DirListing = { path: dir, entries }
  if (up !== dir && insideRoots(up, roots)) listing.parent = up
  if (truncated) listing.truncated = true
  return listing
}

function isGitDir(dir: string): boolean {
  try {
    statSync(join(dir, '.git'))
    return true
  } catch {
    return false
  }
}

/** The roots themselves, as a listing (GET /dirs without a path). */
export function listRoots(roots: Roots): DirListing {
  return { path: '', entries: roots.real.map((r) => ({ name: r, git: isGitDir(r) })) }
}

export const dirName = (p: string) => basename(p) || p
