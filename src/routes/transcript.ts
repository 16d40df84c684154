// WS /agent-transcript (docs/agent-pane-api.md, second contract). Everything that
// can fail fails before the upgrade, as a plain-text status; once open, the
// per-socket protocol lives in transcript/stream.ts, and following the pane onto
// a new session in transcript/rotation.ts.
import { Elysia, t } from 'elysia'
import type { Ctx } from '../server/ctx'
import type { AgentInfo } from '../herdr/types'
import { asLoadOlder } from '../transcript/frames'
import type { Resolved, TranscriptSource } from '../transcript/source'
import { AWAITING_SESSION, openTranscript } from '../transcript/opening'
import { HerdrError } from '../herdr/client'
import { TranscriptStream } from '../transcript/stream'
import { followSession } from '../transcript/rotation'
import { paneTargets } from './edge'
import { bunSocket, logSocketClose } from './sockets'
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
  opened: boolean
  orphan?: ReturnType<typeof setTimeout>
  stream?: TranscriptStream
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
    .use(paneTargets(ctx))
    .macro('transcriptConn', {
      query: t.Object({ pane: t.String({ minLength: 1 }), subagent: t.Optional(t.String()) }, { error: 'want ?pane=<pane_id>' }),
      agentTarget: 'socket',
      async resolve({ query, status, agent: cached, herdr }) {
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
        // While its reading is paused, Bun reports no close and its idle timeout
        // does not run, so a dropped client would hold its stream, file and
        // pollers for good. A ping each tick makes a reset connection fail its
        // write and close; a queue that has not moved for stalledSocketMs means
        // nobody is reading: the socket is taken for dead and released.
        const stallMs = ctx.timing.stalledSocketMs
        let watchdog: ReturnType<typeof setInterval> | undefined
        const unwatch = () => {
          clearInterval(watchdog)
          watchdog = undefined
        }
        c.cleanup.push(unwatch)
        const watch = () => {
          if (watchdog) return
          let queued = raw.getBufferedAmount()
          let movedAt = Date.now()
          watchdog = setInterval(
            () => {
              if (c.released) return unwatch()
              try {
                raw.ping()
              } catch {}
              const now = raw.getBufferedAmount()
              if (now === 0 || now < queued) movedAt = Date.now()
              // Bun may empty a paused socket's queue without a drain event: resume sending.
              if (now === 0) c.stream?.drain()
              queued = now
              if (raw.readyState !== 1 || Date.now() - movedAt >= stallMs) {
                if (raw.readyState === 1) ctx.log(`transcript ${c.pane}: client stopped reading for ${stallMs} ms; closing`)
                release(c)
                try {
                  raw.terminate()
                } catch {}
              }
            },
            Math.max(10, Math.min(5000, Math.floor(stallMs / 4))),
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
              return r
            },
            pauseReading: () => {
              raw.pause()
              watch()
            },
            resumeReading: () => {
              raw.resume()
              unwatch()
            },
            close: (code, reason) => raw.close(code, reason),
            log: ctx.log,
          },
          c.pane,
          c.agent.agent ?? 'unknown',
          c.resolved,
          c.subagent,
          ctx.counters.stream,
        )
        c.stream = stream
        if (c.resolved.roster) {
          const roster = setInterval(() => void stream.refreshRoster(), ctx.timing.rosterPollMs)
          c.cleanup.push(() => clearInterval(roster))
        }
        // A ?subagent= stream belongs to the session that spawned it: it never rotates.
        if (c.subagent === undefined)
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
        const req = asLoadOlder(message)
        if (!req) {
          ws.raw.close(1000, 'unrecognized control frame')
          return
        }
        c.stream?.loadOlder(req)
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
