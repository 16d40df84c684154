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

/** One file's diff: staged (index against HEAD) or not (work tree against the index; an untracked file against nothing). */
export async function diffOf(root: string, path: string, staged: boolean): Promise<(FileDiff & { path: string; old_path?: string }) | undefined> {
  const extra = await filterOverrides(root)
  const lit = ['--literal-pathspecs']
  // the whole status, not the path's: a rename is only seen with both its paths
  const st = await git(root, ['status', '--porcelain=v2', '-z', '--untracked-files=all'], { extra })
  const row = parseStatus(st.stdout.toString('utf8')).files.find((f) => f.path === path && f.staged === staged)
  if (!row) return undefined
  let r: Awaited<ReturnType<typeof git>>
  if (row.status === 'untracked') r = await git(root, ['diff', '--no-index', ...DIFF_FLAGS, '--', '/dev/null', path], { extra, okCodes: [0, 1] })
  else {
    const paths = row.old_path ? [row.old_path, path] : [path]
    r = await git(root, [...lit, 'diff', ...(staged ? ['--cached'] : []), ...DIFF_FLAGS, '-U3', '--', ...paths], { extra })
  }
  return { path, ...(row.old_path ? { old_path: row.old_path } : {}), ...parseDiff(r.stdout.toString('utf8'), r.capped) }
}
