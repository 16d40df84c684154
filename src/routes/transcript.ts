// WS /agent-transcript (docs/agent-pane-api.md, second contract). Everything that
// can fail fails before the upgrade, as a plain-text status; once open, the
// per-socket protocol lives in transcript/stream.ts, and following the pane onto
// a new session in transcript/rotation.ts.
import { Elysia, t } from 'elysia'
import type { Ctx } from '../server/ctx'
import type { AgentInfo } from '../herdr/types'
import { asClientFrame } from '../transcript/frames'
import type { Resolved, TranscriptSource } from '../transcript/source'
import { AWAITING_SESSION, openTranscript } from '../transcript/opening'
import { HerdrError } from '../herdr/client'
import { TranscriptStream } from '../transcript/stream'
import { followSession } from '../transcript/rotation'
import { socketAgent } from './edge'
import { openSession, WANT_SESSION } from '../history/session-open'
import { bunSocket, logSocketClose, PausedReading, PROBE_EVERY_MS } from './sockets'
import { whoOf } from '../server/log'
import { needs } from '../auth/scopes'

interface TranscriptConn {
  pane: string
  agent: AgentInfo
  source: TranscriptSource
  resolved: Resolved
  /** a fresh start's empty opening: only a session herdr reports replaces it */
  reportedOnly: boolean
  subagent?: string
  /** a session socket (?session=KIND:ID): never rotates; its first page may start ?around= */
  session?: { ref: string; around?: number }
  opened: boolean
  orphan?: ReturnType<typeof setTimeout>
  stream?: TranscriptStream
  /** its reading, while paused for flow control */
  reading?: PausedReading
  cleanup: (() => void)[]
  openedAt?: number
  /** everything this socket held is released (close, or taken for dead) */
  released: boolean
}

/** Releases what a socket holds: its stream, its file reference, its pollers. Idempotent. */
function release(c: TranscriptConn): void {
  if (c.released) return
  c.released = true
  for (const f of c.cleanup.splice(0)) f()
  if (c.stream) c.stream.close()
  else c.resolved.timeline.release()
}

/** A resolution whose upgrade never completed is released after this long. */
const ORPHAN_MS = 30_000

export function transcriptRoutes(ctx: Ctx) {
  const { sources } = ctx
  const counters = ctx.counters.transcript
  return new Elysia({ name: 'agent-transcript' })
    .macro('transcriptConn', {
      query: t.Object(
        {
          pane: t.Optional(t.String()),
          session: t.Optional(t.String({ maxLength: 256 })),
          around: t.Optional(t.String()),
          subagent: t.Optional(t.String()),
          // with ?session=: another machine's session is relayed (src/machines/relay.ts); `local` is this one's
          machine: t.Optional(t.String({ maxLength: 32 })),
        },
        // every field is an optional string: only a ?session= longer than any id fails here
        { error: WANT_SESSION },
      ),
      async resolve({ query, status, request }) {
        if (query.session !== undefined) {
          // a past session by its GET /sessions row (src/history/session-open.ts)
          if (query.pane !== undefined || query.subagent !== undefined) return status(400, WANT_SESSION)
          const around = query.around === undefined ? undefined : /^[1-9]\d{0,15}$/.test(query.around) ? Number(query.around) : NaN
          if (Number.isNaN(around)) return status(400, 'around: an entry seq, 1 or more')
          const o = await openSession(
            {
              finder: ctx.projects.finder,
              roots: ctx.projects.roots,
              sources,
              agents: async () => (ctx.watch.latest() ?? (await ctx.herdr.snapshot().catch(() => undefined)))?.agents ?? [],
              log: ctx.log,
            },
            query.session,
          )
          if (!o.ok) return status(o.status, o.body)
          const conn: TranscriptConn = {
            pane: o.pane,
            agent: o.agent,
            source: o.source,
            resolved: o.resolved,
            session: { ref: query.session, around },
            reportedOnly: false,
            opened: false,
            cleanup: [],
            released: false,
          }
          conn.orphan = setTimeout(() => {
            if (!conn.opened) o.resolved.timeline.release()
          }, ORPHAN_MS)
          return { tx: conn }
        }
        if (!query.pane) return status(400, 'want ?pane=<pane_id>')
        const cached = await socketAgent(ctx, request, query.pane)
        if (!cached) return status(404, 'no such agent')
        const herdr = ctx.herdr
        let opened
        try {
          opened = await openTranscript(
            {
              sources,
              freshAgent: (pane) =>
                herdr.agentGet(pane).catch((e) => {
                  if (e instanceof HerdrError && e.kind === 'not_found') return undefined
                  throw e
                }),
              started: (pane) => ctx.projects.started.get(pane),
            },
            query.pane,
            cached,
            query.subagent,
          )
        } catch (e) {
          if (e instanceof HerdrError) throw e
          ctx.log(`transcript ${query.pane}: resolve failed: ${(e as Error).stack ?? e}`)
          return status(500, 'read transcript failed')
        }
        if (!opened.ok) return status(opened.status, opened.body)
        const { agent, source, resolved } = opened
        const conn: TranscriptConn = {
          pane: query.pane,
          agent,
          source,
          resolved,
          reportedOnly: opened.reportedOnly,
          subagent: query.subagent,
          opened: false,
          cleanup: [],
          released: false,
        }
        conn.orphan = setTimeout(() => {
          if (!conn.opened) resolved.timeline.release()
        }, ORPHAN_MS)
        return { tx: conn }
      },
    })
    .ws('/agent-transcript', {
      detail: needs('read', { summary: 'WS /agent-transcript' }),
      transcriptConn: true,
      open(ws) {
        const c = ws.data.tx
        c.opened = true
        c.openedAt = Date.now()
        clearTimeout(c.orphan)
        const raw = bunSocket(ws)
        // First, before any await: a device revoked during the upgrade gets no socket.
        const unregister = ctx.sockets.admitOrRefuse(ctx.auth, ws.data, raw, () => release(c))
        if (!unregister) return
        c.cleanup.push(unregister)
        // A socket that pushes back is watched until its queue is empty again.
        // Its reading stays on (only a client asking for more pages than are
        // worth queueing is paused, and PausedReading looks at it every 250 ms),
        // so a close frame, a FIN or a reset mid-backlog releases everything at
        // once. A queue that has not moved for stalledSocketMs means the client
        // is there but not reading: it is taken for dead and released.
        const stallMs = ctx.timing.stalledSocketMs
        const reading = (c.reading = new PausedReading(raw))
        let watchdog: ReturnType<typeof setInterval> | undefined
        const unwatch = () => {
          clearInterval(watchdog)
          watchdog = undefined
        }
        c.cleanup.push(unwatch, () => reading.stop())
        const watch = () => {
          if (watchdog) return
          let queued = raw.getBufferedAmount()
          let movedAt = Date.now()
          watchdog = setInterval(
            () => {
              if (c.released) return unwatch()
              const now = raw.getBufferedAmount()
              if (now === 0 || now < queued) movedAt = Date.now()
              queued = now
              if (raw.readyState !== 1) return release(c) // closed, and Bun did not say so
              if (now === 0) {
                // Bun may empty a queue without a drain event: resume sending.
                c.stream?.drain()
                if (!reading.isPaused) return unwatch()
              }
              if (Date.now() - movedAt >= stallMs) {
                ctx.log(`transcript ${c.pane}: client stopped reading for ${stallMs} ms; closing`)
                release(c)
                try {
                  raw.terminate()
                } catch {}
              }
            },
            Math.max(10, Math.min(PROBE_EVERY_MS, Math.floor(stallMs / 4))),
          )
        }
        ctx.logger?.info('socket open', {
          socket: 'agent-transcript',
          pane: c.pane,
          subagent: c.subagent,
          session: c.resolved.sessionId,
          device: whoOf(ws.data),
        })
        const stream = new TranscriptStream(
          {
            send: (frame) => {
              const r = raw.send(JSON.stringify(frame))
              const queued = raw.getBufferedAmount()
              if (queued > counters.maxBufferedBytes) counters.maxBufferedBytes = queued
              if (r === -1) watch()
              // 0 on a socket no longer open: it is gone, whether or not its close event comes.
              else if (r === 0 && raw.readyState !== 1) queueMicrotask(() => release(c))
              return r
            },
            pauseReading: () => {
              reading.pause()
              watch()
            },
            resumeReading: () => reading.resume(),
            close: (code, reason) => raw.close(code, reason),
            log: ctx.log,
          },
          c.pane,
          c.agent.agent ?? 'unknown',
          c.resolved,
          c.subagent,
          ctx.counters.stream,
          undefined,
          c.session && { session: c.session.ref, around: c.session.around },
        )
        c.stream = stream
        if (c.resolved.roster) {
          const roster = setInterval(() => void stream.refreshRoster(), ctx.timing.rosterPollMs)
          c.cleanup.push(() => clearInterval(roster))
        }
        // A ?subagent= stream belongs to the session that spawned it, a ?session= stream to its session: neither rotates.
        if (c.subagent === undefined && c.session === undefined)
          c.cleanup.push(
            followSession({
              pane: c.pane,
              stream,
              panes: ctx.panes,
              sources: ctx.sources,
              reportedOnly: () => c.reportedOnly && stream.sessionId === AWAITING_SESSION,
              onRotate: (agent, from, to) => {
                c.agent = agent
                ctx.logger?.info('session changed', { pane: c.pane, from, to, device: whoOf(ws.data) })
              },
              log: ctx.log,
            }),
          )
        void stream.start()
      },
      message(ws, message) {
        const c = ws.data.tx
        c.reading?.reading()
        const req = asClientFrame(message)
        if (!req) {
          ws.raw.close(1000, 'unrecognized control frame')
          return
        }
        c.stream?.request(req)
      },
      drain(ws) {
        ws.data.tx.stream?.drain()
      },
      close(ws, code, reason) {
        const c = ws.data.tx
        logSocketClose(ctx.logger, ws.data, { socket: 'agent-transcript', pane: c.pane, openedAt: c.openedAt, code, reason })
        release(c)
      },
    })
}
