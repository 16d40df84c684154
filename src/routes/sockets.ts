// Open sockets by device, so revoking a device closes its sockets at once,
// and all of them, so a shutdown closes each with a normal 1000. Also what every
// socket does alike at its open (admission) and its close (the log line).
import type { ServerWebSocket } from 'bun'
import type { AuthStore, Principal } from '../auth/types'
import { whoOf, type Logger } from '../server/log'

export type Close = (code: number, reason: string) => void

/**
 * The socket as Bun serves it, flow control included (getBufferedAmount,
 * pause, resume, terminate): Elysia's type for `ws.raw` predates it.
 */
export const bunSocket = (ws: { raw: unknown }): ServerWebSocket<unknown> => ws.raw as ServerWebSocket<unknown>

/** How often a socket whose reading is paused reads again for a moment (PausedReading). */
export const PROBE_EVERY_MS = 250
/** How long such a look lasts: one turn of the event loop is enough for Bun to read what waits. */
const PROBE_WINDOW_MS = 5

/**
 * A socket's reading, paused for flow control. While Bun does not read a
 * socket it hears neither a close frame nor a FIN (and not always a reset), so
 * a client that left would be held until the stall rule gave up on it. While
 * paused, the socket reads again for a moment every PROBE_EVERY_MS: what the
 * client sent meanwhile is read, and a close, a FIN or a reset closes it at
 * once. A frame read during such a look pauses it again (call `reading()` from
 * the message handler), so a look costs one read's worth of frames at most.
 */
export class PausedReading {
  private paused = false
  private timer: ReturnType<typeof setInterval> | undefined

  constructor(
    private readonly raw: { pause(): void; resume(): void },
    private readonly everyMs = PROBE_EVERY_MS,
  ) {}

  get isPaused(): boolean {
    return this.paused
  }

  pause(): void {
    if (this.paused) return
    this.paused = true
    this.raw.pause()
    this.timer = setInterval(() => this.look(), this.everyMs)
  }

  resume(): void {
    if (!this.paused) return
    this.stop()
    this.raw.resume()
  }

  /** A frame came in: while paused, it came during a look, which ends now. */
  reading(): void {
    if (this.paused) this.raw.pause()
  }

  /** The socket is gone: no more looks. */
  stop(): void {
    this.paused = false
    clearInterval(this.timer)
    this.timer = undefined
  }

  private look(): void {
    try {
      this.raw.resume()
    } catch {
      this.stop() // closed under us: its close handler releases it
      return
    }
    setTimeout(() => {
      try {
        if (this.paused) this.raw.pause()
      } catch {}
    }, PROBE_WINDOW_MS)
  }
}

/** The token of a request: `Authorization: Bearer …`, else `?token=`. */
export function tokenOf(headers: Record<string, string | undefined>, query: Record<string, unknown>): string | undefined {
  const h = headers.authorization
  if (h && /^bearer\s+/i.test(h)) return h.replace(/^bearer\s+/i, '').trim()
  const q = query.token
  return typeof q === 'string' && q ? q : undefined
}

export class SocketRegistry {
  private byDevice = new Map<string, Set<() => void>>()
  private all = new Set<Close>()

  /** Closes every open socket (the server is shutting the streams down). */
  closeAll(code: number, reason: string): number {
    const n = this.all.size
    for (const close of [...this.all]) close(code, reason)
    this.all.clear()
    return n
  }

  /** Registers a socket; returns the unregister function. */
  add(principal: Principal | undefined, closeSocket: Close): () => void {
    this.all.add(closeSocket)
    const close = () => closeSocket(1000, 'device revoked')
    if (principal?.kind !== 'device') return () => void this.all.delete(closeSocket)
    const id = principal.deviceId
    let set = this.byDevice.get(id)
    if (!set) this.byDevice.set(id, (set = new Set()))
    set.add(close)
    return () => {
      this.all.delete(closeSocket)
      set!.delete(close)
      if (set!.size === 0 && this.byDevice.get(id) === set) this.byDevice.delete(id)
    }
  }

  /**
   * Admits a socket at open: its token is checked again (the device may have
   * been revoked while the upgrade awaited herdr) and the socket registered in
   * the same synchronous step, so no revocation can fall between the two.
   * Returns the unregister function, or undefined when the token no longer
   * identifies anyone (the caller closes the socket with 1000 'device revoked').
   */
  admit(auth: AuthStore, data: unknown, closeSocket: Close): (() => void) | undefined {
    // The upgrade request itself: the validated query has lost ?token= by now.
    const req = (data as { request?: Request }).request
    if (!req) return undefined
    const url = new URL(req.url)
    const headers = { authorization: req.headers.get('authorization') ?? undefined }
    const principal = auth.identify(tokenOf(headers, { token: url.searchParams.get('token') ?? undefined }))
    if (!principal) return undefined
    return this.add(principal, closeSocket)
  }

  /**
   * admit() for a socket at its open, `raw` being the socket itself: when the
   * token no longer identifies anyone, `refused` runs (the route marks its socket
   * closed) and the socket is closed with 1000 'device revoked'.
   */
  admitOrRefuse(auth: AuthStore, data: unknown, raw: { close(code: number, reason: string): void }, refused: () => void): (() => void) | undefined {
    const unregister = this.admit(auth, data, (code, reason) => raw.close(code, reason))
    if (!unregister) {
      refused()
      raw.close(1000, 'device revoked')
    }
    return unregister
  }

  closeDevice(deviceId: string): number {
    const set = this.byDevice.get(deviceId)
    if (!set) return 0
    this.byDevice.delete(deviceId)
    // closing runs each socket's close handler, which unregisters it: count first
    const n = set.size
    for (const close of [...set]) close()
    return n
  }

  /** Sockets registered now, every kind and whoever holds them (tests and benches: none may outlive its client). */
  open(): number {
    return this.all.size
  }

  count(): number {
    let n = 0
    for (const s of this.byDevice.values()) n += s.size
    return n
  }
}

/** How long a socket was open, in seconds to a tenth; undefined when it never opened. */
export function openSeconds(openedAt: number | undefined): number | undefined {
  return openedAt === undefined ? undefined : Math.round((Date.now() - openedAt) / 100) / 10
}

/** The 'socket close' line of a socket: which one, its pane (/events has none), how it closed, how long it was open, whose. */
export function logSocketClose(
  logger: Logger | undefined,
  data: unknown,
  c: { socket: string; pane?: string; openedAt?: number; code: number; reason: string },
): void {
  logger?.info('socket close', {
    socket: c.socket,
    pane: c.pane,
    code: c.code,
    reason: c.reason || undefined,
    seconds: openSeconds(c.openedAt),
    device: whoOf(data),
  })
}
