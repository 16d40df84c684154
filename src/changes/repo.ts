// The working tree of the repository holding a pane's directory: what changed
// (GET /changes) and one file's diff (GET /changes/diff), through inert git.
import { closeSync, openSync, readSync } from 'node:fs'
import { join } from 'node:path'
import { parseDiff, type FileDiff } from './diff'
import { filterOverrides, git, repoRoot } from './git'
import { FILES_MAX, parseNumstat, parseStatus, type Branch, type ChangedFile } from './status'

const DIFF_FLAGS = ['--no-ext-diff', '--no-textconv', '--no-color', '-M']

export interface Changes extends Branch {
  repo_root: string
  files: ChangedFile[]
  truncated: boolean
}

/** Lines of a file git does not track yet (a diff against nothing): read up to 8 MiB; NUL in the first 8 KiB means binary. */
function untrackedCounts(file: string): { additions: number; binary: boolean } {
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch {
    return { additions: 0, binary: false }
  }
  try {
    const buf = Buffer.allocUnsafe(64 * 1024)
    let lines = 0
    let last = 10
    let total = 0
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, total)
      if (n <= 0) break
      if (total === 0 && buf.subarray(0, Math.min(n, 8000)).includes(0)) return { additions: 0, binary: true }
      for (let i = 0; i < n; i++) if (buf[i] === 10) lines++
      last = buf[n - 1]!
      total += n
      if (total >= 8 * 1024 * 1024) break
    }
    return { additions: lines + (total > 0 && last !== 10 ? 1 : 0), binary: false }
  } catch {
    return { additions: 0, binary: false }
  } finally {
    closeSync(fd)
  }
}

export async function changesOf(dir: string): Promise<Changes | undefined> {
  const root = await repoRoot(dir)
  if (!root) return undefined
  const extra = await filterOverrides(root)
  const [status, unstaged, staged] = await Promise.all([
    git(root, ['status', '--porcelain=v2', '-z', '--branch', '--untracked-files=all', '--ignore-submodules=none'], { extra }),
    git(root, ['diff', '--numstat', '-z', ...DIFF_FLAGS], { extra }),
    git(root, ['diff', '--cached', '--numstat', '-z', ...DIFF_FLAGS], { extra }),
  ])
  const { branch, files } = parseStatus(status.stdout.toString('utf8'))
  const counts = { true: parseNumstat(staged.stdout.toString('utf8')), false: parseNumstat(unstaged.stdout.toString('utf8')) }
  const truncated = files.length > FILES_MAX || status.capped
  const rows: ChangedFile[] = files.slice(0, FILES_MAX).map((f) => {
    if (f.status === 'untracked') return { ...f, deletions: 0, ...untrackedCounts(join(root, f.path)) }
    const c = counts[String(f.staged) as 'true' | 'false'].get(f.path)
    return { ...f, additions: c?.additions ?? 0, deletions: c?.deletions ?? 0, binary: c?.binary ?? false }
  })
  return { repo_root: root, ...branch, files: rows, truncated }
}

/**
 * One file's diff: staged (index against HEAD) or not (work tree against the index; an
 * untracked file against nothing). Decided without a status of the whole tree, which a
 * large repository makes slow: the index says whether git tracks the path; a staged
 * change is looked up among the index's changes (renames need both paths).
 */
export async function diffOf(root: string, path: string, staged: boolean): Promise<(FileDiff & { path: string; old_path?: string }) | undefined> {
  const extra = await filterOverrides(root)
  const lit = ['--literal-pathspecs']
  let args: string[]
  let oldPath: string | undefined
  if (staged) {
    const names = (await git(root, ['diff', '--cached', '--name-status', '-z', '-M', '--no-ext-diff'], { extra })).stdout.toString('utf8').split('\0')
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
    args = [...lit, 'diff', '--cached', ...DIFF_FLAGS, '-U3', '--', ...(oldPath ? [oldPath, path] : [path])]
  } else {
    // a tracked file's diff first (the common case: one git call); nothing there, then is it untracked?
    const r = await git(root, [...lit, 'diff', ...DIFF_FLAGS, '-U3', '--', path], { extra })
    if (r.stdout.length > 0 || r.capped) return { path, ...parseDiff(r.stdout.toString('utf8'), r.capped) }
    const untracked = (await git(root, [...lit, 'ls-files', '-z', '--others', '--exclude-standard', '--', path], { extra })).stdout
      .toString('utf8')
      .split('\0')
      .includes(path)
    if (!untracked) return undefined
    args = ['diff', '--no-index', ...DIFF_FLAGS, '--', '/dev/null', path]
  }
  const r = await git(root, args, { extra, okCodes: [0, 1] })
  const d = parseDiff(r.stdout.toString('utf8'), r.capped)
  // a tracked path with nothing to show (no change of that kind) is not a change
  if (!d.binary && d.hunks.length === 0 && r.stdout.length === 0 && !oldPath) return undefined
  return { path, ...(oldPath ? { old_path: oldPath } : {}), ...d }
}
