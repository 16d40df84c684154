// GET /changes: the working tree of a repository from git's machine formats
// (`status --porcelain=v2 -z --branch`, `diff --numstat -z`), never its human
// output. Parsing is pure: bytes in, rows out.

export type FileStatus = 'modified' | 'added' | 'deleted' | 'renamed' | 'untracked' | 'conflicted'

export interface ChangedFile {
  path: string
  status: FileStatus
  staged: boolean
  old_path?: string
  additions: number
  deletions: number
  binary: boolean
}

export interface Branch {
  branch?: string
  head?: string
  upstream?: string
  ahead: number
  behind: number
}

export const FILES_MAX = 2000

const LETTER: Record<string, FileStatus> = { M: 'modified', T: 'modified', A: 'added', C: 'added', D: 'deleted', R: 'renamed' }

/** `git status --porcelain=v2 -z --branch --untracked-files=all` → the branch and one row per (file, staged or not). */
export function parseStatus(out: string): { branch: Branch; files: Omit<ChangedFile, 'additions' | 'deletions' | 'binary'>[] } {
  const branch: Branch = { ahead: 0, behind: 0 }
  const files: Omit<ChangedFile, 'additions' | 'deletions' | 'binary'>[] = []
  const recs = out.split('\0')
  for (let i = 0; i < recs.length; i++) {
    const r = recs[i]!
    if (r === '') continue
    if (r.startsWith('# ')) {
      const [key, ...rest] = r.slice(2).split(' ')
      const v = rest.join(' ')
      if (key === 'branch.oid' && v !== '(initial)') branch.head = v
      else if (key === 'branch.head' && v !== '(detached)') branch.branch = v
      else if (key === 'branch.upstream') branch.upstream = v
      else if (key === 'branch.ab') {
        const m = /^\+(\d+) -(\d+)$/.exec(v)
        if (m) {
          branch.ahead = Number(m[1])
          branch.behind = Number(m[2])
        }
      }
      continue
    }
    const kind = r[0]
    if (kind === '?') {
      files.push({ path: r.slice(2), status: 'untracked', staged: false })
      continue
    }
    if (kind === 'u') {
      // u XY sub m1 m2 m3 mW h1 h2 h3 path
      files.push({ path: fieldsFrom(r, 10), status: 'conflicted', staged: false })
      continue
    }
    if (kind === '1' || kind === '2') {
      const xy = r.slice(2, 4)
      // 1 XY sub mH mI mW hH hI path; 2 XY sub mH mI mW hH hI Xscore path \0 origPath
      const path = fieldsFrom(r, kind === '1' ? 8 : 9)
      const orig = kind === '2' ? recs[++i] : undefined
      const x = xy[0]!
      const y = xy[1]!
      if (x !== '.') files.push({ path, status: LETTER[x] ?? 'modified', staged: true, ...(x === 'R' && orig !== undefined ? { old_path: orig } : {}) })
      if (y !== '.') files.push({ path, status: LETTER[y] ?? 'modified', staged: false })
    }
  }
  return { branch, files }
}

/** The text after the first `n` space-separated fields (a path may hold spaces). */
function fieldsFrom(r: string, n: number): string {
  let at = 0
  for (let k = 0; k < n; k++) at = r.indexOf(' ', at) + 1
  return r.slice(at)
}

export interface NumStat {
  additions: number
  deletions: number
  binary: boolean
}

/** `git diff --numstat -z [-M]` → counts by path (a rename's counts under its new path). */
export function parseNumstat(out: string): Map<string, NumStat> {
  const m = new Map<string, NumStat>()
  const recs = out.split('\0')
  for (let i = 0; i < recs.length; i++) {
    const r = recs[i]!
    if (r === '') continue
    const parts = r.split('\t')
    if (parts.length < 3) continue
    const [a, d] = parts
    let path = parts.slice(2).join('\t')
    // a rename: "a\td\t" then old \0 new
    if (path === '') {
      i++ // the old path
      path = recs[++i] ?? ''
    }
    const binary = a === '-' && d === '-'
    m.set(path, { additions: binary ? 0 : Number(a), deletions: binary ? 0 : Number(d), binary })
  }
  return m
}
