// The one herdr client every endpoint uses: runs the `herdr` CLI with a time
// limit, decodes its JSON envelope and turns failures into HerdrError.
// The CLI has no read timeout of its own (docs/reference/herdr-cli.md §1), so a hung server
// would hang a request: we kill the whole process group when time runs out.
import type { AgentInfo, ReadSource, Snapshot } from './types'

export interface RunResult {
  code: number
  stdout: string
  stderr: string
  timedOut: boolean
  /** set when the executable could not be started at all */
  spawnError?: string
}

export type HerdrErrorKind = 'not_found' | 'not_running' | 'failed'

export class HerdrError extends Error {
  constructor(
    readonly kind: HerdrErrorKind,
    /** the CLI's error code when it printed one (agent_not_found, agent_not_idle, …) */
    readonly code: string | undefined,
    /** `herdr <subcommand> …: <stderr or reason>`, the 502 body */
    message: string,
  ) {
    super(message)
  }
}

export interface HerdrClient {
  agentGet(target: string): Promise<AgentInfo>
  agentRead(target: string, opts?: { source?: ReadSource; lines?: number; ansi?: boolean }): Promise<string>
  agentSendKeys(target: string, keys: string[]): Promise<void>
  paneSendText(pane: string, text: string): Promise<void>
  paneSendKeys(pane: string, keys: string[]): Promise<void>
  paneRead(pane: string, opts?: { source?: ReadSource; lines?: number; ansi?: boolean }): Promise<string>
  snapshot(): Promise<Snapshot>
  /** `herdr --version` → "0.8.2", or null when the executable is missing */
  version(): Promise<string | null>
}

export interface HerdrClientOptions {
  /** path or name of the herdr executable */
  bin: string
  /** arguments placed before herdr's own (the demo runs the bundled stand-in as `gothalo __fake-herdr …`) */
  argvPrefix?: string[]
  timeoutMs?: number
  env?: Record<string, string | undefined>
}

export async function runCommand(
  argv: string[],
  timeoutMs: number,
  env?: Record<string, string | undefined>,
): Promise<RunResult> {
  let proc: ReturnType<typeof Bun.spawn>
  try {
    proc = Bun.spawn(argv, {
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
      env: env as Record<string, string> | undefined,
      // Own process group, so a timeout can kill a wrapper script and its children.
      detached: true,
    })
  } catch (e) {
    return { code: 127, stdout: '', stderr: '', timedOut: false, spawnError: (e as Error).message }
  }
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    try {
      process.kill(-proc.pid, 'SIGKILL')
    } catch {
      try {
        proc.kill('SIGKILL')
      } catch {}
    }
  }, timeoutMs)
  const code = await proc.exited
  clearTimeout(timer)
  // Read after exit: an orphaned grandchild holding the pipe cannot stall us (docs/reference/stack.md §7).
  const [stdout, stderr] = timedOut
    ? ['', '']
    : await Promise.all([
        new Response(proc.stdout as ReadableStream).text(),
        new Response(proc.stderr as ReadableStream).text(),
      ])
  return { code, stdout, stderr, timedOut }
}

interface Envelope<T> {
  id?: string
  result?: T
  error?: { code: string; message: string }
}

export function createHerdrClient(opts: HerdrClientOptions): HerdrClient {
  const timeoutMs = opts.timeoutMs ?? 5000

  async function run(args: string[]): Promise<RunResult> {
    const r = await runCommand([opts.bin, ...(opts.argvPrefix ?? []), ...args], timeoutMs, opts.env)
    const label = `herdr ${args.join(' ')}`
    if (r.spawnError !== undefined) throw new HerdrError('failed', 'not_found_executable', `${label}: herdr not found (${opts.bin})`)
    if (r.timedOut) throw new HerdrError('failed', 'timeout', `${label}: timed out after ${timeoutMs} ms`)
    if (r.code !== 0) {
      const stderr = r.stderr.trim()
      let code: string | undefined
      try {
        code = (JSON.parse(stderr.split('\n')[0]) as Envelope<unknown>).error?.code
      } catch {}
      const kind: HerdrErrorKind =
        code === 'agent_not_found' || code === 'pane_not_found'
          ? 'not_found'
          : code === 'server_not_running'
            ? 'not_running'
            : 'failed'
      throw new HerdrError(kind, code, `${label}: ${stderr || `exit code ${r.code}`}`)
    }
    return r
  }

  async function json<T>(args: string[]): Promise<T> {
    const r = await run(args)
    try {
      const env = JSON.parse(r.stdout) as Envelope<T>
      if (env.result === undefined) throw new Error('no result')
      return env.result
    } catch {
      throw new HerdrError('failed', 'bad_output', `herdr ${args.join(' ')}: unreadable output`)
    }
  }

  function readArgs(o?: { source?: ReadSource; lines?: number; ansi?: boolean }): string[] {
    const a: string[] = []
    if (o?.source) a.push('--source', o.source)
    if (o?.lines !== undefined) a.push('--lines', String(o.lines))
    if (o?.ansi) a.push('--format', 'ansi')
    return a
  }

  return {
    async agentGet(target) {
      return (await json<{ agent: AgentInfo }>(['agent', 'get', target])).agent
    },
    async agentRead(target, o) {
      return (await run(['agent', 'read', target, ...readArgs(o)])).stdout
    },
    async agentSendKeys(target, keys) {
      await run(['agent', 'send-keys', target, ...keys])
    },
    async paneSendText(pane, text) {
      await run(['pane', 'send-text', pane, text])
    },
    async paneSendKeys(pane, keys) {
      await run(['pane', 'send-keys', pane, ...keys])
    },
    async paneRead(pane, o) {
      return (await run(['pane', 'read', pane, ...readArgs(o)])).stdout
    },
    async snapshot() {
      return (await json<{ snapshot: Snapshot }>(['api', 'snapshot'])).snapshot
    },
    async version() {
      const r = await runCommand([opts.bin, ...(opts.argvPrefix ?? []), '--version'], timeoutMs, opts.env)
      if (r.spawnError !== undefined || r.timedOut || r.code !== 0) return null
      const m = /herdr\s+(\S+)/.exec(r.stdout)
      return m ? m[1] : r.stdout.trim() || null
    },
  }
}

/** herdr pane ids: `w<base32>:p<base32>` (docs/reference/herdr-cli.md §2). */
export const PANE_ID_RE = /^w[0-9A-HJKMNP-TV-Z]+:p[0-9A-HJKMNP-TV-Z]+$/
