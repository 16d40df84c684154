// git, read-only and inert (docs/bridge.md "Review changes"): nothing a
// repository's config or the user's could make it run does run — no hooks,
// pager, external diff, textconv, clean/smudge filters, fsmonitor or credential
// prompt — the system and global config are ignored, no optional lock is taken,
// each call is stopped after 8 s and its output cut at a cap. The callers use
// plumbing (diff-files, diff-index, ls-files) and status without optional locks,
// which never write the index, and keep git out of submodules
// (--ignore-submodules=dirty): a submodule's own config is never read for a filter.
import { statSync } from 'node:fs'
import { isAbsolute, join } from 'node:path'

export const GIT_TIMEOUT_MS = 8000
export const GIT_OUTPUT_MAX = 16 * 1024 * 1024

export interface GitResult {
  code: number
  stdout: Buffer
  stderr: string
  /** stdout passed the cap and was cut there (the process stopped) */
  capped: boolean
  timedOut: boolean
}

export class GitError extends Error {}

/** The environment git runs with: the bridge's, less every GIT_* setting, plus the inert ones. */
function gitEnv(): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('GIT_') && k !== 'PAGER' && k !== 'EDITOR') env[k] = v
  return {
    ...env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
    GIT_ASKPASS: '/bin/false',
    SSH_ASKPASS: '/bin/false',
    GIT_NO_REPLACE_OBJECTS: '1',
    LC_ALL: 'C',
  }
}

/** Settings given on every call: they win over whatever the repository's own config says. */
const INERT = [
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.pager=cat',
  '-c',
  'diff.external=',
  '-c',
  'credential.helper=',
  '-c',
  'core.untrackedCache=false',
  '-c',
  'core.quotePath=false',
  '-c',
  'core.sshCommand=/bin/false',
  '-c',
  'protocol.allow=never',
  '--no-pager',
  '--no-optional-locks',
]

/** Runs git in `cwd` (an absolute directory) with the inert settings and `extra` -c overrides; `input` is its stdin. */
export async function git(cwd: string, args: string[], o: { extra?: string[]; okCodes?: number[]; input?: Buffer } = {}): Promise<GitResult> {
  if (!isAbsolute(cwd)) throw new GitError(`git: not an absolute directory: ${cwd}`)
  const proc = Bun.spawn(['git', ...INERT, ...(o.extra ?? []), ...args], {
    cwd,
    env: gitEnv(),
    stdin: o.input ?? 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    detached: true,
  })
  let timedOut = false
  const kill = () => {
    try {
      process.kill(-proc.pid, 'SIGKILL')
    } catch {
      proc.kill('SIGKILL')
    }
  }
  const timer = setTimeout(() => {
    timedOut = true
    kill()
  }, GIT_TIMEOUT_MS)
  const chunks: Buffer[] = []
  let size = 0
  let capped = false
  const reader = proc.stdout.getReader()
  const errText = new Response(proc.stderr).text()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      if (size + value.byteLength > GIT_OUTPUT_MAX) {
        chunks.push(Buffer.from(value.subarray(0, GIT_OUTPUT_MAX - size)))
        size = GIT_OUTPUT_MAX
        capped = true
        kill()
        break
      }
      chunks.push(Buffer.from(value))
      size += value.byteLength
    }
  } finally {
    clearTimeout(timer)
  }
  const code = await proc.exited
  const stderr = (await errText.catch(() => '')).slice(0, 2000)
  if (timedOut) throw new GitError(`git ${args[0]}: stopped after ${GIT_TIMEOUT_MS / 1000} s`)
  if (!capped && !(o.okCodes ?? [0]).includes(code)) throw new GitError(`git ${args[0]}: ${stderr.trim().split('\n')[0] || `exit code ${code}`}`)
  return { code, stdout: Buffer.concat(chunks, size), stderr, capped, timedOut }
}

/** The repository holding `dir`, or undefined when it is in none. */
export async function repoRoot(dir: string): Promise<string | undefined> {
  try {
    const r = await git(dir, ['rev-parse', '--show-toplevel'])
    const root = r.stdout.toString('utf8').trim()
    return root || undefined
  } catch {
    return undefined
  }
}

/**
 * -c overrides that switch off every clean/smudge/process filter the repository
 * configures (a `.gitattributes` names them; its config says what they run).
 */
export async function filterOverrides(root: string): Promise<string[]> {
  // read again only when the repository's config file changed
  let stamp = ''
  try {
    const st = statSync(join(root, '.git', 'config'))
    stamp = `${st.mtimeMs}:${st.size}`
  } catch {
    // a worktree or submodule keeps its config elsewhere: not cached
  }
  const cached = stamp ? filterCache.get(root) : undefined
  if (cached && cached.stamp === stamp) return cached.args
  const args = await readFilterOverrides(root)
  if (stamp) {
    if (filterCache.size > 256) filterCache.clear()
    filterCache.set(root, { stamp, args })
  }
  return args
}

const filterCache = new Map<string, { stamp: string; args: string[] }>()

async function readFilterOverrides(root: string): Promise<string[]> {
  let out = ''
  try {
    out = (await git(root, ['config', '--null', '--get-regexp', '^filter\\.'], { okCodes: [0, 1] })).stdout.toString('utf8')
  } catch {
    return []
  }
  const names = new Set<string>()
  for (const rec of out.split('\0')) {
    const m = /^filter\.(.+)\.(clean|smudge|process|required)\n?/s.exec(rec)
    if (m) names.add(m[1]!)
  }
  return [...names].flatMap((n) => ['-c', `filter.${n}.clean=`, '-c', `filter.${n}.smudge=`, '-c', `filter.${n}.process=`, '-c', `filter.${n}.required=false`])
}
