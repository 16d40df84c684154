// What the working-tree routes may show (docs/bridge.md "The working tree is
// not the whole disk"): inside a repository, what git shows — tracked files and
// untracked files that are not ignored; outside one, what is below the pane's
// directory when that directory is inside a project root and is not the home
// directory itself. Asked of git through its plumbing, which writes nothing.
import { realpathSync } from 'node:fs'
import { insideRoots, type Roots } from '../projects/roots'
import { git, repoRoot } from './git'

/** Where a pane's paths are taken from: the repository's top (real path), or the pane's own directory outside git. */
export interface WorkingBase {
  /** absolute, real (no symlink in it) */
  root: string
  git: boolean
}

function real(p: string): string | undefined {
  try {
    return realpathSync(p)
  } catch {
    return undefined
  }
}

/** The base for a pane whose directory is `dir`, or undefined: nothing there may be served. */
export async function workingBase(dir: string, roots: Roots, home: string): Promise<WorkingBase | undefined> {
  const top = await repoRoot(dir)
  if (top) {
    const root = real(top)
    return root ? { root, git: true } : undefined
  }
  const root = real(dir)
  if (!root || !insideRoots(root, roots) || root === (real(home) ?? home)) return undefined
  return { root, git: false }
}

const LIT = '--literal-pathspecs'

/** git lists `rel` (a file's path from the top) as tracked, or as untracked and not ignored. */
export async function gitShowsFile(root: string, rel: string): Promise<boolean> {
  try {
    const out = (await git(root, [LIT, 'ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', rel])).stdout.toString('utf8')
    return out.split('\0').includes(rel)
  } catch {
    return false
  }
}

/** The paths among `rels` that git ignores (a tracked path never is); all of them when git cannot say (inside a submodule). */
export async function ignoredAmong(root: string, rels: string[]): Promise<Set<string>> {
  if (rels.length === 0) return new Set()
  try {
    // check-ignore takes no pathspec magic (a name that starts with ':' fails it: all ignored, the safe side)
    const r = await git(root, ['check-ignore', '-z', '--stdin'], { okCodes: [0, 1], input: Buffer.from(rels.map((p) => `${p}\0`).join('')) })
    return new Set(r.stdout.toString('utf8').split('\0').filter(Boolean))
  } catch {
    return new Set(rels)
  }
}

/** A directory git shows: the top, one that is not ignored, or an ignored one that still holds tracked files. */
export async function gitShowsDir(root: string, rel: string): Promise<boolean> {
  if (rel === '') return true
  if (!(await ignoredAmong(root, [rel])).has(rel)) return true
  try {
    return (await git(root, [LIT, 'ls-files', '-z', '--cached', '--', `${rel}/`])).stdout.length > 0
  } catch {
    return false
  }
}
