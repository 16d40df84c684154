// herdr's socket API (docs/reference/herdr-cli.md §8): a unix socket speaking newline-delimited
// JSON, one request per connection, except `events.subscribe`, which keeps its
// connection open and pushes one event per line. The watcher uses it where the
// socket is reachable: a status change arrives in ~100 ms and no process is spawned.
import { createConnection, type Socket } from 'node:net'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { Type, type Static, type TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'

/** herdr's own resolution order (docs/reference/herdr-cli.md §8.1): HERDR_SOCKET_PATH, HERDR_SESSION, the default session. */
export function herdrSocketPath(env: Record<string, string | undefined>): string {
  if (env.HERDR_SOCKET_PATH) return env.HERDR_SOCKET_PATH
  const dir = join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'herdr')
  if (env.HERDR_SESSION) return join(dir, 'sessions', env.HERDR_SESSION, 'herdr.sock')
  return join(dir, 'herdr.sock')
}

export class HerdrSocketError extends Error {
  constructor(
    /** herdr's error code, or `unreachable` / `timeout` / `bad_output` */
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

/** Splits a byte stream into lines, never holding more than `max` bytes of one line. */
function lineReader(onLine: (line: string) => void, max: number) {
  let buf = ''
  return (chunk: Buffer | string): boolean => {
    buf += chunk.toString()
    let i: number
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i)
      buf = buf.slice(i + 1)
      if (line.trim()) onLine(line)
    }
    return buf.length <= max
  }
}

const MAX_LINE = 16 << 20

/** herdr's reply envelope: an object, with its error (when it failed) as {code, message}; a null error is none. */
const Envelope = Type.Object({
  result: Type.Optional(Type.Unknown()),
  error: Type.Optional(Type.Union([Type.Null(), Type.Object({ code: Type.String(), message: Type.String() })])),
})
type Envelope = Static<typeof Envelope>

/** A reply line as herdr's envelope; undefined when it is not JSON or not that shape. */
function envelopeOf(line: string): Envelope | undefined {
  try {
    const msg: unknown = JSON.parse(line)
    return Value.Check(Envelope, msg) ? msg : undefined
  } catch {
    return undefined
  }
}

/**
 * One request on its own connection: the result, or HerdrSocketError. With `reply`
 * (herdr's schema, types.ts) a result that does not fit it is `bad_output`.
 */
export function socketRequest<S extends TSchema>(path: string, method: string, params: Record<string, unknown>, timeoutMs: number, reply: S): Promise<Static<S>>
export function socketRequest(path: string, method: string, params: Record<string, unknown>, timeoutMs: number): Promise<unknown>
export function socketRequest<T>(path: string, method: string, params: Record<string, unknown>, timeoutMs: number, reply?: TSchema): Promise<T> {
  return new Promise((resolve, reject) => {
    let done = false
    let sock: Socket
    const finish = (err: Error | undefined, value?: T) => {
      if (done) return
      done = true
      clearTimeout(timer)
      sock?.destroy()
      if (err) reject(err)
      else resolve(value as T)
    }
    const timer = setTimeout(() => finish(new HerdrSocketError('timeout', `herdr socket ${method}: timed out after ${timeoutMs} ms`)), timeoutMs)
    const feed = lineReader((line) => {
      const msg = envelopeOf(line)
      if (!msg) return finish(new HerdrSocketError('bad_output', `herdr socket ${method}: unreadable reply`))
      if (msg.error) return finish(new HerdrSocketError(msg.error.code, `herdr socket ${method}: ${msg.error.message}`))
      if (msg.result === undefined) return finish(new HerdrSocketError('bad_output', `herdr socket ${method}: no result`))
      if (reply && !Value.Check(reply, msg.result)) return finish(new HerdrSocketError('bad_output', `herdr socket ${method}: unreadable reply`))
      finish(undefined, msg.result as T)
    }, MAX_LINE)
    sock = createConnection({ path })
    sock.on('connect', () => sock.write(JSON.stringify({ id: `gothalo:${method}`, method, params }) + '\n'))
    sock.on('data', (d) => {
      if (!feed(d)) finish(new HerdrSocketError('bad_output', `herdr socket ${method}: reply too long`))
    })
    sock.on('error', (e) => finish(new HerdrSocketError('unreachable', `herdr socket ${path}: ${e.message}`)))
    sock.on('close', () => finish(new HerdrSocketError('unreachable', `herdr socket ${method}: closed before replying`)))
  })
}

export interface Subscription {
  /** resolves once herdr answered `subscription_started`; rejects if it refused */
  started: Promise<void>
  close(): void
}

/**
 * `events.subscribe`: keeps the connection open and calls onEvent per pushed line
 * that fits `event` (herdr's schema, types.ts; one that does not is ignored) and the
 * first line must fit `started`; onEnd once when the connection ends for any reason
 * after starting, with herdr's error code when herdr ended it with an error line
 * (0.9.2's `events_lost`: the subscriber fell behind and must resubscribe and resync).
 */
export function socketSubscribe<S extends TSchema>(
  path: string,
  subscriptions: Record<string, unknown>[],
  schemas: { started: TSchema; event: S },
  onEvent: (e: Static<S>) => void,
  onEnd: (reason: string, code?: string) => void,
  timeoutMs: number,
): Subscription {
  let started = false
  let ended = false
  let closing = false
  let resolveStart!: () => void
  let rejectStart!: (e: Error) => void
  const startedP = new Promise<void>((res, rej) => {
    resolveStart = res
    rejectStart = rej
  })
  startedP.catch(() => {})
  const sock = createConnection({ path })
  const timer = setTimeout(() => end(new HerdrSocketError('timeout', `herdr socket events.subscribe: timed out after ${timeoutMs} ms`)), timeoutMs)
  function end(err: Error) {
    if (ended) return
    ended = true
    clearTimeout(timer)
    sock.destroy()
    if (!started) rejectStart(err)
    else if (!closing) onEnd(err.message, err instanceof HerdrSocketError ? err.code : undefined)
  }
  const feed = lineReader((line) => {
    let msg: unknown
    try {
      msg = JSON.parse(line)
    } catch {
      return end(new HerdrSocketError('bad_output', 'herdr socket events.subscribe: unreadable line'))
    }
    if (!started) {
      const reply = Value.Check(Envelope, msg) ? msg : undefined
      if (reply?.error) return end(new HerdrSocketError(reply.error.code, `herdr socket events.subscribe: ${reply.error.message}`))
      if (!Value.Check(schemas.started, reply?.result)) return end(new HerdrSocketError('bad_output', 'herdr socket events.subscribe: no subscription_started'))
      started = true
      clearTimeout(timer)
      return resolveStart()
    }
    if (Value.Check(schemas.event, msg)) return onEvent(msg)
    // herdr's last word on this subscription (events_lost, server_unavailable): it closes next
    const reply: unknown = msg
    const failed = Value.Check(Envelope, reply) ? reply.error : undefined
    if (failed) end(new HerdrSocketError(failed.code, `herdr socket events.subscribe: ${failed.message}`))
  }, MAX_LINE)
  sock.on('connect', () => sock.write(JSON.stringify({ id: 'gothalo:sub', method: 'events.subscribe', params: { subscriptions } }) + '\n'))
  sock.on('data', (d) => {
    if (!feed(d)) end(new HerdrSocketError('bad_output', 'herdr socket events.subscribe: line too long'))
  })
  sock.on('error', (e) => end(new HerdrSocketError('unreachable', `herdr socket ${path}: ${e.message}`)))
  sock.on('close', () => end(new HerdrSocketError('unreachable', 'herdr socket events.subscribe: connection closed')))
  return {
    started: startedP,
    close() {
      closing = true
      end(new Error('closed'))
    },
  }
}
