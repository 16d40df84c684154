// WS /events (docs/bridge.md "WS /events"): every pane's state, pushed. The
// first frame is a hello (the full list, or resume ok and the events missed);
// then `pane` / `pane_removed` events with the hub's gap-free seq. Auth as the
// other sockets: the token is checked at the upgrade and again at open, where
// the socket is registered in the same synchronous step (revocation closes it).
import { Elysia, t } from 'elysia'
import type { Ctx } from '../server/ctx'
import type { HubEvent } from '../events/hub'
import { whoOf } from '../server/log'
import { asVisibility } from '../events/frames'
import type { Principal } from '../auth/types'
import { needs } from '../auth/scopes'
import { bunSocket, logSocketClose } from './sockets'

/** A client whose unsent frames pass this is dropped (spec: 1 MiB). */
export const EVENTS_QUEUE_LIMIT = 1 << 20

export const EVENTS_PROTOCOL = 1

interface EventsConn {
  since?: { epoch: string; seq: number }
  closed: boolean
  openedAt?: number
  cleanup: (() => void)[]
}

/** `<epoch>:<seq>`: the epoch may itself hold no colon; seq is a non-negative integer. */
const SINCE = /^([A-Za-z0-9_-]{1,64}):(\d{1,15})$/

/** The upgrade's query, checked by its schema (a bad `since` is 400 before anything else). */
export const EventsQuery = t.Object({
  since: t.Optional(
    t.String({ pattern: SINCE.source, error: 'want ?since=<epoch>:<seq>', description: '`<epoch>:<seq>` of the last event the client holds, to resume' }),
  ),
})

export function eventsRoutes(ctx: Ctx) {
  const hub = ctx.events
  /** Lets go of everything a socket holds (its hub listener, ping, registry entry, presence). Idempotent. */
  const release = (c: EventsConn) => {
    ctx.presence.drop(c)
    c.closed = true
    for (const f of c.cleanup.splice(0)) f()
  }
  return new Elysia({ name: 'events' })
    .macro('eventsConn', {
      query: EventsQuery,
      resolve({ query }) {
        const m = query.since === undefined ? null : SINCE.exec(query.since)
        const since = m ? { epoch: m[1], seq: Number(m[2]) } : undefined
        return { ev: { since, closed: false, cleanup: [] } as EventsConn }
      },
    })
    .ws('/events', {
      detail: needs('read', { summary: 'WS /events' }),
      eventsConn: true,
      open(ws) {
        const c = ws.data.ev
        const raw = bunSocket(ws)
        // First, before any await: a device revoked during the upgrade gets no socket.
        const unregister = ctx.sockets.admitOrRefuse(ctx.auth, ws.data, raw, () => {
          c.closed = true
        })
        if (!unregister) return
        c.cleanup.push(unregister)
        c.openedAt = Date.now()
        ctx.logger?.info('socket open', { socket: 'events', device: whoOf(ws.data) })
        /** Sends a frame; false (and the socket closed) once the client has fallen 1 MiB behind. */
        const send = (frame: unknown): boolean => {
          if (c.closed) return false
          const r = raw.send(JSON.stringify(frame))
          if (r === 0 && raw.readyState !== 1) {
            // gone, whether or not its close event comes: let go of the hub now
            release(c)
            return false
          }
          if (r === 0 || raw.getBufferedAmount() > EVENTS_QUEUE_LIMIT) {
            ctx.log('events: a client stopped reading (queue over 1 MiB); dropping it')
            c.closed = true
            raw.close(1008, 'client too slow')
            return false
          }
          return true
        }
        // Listening keeps the hub (and the herdr watcher) running while the hello waits for its first list.
        let queued: HubEvent[] | undefined = []
        c.cleanup.push(
          hub.use((e) => {
            if (queued) queued.push(e)
            else send(e)
          }),
        )
        const ping = setInterval(() => {
          try {
            raw.ping()
          } catch {}
        }, ctx.timing.eventsPingMs)
        c.cleanup.push(() => clearInterval(ping))
        void hub.whenReady().then(() => {
          if (c.closed) return
          // One synchronous step: the hello's seq, the replay and the queue agree.
          const r = hub.resumeFrom(c.since)
          const early = queued!
          queued = undefined
          const hello: Record<string, unknown> = { type: 'hello', protocol: EVENTS_PROTOCOL, epoch: hub.epoch, seq: hub.seq, resume: r.resume }
          // with other machines merged: their states (absent on a single machine, so its hello is unchanged)
          const machines = ctx.machines?.listed()
          if (machines) hello.machines = machines
          if (r.resume !== 'ok') {
            // the full list as of the hello: the events heard while waiting are already in it
            hello.panes = hub.current()
            send(hello)
            return
          }
          // the events after `since`, from the ring (it holds the ones heard while waiting too)
          if (!send(hello)) return
          void early
          for (const e of r.events) if (!send(e)) return
        })
      },
      message(ws, message) {
        // The client says one thing: whether its window is on screen. Anything else is ignored (the stream goes on).
        const v = asVisibility(message)
        const device = (ws.data as { principal?: Principal }).principal
        if (!v || device?.kind !== 'device' || ws.data.ev.closed) return
        ctx.presence.report(ws.data.ev, device.deviceId, v.visible)
      },
      close(ws, code, reason) {
        const c = ws.data.ev
        if (c.openedAt !== undefined) logSocketClose(ctx.logger, ws.data, { socket: 'events', openedAt: c.openedAt, code, reason })
        release(c)
      },
    })
}
