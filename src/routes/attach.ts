// WS /attach: the raw terminal of a pane. herdr's CLI offers no terminal byte
// stream, so the screen (with SGR styling) is polled and re-sent whenever it
// changes, as one binary frame that homes the cursor and repaints; input frames
// are typed into the pane with `herdr pane send-text`.
import { Elysia, t } from 'elysia'
import { Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { Ctx } from '../server/ctx'
import { paneTargets } from './edge'
import { bunSocket, logSocketClose, openSeconds, PausedReading } from './sockets'
import { whoOf } from '../server/log'
import { needs } from '../auth/scopes'
import { viaOf } from '../audit/auditor'
import type { Principal } from '../auth/types'

const CLEAR = '\x1b[H\x1b[2J'

interface AttachConn {
  pane: string
  last?: string
  timer?: ReturnType<typeof setInterval>
  busy: boolean
  /** the client is not reading: skip repaints until drain */
  blocked: boolean
  closed: boolean
  unregister?: () => void
  size?: { cols: number; rows: number }
  openedAt?: number
  /** typed input not yet handed to herdr, in the order it was typed */
  input: string
  /** the one typing loop of this socket is running */
  typing: boolean
  /** reading paused: the client types faster than herdr takes it */
  inputPaused: boolean
  /** its reading, paused while input waits (a paused socket still hears a close: PausedReading) */
  reading?: PausedReading
  /** bytes typed this session (UTF-8), for its audit row */
  typedBytes: number
}

/** Typed input queued per socket before its reading pauses (TCP backpressure on the client). */
export const ATTACH_INPUT_MAX = 16 * 1024
/**
 * Input Bun had already read when the pause came still arrives; past this much
 * queued the socket is closed (1008) rather than hold more: the phone is told,
 * nothing is silently dropped.
 */
export const ATTACH_INPUT_HARD_MAX = 1024 * 1024
/** The most input handed to herdr in one call. */
const SEND_CHUNK = 4096

/** The client's terminal size (docs/bridge.md, WS /attach); every other frame is input. */
export const AttachResizeFrame = Type.Object({ type: Type.Literal('resize'), cols: Type.Integer({ minimum: 1 }), rows: Type.Integer({ minimum: 1 }) })

/** A pre-parsed JSON frame of type `resize`: never typed, even when its size is not one. */
function isResize(m: unknown): boolean {
  return typeof m === 'object' && m !== null && !(m instanceof Uint8Array) && (m as { type?: unknown }).type === 'resize'
}

/** The first `n` UTF-16 units of `s`, not splitting a surrogate pair. */
function headOf(s: string, n: number): string {
  if (s.length <= n) return s
  const c = s.charCodeAt(n - 1)
  return s.slice(0, c >= 0xd800 && c <= 0xdbff ? n - 1 : n)
}

/** A session relayed for another bridge's phone: that phone's name (X-Gothalo-Via), beside the bridge's device. */
const viaDetail = (data: unknown): { via?: string } => {
  const d = data as { request?: Request; principal?: Principal }
  const via = viaOf(d.request, d.principal)
  return via ? { via } : {}
}

export function attachRoutes(ctx: Ctx) {
  return new Elysia({ name: 'attach' })
    .use(paneTargets(ctx))
    .macro('attachPane', {
      paneTarget: 'socket',
      async resolve({ target, herdr }) {
        // the pane exists: one screen read (herdr's not-found is the edge's 404)
        await herdr.paneRead(target, { source: 'visible' })
        return {
          attach: { pane: target, busy: false, blocked: false, closed: false, input: '', typing: false, inputPaused: false, typedBytes: 0 } as AttachConn,
        }
      },
    })
    .ws('/attach', {
      // WebSocket routes are not in the OpenAPI document; the guard reads the same declaration
      detail: needs('terminal', { summary: 'WS /attach' }),
      query: t.Object({ pane: t.String({ minLength: 1 }) }, { error: 'want ?pane=<pane_id>' }),
      attachPane: true,
      open(ws) {
        const c = ws.data.attach
        const raw = bunSocket(ws)
        // First, before any await: a device revoked during the upgrade gets no socket.
        c.unregister = ctx.sockets.admitOrRefuse(ctx.auth, ws.data, raw, () => {
          c.closed = true
        })
        if (!c.unregister) return
        c.reading = new PausedReading(raw)
        c.openedAt = Date.now()
        ctx.logger?.info('socket open', { socket: 'attach', pane: c.pane, device: whoOf(ws.data) })
        const paint = async () => {
          if (c.busy || c.blocked || c.closed) return
          c.busy = true
          try {
            const screen = await ctx.herdr.paneRead(c.pane, { source: 'visible', ansi: true })
            if (screen !== c.last && !c.closed) {
              const r = raw.send(Buffer.from(CLEAR + screen.replace(/\r?\n/g, '\r\n')))
              if (r === -1) c.blocked = true
              // Remember the screen only once it was handed over, so a dropped frame is resent.
              if (r !== 0) c.last = screen
            }
          } catch (e) {
            ctx.log(`attach ${c.pane}: read failed: ${(e as Error).message}`)
          } finally {
            c.busy = false
          }
        }
        c.timer = setInterval(paint, ctx.timing.attachPollMs)
        void paint()
      },
      async message(ws, message) {
        const c = ws.data.attach
        c.reading?.reading()
        // Elysia pre-parses text frames (JSON → object, digits → number): undo it.
        if (isResize(message)) {
          if (Value.Check(AttachResizeFrame, message)) c.size = { cols: message.cols, rows: message.rows }
          return
        }
        const input =
          typeof message === 'string'
            ? message
            : message instanceof Uint8Array || Buffer.isBuffer(message)
              ? Buffer.from(message as Uint8Array).toString('utf8')
              : typeof message === 'object'
                ? JSON.stringify(message)
                : String(message)
        // NUL cannot travel in an argv; everything else is typed as is.
        const clean = input.replace(/\u0000/g, '')
        if (!clean || c.closed) return
        // One typing loop per socket: input reaches the pane in the order it was
        // typed, frames queued meanwhile go out together, and a client typing
        // faster than herdr takes it is paused instead of queueing without bound.
        if (c.input.length + clean.length > ATTACH_INPUT_HARD_MAX) {
          c.closed = true
          c.input = ''
          ws.raw.close(1008, 'input queue full')
          return
        }
        c.input += clean
        c.typedBytes += Buffer.byteLength(clean)
        if (c.input.length > ctx.counters.attach.maxQueuedInput) ctx.counters.attach.maxQueuedInput = c.input.length
        if (c.input.length > ATTACH_INPUT_MAX && !c.inputPaused) {
          c.inputPaused = true
          c.reading?.pause()
        }
        if (c.typing) return
        c.typing = true
        try {
          while (c.input && !c.closed) {
            const chunk = headOf(c.input, SEND_CHUNK)
            c.input = c.input.slice(chunk.length)
            try {
              await ctx.herdr.paneSendText(c.pane, chunk)
            } catch (e) {
              // the message names the command, never the text
              ctx.log(`attach ${c.pane}: send failed: ${(e as Error).message}`)
            }
            if (c.inputPaused && c.input.length <= ATTACH_INPUT_MAX / 2) {
              c.inputPaused = false
              if (!c.closed) c.reading?.resume()
            }
          }
        } finally {
          c.typing = false
        }
      },
      drain(ws) {
        ws.data.attach.blocked = false
      },
      close(ws, code, reason) {
        const c = ws.data.attach
        logSocketClose(ctx.logger, ws.data, { socket: 'attach', pane: c.pane, openedAt: c.openedAt, code, reason })
        // one audit row per session that opened: who watched which pane, how long, and how much was typed (never what)
        if (c.openedAt !== undefined)
          ctx.audit.write({
            device_id: whoOf(ws.data) ?? '-',
            action: 'terminal',
            pane: c.pane,
            detail: { bytes_typed: c.typedBytes, seconds: openSeconds(c.openedAt), ...viaDetail(ws.data) },
            status: 101,
          })
        c.closed = true
        c.input = ''
        clearInterval(c.timer)
        c.reading?.stop()
        c.unregister?.()
      },
    })
}
