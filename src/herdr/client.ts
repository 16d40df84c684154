// The one herdr client every endpoint uses: runs the `herdr` CLI with a time
// limit, decodes its JSON envelope and turns failures into HerdrError.
// The CLI has no read timeout of its own (docs/reference/herdr-cli.md §1), so a hung server
// would hang a request: we kill the whole process group when time runs out.
import type { Static, TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { HerdrSocketError, herdrSocketPath, socketRequest } from './socket'
import { mismatchAdvice, type MismatchAdvice } from './protocol'
import { AgentReply, CreatedReply, SnapshotReply, StartedReply, type AgentInfo, type ReadSource, type Snapshot } from './types'

export interface RunResult {
  code: number
  stdout: string
  stderr: string
  timedOut: boolean
  /** the caller's signal stopped it */
  aborted?: boolean
  /** stdout passed STDOUT_MAX_BYTES */
  tooLarge?: boolean
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
    /** with `protocol_mismatch`: what to do, and the protocols herdr named */
    readonly mismatch?: MismatchAdvice,
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
  /** text as one bracketed paste, no Enter (socket `pane.send_input`): how an agent takes a file's path */
  paneSendInput(pane: string, text: string): Promise<void>
  paneRead(pane: string, opts?: { source?: ReadSource; lines?: number; ansi?: boolean }): Promise<string>
  snapshot(): Promise<Snapshot>
  /** a new workspace (its root pane's shell in `cwd`): the pane id */
  workspaceCreate(o: { cwd: string; label?: string }): Promise<{ pane_id: string; workspace_id: string; terminal_id?: string }>
  /** a new tab of a workspace (its root pane's shell in `cwd`): the pane id */
  tabCreate(o: { workspace: string; cwd: string; label?: string }): Promise<{ pane_id: string; workspace_id: string; terminal_id?: string }>
  /** `herdr agent start`: types the agent's command into the pane's shell and waits until it is ready (or fails) */
  agentStart(o: { name: string; kind: string; pane: string; args?: string[]; timeoutMs: number }): Promise<AgentInfo>
  /** a message to a ready agent (socket `agent.prompt`: the text never on a command line) */
  agentPrompt(target: string, text: string): Promise<void>
  /** closes a pane and everything running in it */
  paneClose(pane: string): Promise<void>
  /** `herdr --version` → "0.8.2", or null when the executable is missing; throws HerdrError when it hangs or fails */
  version(): Promise<string | null>
  /** The same client, its calls stopped when `signal` aborts (see herdrFor). */
  withSignal?(signal: AbortSignal): HerdrClient
  /**
   * While herdr's CLI refuses its server (`protocol_mismatch`, since the last CLI call
   * that reached it): what the user must do; undefined once a call goes through again.
   */
  protocolMismatch?(): MismatchAdvice | undefined
}

export interface HerdrClientOptions {
  /** path or name of the herdr executable */
  bin: string
  /** arguments placed before herdr's own (the demo runs the bundled stand-in as `gothalo __fake-herdr …`) */
  argvPrefix?: string[]
  timeoutMs?: number
  env?: Record<string, string | undefined>
  /**
   * herdr's API socket, where typed text goes (default: where the CLI itself
   * would connect, from `env`). herdr's CLI takes text only as arguments,
   * which any local user can read in /proc/<pid>/cmdline; the socket is the
   * user's own (0600).
   */
  socketPath?: string
  /**
   * told of every failed herdr call (for the log); neither field ever holds typed text.
   * A protocol mismatch is told once, not once per call, until a call goes through again.
   */
  onFailure?: (failure: { command: string; kind: HerdrErrorKind; code: string | undefined; message: string }) => void
}

/** herdr's stderr quoted in a 502 body or a log line: at most this many characters. */
export const QUOTED_STDERR_MAX = 300
/** The most stdout one herdr call may print (a screen read of 1000 wide lines is well under it). */
export const STDOUT_MAX_BYTES = 8 * 1024 * 1024
/** How much stderr is kept (the rest is drained and dropped). */
const STDERR_KEEP_BYTES = 16 * 1024

export interface RunOptions {
  /** stops the command (kills its process group) when aborted: the client left, or the request's deadline passed */
  signal?: AbortSignal
  /** bytes written to the command's stdin */
  stdin?: string
}

/** Reads a pipe as it fills, keeping at most `keep` bytes; `over` is called once when more arrive. */
function collect(stream: ReadableStream<Uint8Array>, keep: number, over?: () => void) {
  const reader = stream.getReader()
  const chunks: Uint8Array[] = []
  let kept = 0
  let overflowed = false
  const done = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        if (kept + value.length <= keep) {
          chunks.push(value)
          kept += value.length
        } else {
          if (kept < keep) chunks.push(value.subarray(0, keep - kept))
          kept = keep
          if (!overflowed) {
            overflowed = true
            over?.()
          }
        }
      }
    } catch {
      // cancelled, or the pipe broke: what was read is what there is
    }
    return Buffer.concat(chunks).toString('utf8')
  })()
  return { done, cancel: () => void reader.cancel().catch(() => {}), overflowed: () => overflowed }
}

/**
 * Runs a command with a hard time limit. Its pipes are read while it runs (a
 * big output cannot fill a pipe and stall it), and the limit covers the pipes
 * too: a grandchild that keeps stdout open after the command exits cannot hold
 * the caller past `timeoutMs`. On timeout, abort or an oversized stdout the
 * whole process group is killed.
 */
export async function runCommand(argv: string[], timeoutMs: number, env?: Record<string, string | undefined>, o: RunOptions = {}): Promise<RunResult> {
  if (o.signal?.aborted) return { code: -1, stdout: '', stderr: '', timedOut: false, aborted: true }
  let proc: ReturnType<typeof Bun.spawn>
  try {
    proc = Bun.spawn(argv, {
      stdin: o.stdin !== undefined ? Buffer.from(o.stdin, 'utf8') : 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
      env: env as Record<string, string> | undefined,
      // Own process group, so a timeout can kill a wrapper script and its children.
      detached: true,
    })
  } catch (e) {
    return { code: 127, stdout: '', stderr: '', timedOut: false, spawnError: (e as Error).message }
  }
  const kill = () => {
    try {
      process.kill(-proc.pid, 'SIGKILL')
    } catch {
      try {
        proc.kill('SIGKILL')
      } catch {}
    }
  }
  let stop!: (why: 'timeout' | 'abort' | 'too_large') => void
  const stopped = new Promise<'timeout' | 'abort' | 'too_large'>((r) => (stop = r))
  const timer = setTimeout(() => stop('timeout'), timeoutMs)
  const onAbort = () => stop('abort')
  o.signal?.addEventListener('abort', onAbort, { once: true })
  const out = collect(proc.stdout as ReadableStream<Uint8Array>, STDOUT_MAX_BYTES, () => stop('too_large'))
  const err = collect(proc.stderr as ReadableStream<Uint8Array>, STDERR_KEEP_BYTES)
  const finished = Promise.all([proc.exited, out.done, err.done])
  const outcome = await Promise.race([finished, stopped])
  clearTimeout(timer)
  o.signal?.removeEventListener('abort', onAbort)
  if (!Array.isArray(outcome)) {
    kill()
    out.cancel()
    err.cancel()
    return {
      code: -1,
      stdout: '',
      stderr: '',
      timedOut: outcome === 'timeout',
      aborted: outcome === 'abort',
      tooLarge: outcome === 'too_large',
    }
  }
  const [code, stdout, stderr] = outcome
  return { code, stdout, stderr, timedOut: false }
}

/**
 * herdr's stderr as it may be quoted (502 bodies, logs): one line, no control
 * characters (a terminal or a phone must not interpret any), at most
 * QUOTED_STDERR_MAX characters.
 */
export function quoteStderr(stderr: string): string {
  const flat = stderr
    .trim()
    .replace(/\r?\n/g, ' ')
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, '')
  const chars = [...flat]
  return chars.length <= QUOTED_STDERR_MAX ? flat : chars.slice(0, QUOTED_STDERR_MAX).join('') + '…'
}

interface Envelope<T> {
  id?: string
  result?: T
  error?: { code: string; message: string }
}

/** The words of a herdr command as they may be shown: typed text never is. */
function labelOf(args: string[]): string {
  const shown = args[0] === 'pane' && args[1] === 'send-text' ? [...args.slice(0, 3), '…'] : args
  return `herdr ${shown.join(' ')}`
}

export function createHerdrClient(opts: HerdrClientOptions): HerdrClient {
  const timeoutMs = opts.timeoutMs ?? 5000
  const socketPath = opts.socketPath ?? herdrSocketPath(opts.env ?? process.env)
  /** the advice while the CLI refuses the server (shared by every signal-bound copy) */
  let mismatch: MismatchAdvice | undefined

  function make(signal?: AbortSignal): HerdrClient {
    function fail(args: string[], e: HerdrError): HerdrError {
      if (e.code === 'protocol_mismatch') {
        const first = mismatch === undefined
        mismatch = e.mismatch
        if (!first) return e
      }
      opts.onFailure?.({ command: labelOf(args), kind: e.kind, code: e.code, message: e.message })
      return e
    }

    async function run(args: string[], stdin?: string, limitMs = timeoutMs): Promise<RunResult> {
      try {
        return await runOnce(args, stdin, limitMs)
      } catch (e) {
        throw e instanceof HerdrError ? fail(args, e) : e
      }
    }

    async function runOnce(args: string[], stdin: string | undefined, limitMs: number): Promise<RunResult> {
      const r = await runCommand([opts.bin, ...(opts.argvPrefix ?? []), ...args], limitMs, opts.env, { signal, stdin })
      const label = labelOf(args)
      if (r.spawnError !== undefined) throw new HerdrError('failed', 'not_found_executable', `${label}: herdr not found (${opts.bin})`)
      if (r.aborted) {
        const why =
          (signal?.reason as { name?: string } | undefined)?.name === 'TimeoutError' ? "stopped at the request's time limit" : 'stopped: the client went away'
        throw new HerdrError('failed', 'aborted', `${label}: ${why}`)
      }
      if (r.timedOut) throw new HerdrError('failed', 'timeout', `${label}: timed out after ${limitMs} ms`)
      if (r.tooLarge) throw new HerdrError('failed', 'bad_output', `${label}: output larger than ${STDOUT_MAX_BYTES} bytes`)
      if (r.code !== 0) {
        const stderr = r.stderr.trim()
        let code: string | undefined
        try {
          const c = (JSON.parse(stderr.split('\n')[0]) as Envelope<unknown>).error?.code
          if (typeof c === 'string') code = c
        } catch {}
        const kind: HerdrErrorKind =
          code === 'agent_not_found' || code === 'pane_not_found' ? 'not_found' : code === 'server_not_running' ? 'not_running' : 'failed'
        // herdr's own words name the protocols; the 502 says what to do about it
        if (code === 'protocol_mismatch') {
          const advice = mismatchAdvice(stderr)
          throw new HerdrError(kind, code, `${label}: ${advice.text}`, advice)
        }
        throw new HerdrError(kind, code, `${label}: ${quoteStderr(stderr) || `exit code ${r.code}`}`)
      }
      // herdr answered: its CLI and server agree (again)
      mismatch = undefined
      return r
    }

    /** The envelope's result, checked against herdr's schema (types.ts): one that does not fit is a 502. */
    async function json<S extends TSchema>(args: string[], shape: S, limitMs = timeoutMs): Promise<Static<S>> {
      const r = await run(args, undefined, limitMs)
      let env: Envelope<unknown> | undefined
      try {
        env = JSON.parse(r.stdout) as Envelope<unknown>
      } catch {}
      const result = env && typeof env === 'object' ? env.result : undefined
      if (!Value.Check(shape, result)) throw fail(args, new HerdrError('failed', 'bad_output', `${labelOf(args)}: unreadable output`))
      return result
    }

    /** A socket method whose text must not be on a command line; `args` is how it is named in errors and logs. */
    async function socketCall(args: string[], method: string, params: Record<string, unknown>): Promise<void> {
      if (signal?.aborted) throw fail(args, new HerdrError('failed', 'aborted', `${labelOf(args)}: stopped: the client went away`))
      try {
        await socketRequest(socketPath, method, params, timeoutMs)
      } catch (e) {
        if (!(e instanceof HerdrSocketError)) throw e
        const kind: HerdrErrorKind =
          e.code === 'agent_not_found' || e.code === 'pane_not_found' ? 'not_found' : e.code === 'unreachable' ? 'not_running' : 'failed'
        const why = e.code === 'unreachable' ? `no herdr server is running at ${socketPath}` : quoteStderr(e.message.replace(/^herdr socket [^:]*: /, ''))
        throw fail(args, new HerdrError(kind, e.code === 'unreachable' ? 'server_not_running' : e.code, `${labelOf(args)}: ${why}`))
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
        return (await json(['agent', 'get', target], AgentReply)).agent
      },
      async agentRead(target, o) {
        return (await run(['agent', 'read', target, ...readArgs(o)])).stdout
      },
      async agentSendKeys(target, keys) {
        await run(['agent', 'send-keys', target, ...keys])
      },
      async paneSendText(pane, text) {
        // Through herdr's socket, never the CLI: the text must not be on a command line.
        const args = ['pane', 'send-text', pane, text]
        const label = labelOf(args)
        if (signal?.aborted) throw fail(args, new HerdrError('failed', 'aborted', `${label}: stopped: the client went away`))
        try {
          await socketRequest(socketPath, 'pane.send_text', { pane_id: pane, text }, timeoutMs)
        } catch (e) {
          if (!(e instanceof HerdrSocketError)) throw e
          // The message names herdr's error, never the text.
          const kind: HerdrErrorKind =
            e.code === 'pane_not_found' ? 'not_found' : e.code === 'unreachable' || e.code === 'server_not_running' ? 'not_running' : 'failed'
          const why = e.code === 'unreachable' ? `no herdr server is running at ${socketPath}` : quoteStderr(e.message.replace(/^herdr socket [^:]*: /, ''))
          throw fail(args, new HerdrError(kind, e.code === 'unreachable' ? 'server_not_running' : e.code, `${label}: ${why}`))
        }
      },
      async paneSendKeys(pane, keys) {
        await run(['pane', 'send-keys', pane, ...keys])
      },
      async paneSendInput(pane, text) {
        await socketCall(['pane', 'send-input', pane, '…'], 'pane.send_input', { pane_id: pane, text })
      },
      async paneRead(pane, o) {
        return (await run(['pane', 'read', pane, ...readArgs(o)])).stdout
      },
      async snapshot() {
        return (await json(['api', 'snapshot'], SnapshotReply)).snapshot
      },
      async workspaceCreate(o) {
        const args = ['workspace', 'create', '--cwd', o.cwd, '--no-focus', ...(o.label ? ['--label', o.label] : [])]
        const r = await json(args, CreatedReply)
        return { pane_id: r.root_pane.pane_id, workspace_id: r.root_pane.workspace_id, terminal_id: r.root_pane.terminal_id }
      },
      async tabCreate(o) {
        const args = ['tab', 'create', '--workspace', o.workspace, '--cwd', o.cwd, '--no-focus', ...(o.label ? ['--label', o.label] : [])]
        const r = await json(args, CreatedReply)
        return { pane_id: r.root_pane.pane_id, workspace_id: r.root_pane.workspace_id, terminal_id: r.root_pane.terminal_id }
      },
      async agentStart(o) {
        const args = [
          'agent',
          'start',
          o.name,
          '--kind',
          o.kind,
          '--pane',
          o.pane,
          '--timeout',
          String(o.timeoutMs),
          ...(o.args?.length ? ['--', ...o.args] : []),
        ]
        // herdr waits for the agent itself: our limit is its own plus a margin
        return (await json(args, StartedReply, o.timeoutMs + 5000)).agent
      },
      async agentPrompt(target, text) {
        await socketCall(['agent', 'prompt', target, '…'], 'agent.prompt', { target, text })
      },
      async paneClose(pane) {
        await run(['pane', 'close', pane])
      },
      async version() {
        const r = await runCommand([opts.bin, ...(opts.argvPrefix ?? []), '--version'], timeoutMs, opts.env, { signal })
        // missing: null (found:false); hung or failing: an error /healthz can tell apart
        if (r.spawnError !== undefined) return null
        if (r.timedOut) throw new HerdrError('failed', 'timeout', `herdr --version: timed out after ${timeoutMs} ms`)
        if (r.aborted || r.tooLarge || r.code !== 0)
          throw new HerdrError('failed', r.aborted ? 'aborted' : undefined, `herdr --version: ${quoteStderr(r.stderr.trim()) || `exit code ${r.code}`}`)
        const m = /herdr\s+(\S+)/.exec(r.stdout)
        return m ? m[1] : r.stdout.trim() || null
      },
      withSignal: (s) => make(signal ? AbortSignal.any([signal, s]) : s),
      protocolMismatch: () => mismatch,
    }
  }
  return make()
}

/**
 * The client bound to a request: every herdr call it makes stops (its process
 * group killed) when `signal` aborts. Clients without the notion are used as they are.
 */
export function herdrFor(herdr: HerdrClient, signal: AbortSignal): HerdrClient {
  return herdr.withSignal ? herdr.withSignal(signal) : herdr
}
