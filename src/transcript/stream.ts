// The per-socket WS /agent-transcript protocol, written once against Timeline
// (docs/agent-pane-api.md, "Framing"): hello → newest page → backlog_complete →
// live tail, load_older → page_complete, session_changed + a fresh opening
// sequence on rotation, subagents when the roster changes.
//
// Backpressure: nothing is buffered per socket beyond a few control frames.
// Pages and the live tail are cursors into the timeline; the pump reads a small
// chunk, sends one entry per frame, and stops as soon as the socket reports
// backpressure (send → -1), resuming on drain. A slow client therefore costs a
// cursor, not a queue of entries. Once it has asked for more pages than are
// worth queueing the socket stops reading its requests, so a client that asks
// without reading meets TCP backpressure, not a growing queue. Merely being
// backed up does not stop the reading: a socket Bun does not read hears no
// close frame or FIN, and a client that left mid-backlog must be let go at once.
import type { Entry } from './entry'
import { LIMITS } from './entry'
import { PROTOCOL, type LoadNewer, type LoadOlder, type ServerFrame } from './frames'
import { rosterChangeKey, type Subagent } from './roster'
import type { Resolved } from './source'
import type { Timeline } from './timeline'

/** Bun's ServerWebSocket.send result: -1 backpressure (queued), 0 dropped/closed, else bytes. */
export type SendResult = number

export interface StreamIO {
  send(frame: ServerFrame): SendResult
  close(code: number, reason: string): void
  log(msg: string): void
  /** stop / start reading the client's frames (flow control) */
  pauseReading?(): void
  resumeReading?(): void
}

/** Queued work (a page is two tasks) past which the client's requests wait unread. */
const MAX_QUEUED_TASKS = 32

/** What an app's transcript streams did (the app's own), for tests and measurements. */
export type StreamCounters = ReturnType<typeof newStreamCounters>

export const newStreamCounters = () => ({
  /** sockets paused now, waiting for drain */
  paused: 0,
  /** times a socket pushed back */
  pauses: 0,
})

/** Entries read per timeline call while paging (bounds memory per socket). */
const CHUNK = 50

/**
 * How long a socket must be quiet after a page up before the page above it is
 * read ahead: a reader takes seconds over a page, and requests that come back
 * to back (a fling, a client jumping about) are not kept waiting behind a read
 * they may not use.
 */
export const READ_AHEAD_MS = 50

/** How a session socket (?session=) opens: where its first page starts, and what hello names. */
export interface StreamOpening {
  /** `KIND:ID`, echoed in hello with has_newer */
  session: string
  /** the first page starts at this seq (once: a reset opens at the newest page) */
  around?: number
}

type Task = { kind: 'frame'; frame: ServerFrame; gen: number; onSent?: () => void } | { kind: 'range'; from: number; to: number; gen: number }

export class TranscriptStream {
  private resolved: Resolved
  private timeline: Timeline
  /** bumps on every rotation/reset: work begun for an older generation is dropped */
  private gen = 0
  private tasks: Task[] = []
  /** live tail cursor: the next seq to send live, once the opening sequence is out */
  private liveNext = 1
  private liveOn = false
  private blocked = false
  private pumping = false
  private again = false
  private closed = false
  private unsubs: (() => void)[] = []
  private roster: Subagent[] | undefined
  private readingPaused = false
  /** the opening sequence is queued: requests can be served after it */
  private opened = false
  /** requests that came before the opening sequence was queued (hello goes first) */
  private early: (LoadOlder | LoadNewer)[] = []
  /** a first page short of the newest entry: live entries wait until the client pages down to it */
  private liveHeld = false
  /** the page above the last page up, to be read ahead once the socket has been quiet (readAheadMs) */
  private readAhead: ReturnType<typeof setTimeout> | undefined

  constructor(
    private readonly io: StreamIO,
    private readonly pane: string,
    private agentKind: string,
    resolved: Resolved,
    private readonly subagent?: string,
    /** where the stream counts (its app's, shared by the app's streams) */
    private readonly counters: StreamCounters = newStreamCounters(),
    /** quiet time before the page above a page up is read ahead (READ_AHEAD_MS) */
    private readonly readAheadMs = READ_AHEAD_MS,
    /** a session socket's opening (absent: a pane's) */
    private readonly opening?: StreamOpening,
  ) {
    this.resolved = resolved
    this.timeline = resolved.timeline
  }

  get sessionId(): string {
    return this.resolved.sessionId
  }

  /** Sends the opening sequence and starts the live tail. */
  async start(): Promise<void> {
    await this.open()
  }

  private async open(): Promise<void> {
    const tl = this.timeline
    const gen = this.gen
    // Subscribe before reading total: growth that lands while the page is read
    // is then delivered by the live cursor, never lost and never doubled.
    this.unsubs.push(
      tl.onGrow((entries) => this.grown(entries)),
      // Deferred: restarting re-subscribes, which must not happen inside the
      // timeline's own listener loop (a Set being iterated would visit it again).
      tl.onReset?.(() => {
        if (gen === this.gen) setTimeout(() => gen === this.gen && void this.restart(this.resolved), 0)
      }) ?? (() => {}),
    )
    let roster: Subagent[] | undefined
    try {
      roster = await this.resolved.roster?.()
    } catch (e) {
      // Losing the roster must never cost the conversation.
      this.io.log(`transcript ${this.pane}: roster failed: ${(e as Error).message}`)
    }
    if (gen !== this.gen || this.closed) return
    this.roster = roster
    const total = tl.total()
    const around = this.opening?.around
    if (this.opening) this.opening.around = undefined
    // ?around=SEQ: the page starts at that entry; past the end it is the newest page
    const from = around !== undefined && around <= total ? Math.max(1, around) : Math.max(1, total - LIMITS.newestPage + 1)
    const to = Math.min(total, from + LIMITS.newestPage - 1)
    const count = total >= 1 ? to - from + 1 : 0
    const hasOlder = total >= 1 && from > 1
    const hasNewer = to < total
    const hello: ServerFrame = {
      type: 'hello',
      protocol: PROTOCOL,
      pane: this.pane,
      agent_kind: this.agentKind,
      session_id: this.resolved.sessionId,
      ...(this.subagent !== undefined ? { subagent: this.subagent } : {}),
      backlog_count: count,
      total,
      has_more: hasOlder,
      oldest_loaded_seq: count ? from : 0,
      has_older: hasOlder,
      ...(roster !== undefined ? { subagents: roster } : {}),
      ...(this.opening ? { session: this.opening.session, has_newer: hasNewer } : {}),
    }
    this.liveNext = to + 1
    this.liveOn = false
    this.liveHeld = hasNewer
    this.tasks.push({ kind: 'frame', frame: hello, gen })
    if (count) this.tasks.push({ kind: 'range', from, to, gen })
    this.tasks.push({
      kind: 'frame',
      frame: { type: 'backlog_complete', count, has_more: hasOlder },
      gen,
      onSent: () => {
        if (gen === this.gen && !this.liveHeld) this.liveOn = true
      },
    })
    this.opened = true
    for (const req of this.early.splice(0)) this.request(req)
    this.kick()
  }

  /** Reads the client's requests only while their answers can flow. */
  private flowControl(): void {
    const pause = !this.closed && this.tasks.length + this.early.length > MAX_QUEUED_TASKS
    if (pause === this.readingPaused) return
    this.readingPaused = pause
    if (pause) this.io.pauseReading?.()
    else this.io.resumeReading?.()
  }

  /**
   * The timeline grew. A socket that is caught up sends the new entries it was
   * handed (every socket on a file shares them: no re-read per socket); any
   * other state leaves them to the pump, which reads from its cursor.
   */
  private grown(entries: Entry[]): void {
    if (this.liveOn && !this.blocked && !this.pumping && this.tasks.length === 0 && entries[0]?.seq === this.liveNext) {
      for (const e of entries) {
        this.liveNext = e.seq + 1
        if (!this.emit({ type: 'entry', live: true, entry: e })) break
      }
    }
    this.kick()
  }

  /**
   * What every request does first: a read ahead not yet run is dropped (this
   * request decides what comes next), and one that comes before the opening
   * sequence is queued (hello, the first page and backlog_complete go first,
   * whenever a request comes). True when it was queued.
   */
  private heldBack(req: LoadOlder | LoadNewer): boolean {
    this.cancelReadAhead()
    if (this.opened) return false
    this.early.push(req)
    this.flowControl()
    return true
  }

  /** Services a client frame: load_older or load_newer. */
  request(req: LoadOlder | LoadNewer): void {
    if (req.type === 'load_newer') this.loadNewer(req)
    else this.loadOlder(req)
  }

  /**
   * Services a load_newer control frame (load_older's mirror): the entries after
   * after_seq, then newer_page_complete. A page that reaches the newest entry
   * lets a held live tail flow from just past it.
   */
  loadNewer(req: LoadNewer): void {
    if (this.heldBack(req)) return
    const gen = this.gen
    const limit = !req.limit ? LIMITS.olderPageDefault : Math.min(req.limit, LIMITS.olderPageMax)
    const total = this.timeline.total()
    const from = Math.max(1, req.after_seq + 1)
    const to = Math.min(total, from + limit - 1)
    const hasNewer = to < total
    const done = () => {
      if (gen !== this.gen || hasNewer || !this.liveHeld) return
      this.liveHeld = false
      // the client holds everything up to `to` (an empty page: up to what it asked after, at most the total)
      this.liveNext = from > to ? Math.min(from, total + 1) : to + 1
      this.liveOn = true
      this.kick()
    }
    if (from > to) {
      this.tasks.push({
        kind: 'frame',
        frame: { type: 'newer_page_complete', requested_after_seq: req.after_seq, newest_loaded_seq: 0, has_newer: hasNewer },
        gen,
        onSent: done,
      })
    } else {
      this.tasks.push({ kind: 'range', from, to, gen })
      this.tasks.push({
        kind: 'frame',
        frame: { type: 'newer_page_complete', requested_after_seq: req.after_seq, newest_loaded_seq: to, has_newer: hasNewer },
        gen,
        onSent: done,
      })
    }
    this.kick()
  }

  /** Services a load_older control frame. */
  loadOlder(req: LoadOlder): void {
    if (this.heldBack(req)) return
    const gen = this.gen
    const limit = !req.limit ? LIMITS.olderPageDefault : Math.min(req.limit, LIMITS.olderPageMax)
    const to = Math.min(req.before_seq - 1, this.timeline.total())
    const from = Math.max(1, to - limit + 1)
    if (to < 1) {
      this.tasks.push({
        kind: 'frame',
        frame: { type: 'page_complete', requested_before_seq: req.before_seq, oldest_loaded_seq: 0, has_older: false },
        gen,
      })
    } else {
      this.tasks.push({ kind: 'range', from, to, gen })
      this.tasks.push({
        kind: 'frame',
        frame: { type: 'page_complete', requested_before_seq: req.before_seq, oldest_loaded_seq: from, has_older: from > 1 },
        gen,
        // A reader who paged up once likely pages up again: the page above is read while they read
        // this one, in the request's size up to a default page (a reconnect's gap fill asks for up to
        // 500, and what is above it the client holds already).
        onSent: () => {
          const timeline = this.timeline
          if (from <= 1 || !timeline.prefetch) return
          this.cancelReadAhead()
          this.readAhead = setTimeout(() => {
            this.readAhead = undefined
            timeline.prefetch?.(Math.max(1, from - Math.min(limit, LIMITS.olderPageDefault)), from - 1)
          }, this.readAheadMs)
        },
      })
    }
    this.kick()
  }

  /** The socket drained: resume sending. */
  drain(): void {
    this.unblock()
    this.kick()
  }

  private unblock(): void {
    if (this.blocked) this.counters.paused--
    this.blocked = false
    this.flowControl()
  }

  /**
   * The pane's agent moved to another session (or its file was reset): replay
   * the opening sequence for `next` in place, after a session_changed.
   */
  async rotate(next: Resolved): Promise<void> {
    if (this.closed) return next.timeline.release()
    const from = this.resolved.sessionId
    await this.restart(next, { type: 'session_changed', pane: this.pane, from, to: next.sessionId })
  }

  private async restart(next: Resolved, announce?: ServerFrame): Promise<void> {
    if (this.closed) return
    this.cancelReadAhead()
    this.gen++
    for (const u of this.unsubs.splice(0)) u()
    if (next.timeline !== this.timeline) this.timeline.release()
    this.resolved = next
    this.timeline = next.timeline
    this.tasks = []
    this.liveOn = false
    // Requests not yet served named the old session's seqs: the client drops them too.
    this.opened = false
    this.early = []
    // A reset of the same file also invalidates every seq the client holds: say so.
    this.tasks.push({
      kind: 'frame',
      frame: announce ?? { type: 'session_changed', pane: this.pane, from: next.sessionId, to: next.sessionId },
      gen: this.gen,
    })
    await this.open()
  }

  /** Re-reads the roster; sends a subagents frame only when it changed. */
  async refreshRoster(): Promise<void> {
    if (!this.resolved.roster || this.closed) return
    const gen = this.gen
    let now: Subagent[] | undefined
    try {
      now = await this.resolved.roster()
    } catch (e) {
      this.io.log(`transcript ${this.pane}: roster failed: ${(e as Error).message}`)
      return
    }
    if (gen !== this.gen || this.closed) return
    if (rosterChangeKey(now) === rosterChangeKey(this.roster)) return // age alone is not a change
    this.roster = now
    this.tasks.push({ kind: 'frame', frame: { type: 'subagents', pane: this.pane, subagents: now ?? [] }, gen })
    this.kick()
  }

  close(): void {
    if (this.closed) return
    this.cancelReadAhead()
    this.unblock()
    this.closed = true
    this.gen++
    for (const u of this.unsubs.splice(0)) u()
    this.tasks = []
    this.timeline.release()
  }

  private cancelReadAhead(): void {
    clearTimeout(this.readAhead)
    this.readAhead = undefined
  }

  get isClosed(): boolean {
    return this.closed
  }

  private kick(): void {
    this.flowControl()
    if (this.closed) return
    if (this.pumping) {
      this.again = true
      return
    }
    this.pumping = true
    void this.pump()
      .catch((e) => this.io.log(`transcript ${this.pane}: ${(e as Error).stack ?? e}`))
      .finally(() => {
        this.pumping = false
        this.flowControl()
        if (this.again && !this.closed) {
          this.again = false
          this.kick()
        }
      })
  }

  /** Sends until the socket pushes back or there is nothing to send. */
  private async pump(): Promise<void> {
    while (!this.closed && !this.blocked) {
      this.again = false
      // The live tail keeps flowing while a page loads: live entries go first.
      if (this.liveOn && this.liveNext <= this.timeline.total()) {
        const gen = this.gen
        const from = this.liveNext
        const to = Math.min(this.timeline.total(), from + CHUNK - 1)
        const entries = await this.timeline.read(from, to)
        if (gen !== this.gen) continue
        if (!entries.length) return // a re-index is under way; onReset or the next growth kicks us
        for (const e of entries) {
          if (e.seq < this.liveNext) continue
          this.liveNext = e.seq + 1
          if (!this.emit({ type: 'entry', live: true, entry: e })) return
        }
        continue
      }
      const task = this.tasks[0]
      if (!task) return
      if (task.gen !== this.gen) {
        this.tasks.shift()
        continue
      }
      if (task.kind === 'frame') {
        this.tasks.shift()
        this.flowControl()
        const ok = this.emit(task.frame)
        task.onSent?.()
        if (!ok) return
        continue
      }
      // A page: read the next chunk of the range, oldest first.
      const to = Math.min(task.to, task.from + CHUNK - 1)
      let entries: Entry[]
      try {
        entries = await this.timeline.read(task.from, to)
      } catch {
        entries = []
      }
      if (task.gen !== this.gen) continue
      if (!entries.length) {
        // A read error yields a short page rather than a torn-down socket.
        this.tasks.shift()
        continue
      }
      // Advance the cursor per entry: a frame that meets backpressure was still queued.
      let ok = true
      let progressed = false
      for (const e of entries) {
        if (e.seq < task.from || e.seq > task.to) continue
        task.from = e.seq + 1
        progressed = true
        if (!(ok = this.emit({ type: 'entry', live: false, entry: e }))) break
      }
      if (!progressed || task.from > task.to) {
        if (this.tasks[0] === task) this.tasks.shift()
      }
      if (!ok) return
    }
  }

  /** One frame out; false when the socket pushed back (or is gone). */
  private emit(frame: ServerFrame): boolean {
    const r = this.io.send(frame)
    if (r === -1 || r === 0) {
      // -1: queued, but the socket is full: wait for drain. 0: dropped, the socket is closing.
      if (!this.blocked) {
        this.counters.paused++
        this.counters.pauses++
      }
      this.blocked = true
      this.flowControl()
      return false
    }
    return true
  }
}
