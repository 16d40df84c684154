// The working tree of the repository holding a pane's directory: what changed
// (GET /changes) and one file's diff (GET /changes/diff), through inert git.
// Plumbing only (diff-files, diff-index, ls-files) besides a status without
// optional locks: none of them writes the index, even for a file whose stat data
// is stale. Submodules are compared by their recorded commit only
// (--ignore-submodules=dirty): git never looks inside one, so no submodule's
// config, filter or hook runs. Untracked files are read by the bridge itself,
// without following a symlink (src/changes/open.ts).
import { closeSync, readSync, readlinkSync, realpathSync } from 'node:fs'
import { DIFF_MAX_BYTES, addedDiff, parseDiff, type FileDiff } from './diff'
import { filterOverrides, git, repoRoot } from './git'
import { openExact, readFd } from './open'
import { componentsOf, isPrivate, pathBelow, type PrivatePlaces } from './private'
import { FILES_MAX, parseNumstat, parseStatus, type Branch, type ChangedFile } from './status'

const DIFF_FLAGS = ['--no-ext-diff', '--no-textconv', '--no-color', '-M', '--ignore-submodules=dirty']
const LIT = '--literal-pathspecs'
/** Lines of an untracked file are counted in its first 8 MiB. */
const COUNT_MAX = 8 * 1024 * 1024

export interface Changes extends Branch {
  repo_root: string
  files: ChangedFile[]
  truncated: boolean
}

/**
 * Lines of a file git does not track yet (a diff against nothing), counted in its first
 * 8 MiB; NUL in the first 8 KiB means binary. Only a regular file is opened; a symlink
 * counts as the one line git would show (its target), never followed.
 */
function untrackedCounts(path: string): { additions: number; binary: boolean } {
  const o = openExact(path)
  if (!o || o.kind === 'other') return { additions: 0, binary: false }
  if (o.kind === 'symlink') return { additions: 1, binary: false }
  if (o.kind === 'dir') {
    closeSync(o.fd)
    return { additions: 0, binary: false }
  }
  try {
    const buf = Buffer.allocUnsafe(64 * 1024)
    let lines = 0
    let last = 10
    let total = 0
    for (;;) {
      const n = readSync(o.fd, buf, 0, buf.length, total)
      if (n <= 0) break
      if (total === 0 && buf.subarray(0, Math.min(n, 8000)).includes(0)) return { additions: 0, binary: true }
      for (let i = 0; i < n; i++) if (buf[i] === 10) lines++
      last = buf[n - 1]!
      total += n
      if (total >= COUNT_MAX) break
    }
    return { additions: lines + (total > 0 && last !== 10 ? 1 : 0), binary: false }
  } catch {
    return { additions: 0, binary: false }
  } finally {
    closeSync(o.fd)
  }
}

function realOf(p: string): string {
  try {
    return realpathSync(p)
  } catch {
    return p
  }
}

/** What HEAD is compared with: HEAD, or the empty tree in a repository with no commit yet. */
async function headTree(root: string, head: string | undefined, extra: string[]): Promise<string> {
  if (head) return 'HEAD'
  return (await git(root, ['hash-object', '-t', 'tree', '/dev/null'], { extra })).stdout.toString('utf8').trim()
}

export async function changesOf(dir: string, places: PrivatePlaces): Promise<Changes | undefined> {
  const root = await repoRoot(dir)
  if (!root) return undefined
  const real = realOf(root)
  const extra = await filterOverrides(root)
  const stagedAgainst = (tree: string) => git(root, ['diff-index', '--cached', '--numstat', '-z', ...DIFF_FLAGS, tree], { extra })
  const [status, unstaged, stagedOnHead] = await Promise.all([
    git(root, ['status', '--porcelain=v2', '-z', '--branch', '--untracked-files=all', '--ignore-submodules=dirty'], { extra }),
    git(root, ['diff-files', '--numstat', '-z', ...DIFF_FLAGS], { extra }),
    // no HEAD yet (an empty repository): asked again against the empty tree below
    stagedAgainst('HEAD').catch(() => undefined),
  ])
  const { branch, files } = parseStatus(status.stdout.toString('utf8'))
  const staged = stagedOnHead ?? (await stagedAgainst(await headTree(root, branch.head, extra)))
  const counts = { true: parseNumstat(staged.stdout.toString('utf8')), false: parseNumstat(unstaged.stdout.toString('utf8')) }
  // a private path (a credential store in a dotfiles repository) is not there, as if absent
  const visible = files.filter((f) => !isPrivate(pathBelow(real, f.path.split('/')), places))
  const truncated = visible.length > FILES_MAX || status.capped
  const rows: ChangedFile[] = visible.slice(0, FILES_MAX).map((f) => {
    if (f.status === 'untracked') return { ...f, deletions: 0, ...untrackedCounts(pathBelow(real, f.path.split('/'))) }
    const c = counts[String(f.staged) as 'true' | 'false'].get(f.path)
    return { ...f, additions: c?.additions ?? 0, deletions: c?.deletions ?? 0, binary: c?.binary ?? false }
  })
  return { repo_root: root, ...branch, files: rows, truncated }
}

/** An untracked file's diff against nothing, read by the bridge: a regular file's lines, a symlink's target as one line. */
function untrackedDiff(path: string): FileDiff | undefined {
  const o = openExact(path)
  if (!o) return undefined
  if (o.kind === 'symlink') {
    let target: string
    try {
      target = readlinkSync(path)
    } catch {
      return undefined
    }
    return { binary: false, hunks: [{ header: '@@ -0,0 +1 @@', lines: [{ op: '+', new: 1, text: target }] }], truncated: false }
  }
  if (o.kind !== 'file') {
    if (o.kind === 'dir') closeSync(o.fd)
    return undefined
  }
  try {
    return addedDiff(readFd(o.fd, DIFF_MAX_BYTES + 1), o.stat.size)
  } finally {
    closeSync(o.fd)
  }
}

/**
 * One file's diff: staged (index against HEAD) or not (work tree against the index; an
 * untracked file against nothing). Decided without a status of the whole tree, which a
 * large repository makes slow: the index says whether git tracks the path; a staged
 * change is looked up among the index's changes (renames need both paths). A path that
 * cannot be below the top (`..`, absolute, into `.git`) or is private is no change.
 */
export async function diffOf(
  root: string,
  given: string,
  staged: boolean,
  places: PrivatePlaces,
): Promise<(FileDiff & { path: string; old_path?: string }) | undefined> {
  const parts = componentsOf(given)
  if (!parts || parts.length === 0) return undefined
  const path = parts.join('/')
  const real = realOf(root)
  if (isPrivate(pathBelow(real, parts), places)) return undefined
  const extra = await filterOverrides(root)
  let oldPath: string | undefined
  if (staged) {
    const tree = await headTree(root, (await git(root, ['rev-parse', '-q', '--verify', 'HEAD'], { okCodes: [0, 1] })).stdout.toString('utf8').trim(), extra)
    const names = (await git(root, ['diff-index', '--cached', '--name-status', '-z', '-M', '--ignore-submodules=dirty', tree], { extra })).stdout
      .toString('utf8')
      .split('\0')
    let found = false
    for (let i = 0; i < names.length && !found; ) {
      const st = names[i++] ?? ''
      if (st === '') continue
      if (st[0] === 'R' || st[0] === 'C') {
        const from = names[i++]!
        const to = names[i++]!
        if (to === path) {
          found = true
          if (st[0] === 'R') oldPath = from
        }
      } else if (names[i++] === path) found = true
    }
    if (!found) return undefined
    if (oldPath && isPrivate(pathBelow(real, oldPath.split('/')), places)) return undefined
    const r = await git(root, [LIT, 'diff-index', '--cached', '-p', ...DIFF_FLAGS, '-U3', tree, '--', ...(oldPath ? [oldPath, path] : [path])], { extra })
    const d = parseDiff(r.stdout.toString('utf8'), r.capped)
    return { path, ...(oldPath ? { old_path: oldPath } : {}), ...d }
  }
  // a tracked file's diff first (the common case: one git call); nothing there, then is it untracked?
  const r = await git(root, [LIT, 'diff-files', '-p', ...DIFF_FLAGS, '-U3', '--', path], { extra })
  const d = parseDiff(r.stdout.toString('utf8'), r.capped)
  // a mode change alone is a change with no text to show
  if (d.binary || d.hunks.length > 0 || r.capped || /^old mode /m.test(r.stdout.toString('utf8'))) return { path, ...d }
  const untracked = (await git(root, [LIT, 'ls-files', '-z', '--others', '--exclude-standard', '--', path], { extra })).stdout
    .toString('utf8')
    .split('\0')
    .includes(path)
  if (!untracked) return undefined
  const u = untrackedDiff(pathBelow(real, parts))
  return u && { path, ...u }
}
