// The ONE herdr watcher of the bridge. /events, Web Push, /snapshot's cache and
// every transcript socket's rotation check read herdr's state from here, so herdr
// calls grow with panes, never with sockets.
//
// Where herdr's socket is reachable it subscribes (`events.subscribe`): a status
// change arrives within herdr's 100 ms tick, then one `agent.get` for that pane
// fills in what the event does not carry (state_change_seq, session). herdr 0.9
// (protocol 22) replays nothing to a new subscriber, so the state is read after the
// subscription started (the read before it only names the panes to subscribe to),
// and an `events_lost` (0.9.2: the subscriber fell behind) subscribes and reads
// anew at once. A read is ordered against the events: what an event brought after
// a read was asked for stays on top of that read's answer (docs/reference/herdr-0.9.md §2). Generic
// events (pane created/closed/agent detected/moved, tab and workspace changes)
// trigger one `session.snapshot`; a slow resync covers fields herdr pushes no
// event for (a session id rotating without a status change). All of these are
// socket requests: no process is spawned.
// Otherwise it polls `herdr api snapshot` through the CLI once per second for all
// panes, and tries the socket again now and then.
// It runs only while someone uses it (an /events socket, a transcript socket, a
// push subscription); /snapshot alone reads through a short shared cache.
import type { HerdrClient } from './client'
import { Listeners } from '../server/listeners'
import { HerdrSocketError, socketRequest, socketSubscribe, type Subscription } from './socket'
import type { Static, TSchema } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import {
  AgentReply,
  HerdrEventSchema,
  PaneStatusChangedSchema,
  PingReply,
  SnapshotReply,
  SubscriptionStartedReply,
  type AgentInfo,
  type HerdrEvent,
  type PaneStatusChanged,
  type Snapshot,
} from './types'

export interface HerdrWatchOptions {
  /** herdr's API socket; undefined = CLI polling only */
  socketPath?: string
  /** CLI poll period (spec: one poll per second) */
  pollMs?: number
  /** socket mode: full snapshot this often, for fields no event carries */
  resyncMs?: number
  /** poll mode: try the socket again this often */
  retrySocketMs?: number
  /** time limit of one socket request */
  socketTimeoutMs?: number
  /**
   * Keeps running this long after the last user left (default 0): a phone that
   * reconnects, or a socket that follows another, finds herdr's state already
   * read instead of paying a herdr call of its own.
   */
  lingerMs?: number
  log?: (m: string) => void
  /** news that is not a problem (subscribed) */
  info?: (m: string) => void
}

export type WatchMode = 'stopped' | 'socket' | 'poll'

/** herdr calls made by the watcher and the /snapshot cache (tests and benches count them). */
export interface WatchCounters {
  /** `herdr api snapshot` processes spawned */
  cliSnapshots: number
  /** `events.subscribe` connections opened */
  subscriptions: number
  /** events received from herdr */
  events: number
}

type Listener = (snap: Snapshot) => void

/** Monotonic: scheduling must not follow an injected or adjusted wall clock. */
const now = () => performance.now()

/** Key order independent, so a socket reply and a CLI reply of the same state compare equal. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x) =>
    x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(
          Object.keys(x)
            .sort()
            .map((k) => [k, (x as Record<string, unknown>)[k]]),
        )
      : x,
  )
}

const GENERIC_EVENTS = [
  'pane.created',
  'pane.closed',
  'pane.agent_detected',
  'pane.moved',
  'pane.updated',
  'tab.created',
  'tab.closed',
  'tab.renamed',
  'tab.moved',
  'workspace.created',
  'workspace.closed',
  'workspace.renamed',
]

export class HerdrWatch {
  readonly counters: WatchCounters = { cliSnapshots: 0, subscriptions: 0, events: 0 }
  private _mode: WatchMode = 'stopped'
  private snap: Snapshot | undefined
  private snapKey = ''
  /** when the cached snapshot was last confirmed by herdr (poll mode / one-shot reads) */
  private snapAt = 0
  private lastError: Error | undefined
  /** bumped when the bridge itself changed a pane (sent keys): older reads no longer count as fresh */
  private invalidations = 0
  private stale = false
  /** a listener joined: the next read is told even if unchanged */
  private emitNext = false
  /** socket mode: read the whole state now */
  private resyncNow: (() => Promise<void>) | undefined
  /** orders reads and event patches: taken when a read is asked for, or an event's patch */
  private mark = 0
  /** the mark of the full read the cache holds: an older read answering later is dropped */
  private readMark = 0
  /** per pane, the latest patch an event brought (its mark): re-applied over a read asked for before it */
  private patches = new Map<string, { at: number; apply: (s: Snapshot) => Snapshot }>()
  private readonly users = new Listeners<Listener>(
    () => this.begin(),
    () => this.end(),
  )
  /** the stop scheduled after the last user left (lingerMs) */
  private lingering: ReturnType<typeof setTimeout> | undefined
  /** callers waiting for the running watcher's next full read (or its failure) */
  private readWaiters: (() => void)[] = []
  private gen = 0
  /** started and not stopped (its mode is settled only after the first read) */
  private running = false
  private wake: (() => void) | undefined
  private oneShot: Promise<Snapshot> | undefined
  private readonly o: Required<Omit<HerdrWatchOptions, 'socketPath'>> & { socketPath?: string }

  constructor(
    private readonly herdr: HerdrClient,
    opts: HerdrWatchOptions = {},
  ) {
    this.o = {
      socketPath: opts.socketPath,
      pollMs: opts.pollMs ?? 1000,
      resyncMs: opts.resyncMs ?? 2000,
      retrySocketMs: opts.retrySocketMs ?? 5000,
      socketTimeoutMs: opts.socketTimeoutMs ?? 2000,
      lingerMs: opts.lingerMs ?? 0,
      log: opts.log ?? (() => {}),
      info: opts.info ?? opts.log ?? (() => {}),
    }
  }

  get mode(): WatchMode {
    return this._mode
  }

  /** Keeps the watcher running until the returned function is called; `listener` hears every change. */
  use(listener?: Listener): () => void {
    // Listeners hear changes only; a new one also hears the next read, changed or
    // not: a read made while no one listened (a /snapshot) would otherwise never reach it.
    if (listener) this.emitNext = true
    return this.users.use(listener)
  }

  /** The last state herdr reported, if any (no herdr call). */
  latest(): Snapshot | undefined {
    return this.snap
  }

  /** The cached agent of a pane id or agent name while the watcher runs; undefined otherwise. */
  agent(target: string): AgentInfo | undefined {
    if (!this.live()) return undefined
    return this.cachedAgent(target)
  }

  /**
   * The agent of a pane as the watcher knows it, waiting (at most `maxMs`) for
   * the read in flight when the watcher runs but has nothing live yet (it was
   * just started): a connect then shares that read instead of making its own
   * herdr call. Undefined when the watcher does not run, its read failed, or
   * the pane is not among its agents: the caller asks herdr itself.
   */
  async agentSoon(target: string, maxMs = 2000): Promise<AgentInfo | undefined> {
    const a = this.agent(target)
    if (a || !this.running || this.live()) return a
    await new Promise<void>((res) => {
      const t = setTimeout(done, maxMs)
      const waiters = this.readWaiters
      function done() {
        clearTimeout(t)
        const i = waiters.indexOf(done)
        if (i >= 0) waiters.splice(i, 1)
        res()
      }
      waiters.push(done)
    })
    // A read that just ended counts even before the watcher settled on a mode (socket start-up).
    if (!this.live() && !this.readRecently()) return undefined
    return this.cachedAgent(target)
  }

  /** A pane id or agent name in the last state read, however old. */
  private cachedAgent(target: string): AgentInfo | undefined {
    return this.snap?.agents.find((a) => a.pane_id === target || a.name === target)
  }

  /** A full read succeeded within the last few poll periods, and nothing changed a pane since. */
  private readRecently(): boolean {
    return !!this.snap && !this.lastError && !this.stale && now() - this.snapAt <= 3 * this.o.pollMs
  }

  /** Whether the cache reflects herdr now (a running subscription, or a recent poll). */
  live(): boolean {
    if (!this.snap || this.lastError || this.stale) return false
    if (this._mode === 'socket') return true
    if (this._mode === 'poll') return this.readRecently()
    return false
  }

  /**
   * For /snapshot: the watcher's state while it runs; otherwise one CLI read
   * shared by concurrent callers and reused for pollMs. Rejects with herdr's error.
   */
  async snapshot(): Promise<Snapshot> {
    if (this.live()) return this.snap!
    if (this.stale && this._mode === 'socket' && this.resyncNow) {
      await this.resyncNow()
      if (this.live()) return this.snap!
    }
    if (this.oneShot) return this.oneShot
    if (this._mode === 'stopped' && this.snap && !this.lastError && !this.stale && now() - this.snapAt < this.o.pollMs) return this.snap
    const p = (async () => {
      try {
        const inv = this.invalidations
        const at = ++this.mark
        const s = await this.cliSnapshot()
        return this.acceptRead(s, inv, at) ?? this.snap ?? s
      } catch (e) {
        this.lastError = e as Error
        throw e
      } finally {
        this.oneShot = undefined
      }
    })()
    this.oneShot = p
    return p
  }

  /**
   * The bridge just changed a pane (keys sent): until herdr is read again, the
   * cache is not served as current, and a running poll reads now.
   */
  invalidate(): void {
    this.invalidations++
    this.stale = true
    if (this._mode === 'poll') this.wake?.()
    else if (this._mode === 'socket') void this.resyncNow?.()
  }

  /** Stops everything (server shutdown). */
  close(): void {
    this.users.clear()
    clearTimeout(this.lingering)
    this.lingering = undefined
    this.stop()
  }

  // ---- running ----

  /** The first user came: cancel a lingering stop (still running), else start. */
  private begin(): void {
    if (this.lingering !== undefined) {
      clearTimeout(this.lingering)
      this.lingering = undefined
      if (this.running) return
    }
    this.start()
  }

  /** The last user left: stop now, or after lingerMs. */
  private end(): void {
    if (this.o.lingerMs <= 0) {
      this.stop()
      return
    }
    clearTimeout(this.lingering)
    this.lingering = setTimeout(() => {
      this.lingering = undefined
      this.stop()
    }, this.o.lingerMs)
    ;(this.lingering as { unref?: () => void }).unref?.()
  }

  /** Wakes every caller of agentSoon: a full read ended, or failed, or the watcher stopped. */
  private readSettled(): void {
    for (const w of this.readWaiters.splice(0)) w()
  }

  private start(): void {
    this.running = true
    const gen = ++this.gen
    void this.run(gen)
  }

  private stop(): void {
    this.running = false
    this.gen++
    this._mode = 'stopped'
    this.wake?.()
    this.readSettled()
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((res) => {
      const t = setTimeout(done, ms)
      function done() {
        clearTimeout(t)
        res()
      }
      this.wake = done
    })
  }

  private async run(gen: number): Promise<void> {
    let loggedFallback = false
    while (gen === this.gen) {
      if (this.o.socketPath) {
        const reason = await this.runSocket(gen)
        if (gen !== this.gen) return
        if (!loggedFallback) this.o.log(`herdr watch: socket API unavailable (${reason}); polling the CLI every ${this.o.pollMs} ms`)
        loggedFallback = true
      }
      this._mode = 'poll'
      const until = this.o.socketPath ? now() + this.o.retrySocketMs : Infinity
      while (gen === this.gen && now() < until) {
        try {
          const inv = this.invalidations
          const at = ++this.mark
          this.acceptRead(await this.cliSnapshot(), inv, at)
        } catch (e) {
          this.lastError = e as Error
          this.readSettled()
        }
        if (gen !== this.gen) return
        await this.sleep(this.o.pollMs)
      }
    }
  }

  private async cliSnapshot(): Promise<Snapshot> {
    this.counters.cliSnapshots++
    return this.herdr.snapshot()
  }

  /** One socket request, its result checked against herdr's schema (types.ts). */
  private async request<S extends TSchema>(method: string, params: Record<string, unknown>, reply: S): Promise<Static<S>> {
    return socketRequest(this.o.socketPath!, method, params, this.o.socketTimeoutMs, reply)
  }

  /** Socket mode until the subscription ends; returns why it ended. */
  private async runSocket(gen: number): Promise<string> {
    let sub: Subscription | undefined
    /** resubscribing after herdr said events were lost */
    let recovering: Promise<void> | undefined
    let subscribed = ''
    let resyncing: Promise<void> | undefined
    let resyncAgain = false
    const refreshing = new Map<string, boolean>() // pane → another refresh wanted
    let ended: ((reason: string) => void) | undefined
    const over = new Promise<string>((res) => (ended = res))
    const alive = () => gen === this.gen

    const paneSet = (s: Snapshot) =>
      s.panes
        .map((p) => p.pane_id)
        .sort()
        .join(',')
    /** The most reads a subscription is retried after, while panes keep closing under it. */
    const SUBSCRIBE_TRIES = 4
    const subscribe = async (s: Snapshot) => {
      for (let tries = 1; ; tries++) {
        try {
          return await subscribeTo(s)
        } catch (e) {
          // A pane closed between the read that named it and the subscription: herdr refuses the
          // whole subscription (pane_not_found). Read the panes again and subscribe to those.
          if (!(e instanceof HerdrSocketError && e.code === 'pane_not_found') || tries >= SUBSCRIBE_TRIES || !alive()) throw e
          const inv = this.invalidations
          const at = ++this.mark
          s = (await this.request('session.snapshot', {}, SnapshotReply)).snapshot
          if (!alive()) throw e
          this.acceptRead(s, inv, at)
        }
      }
    }
    const subscribeTo = async (s: Snapshot) => {
      const subs: Record<string, unknown>[] = [
        ...s.panes.map((p) => ({ type: 'pane.agent_status_changed', pane_id: p.pane_id })),
        ...GENERIC_EVENTS.map((type) => ({ type })),
      ]
      this.counters.subscriptions++
      const next = socketSubscribe(
        this.o.socketPath!,
        subs,
        { started: SubscriptionStartedReply, event: HerdrEventSchema },
        onEvent,
        (why, code) => (code === 'events_lost' ? void recover(why) : ended?.(why)),
        this.o.socketTimeoutMs,
      )
      await next.started
      const old = sub
      sub = next
      subscribed = paneSet(s)
      old?.close()
    }
    /** herdr dropped events this subscription should have had: subscribe anew, then read everything. */
    const recover = (why: string) => {
      if (recovering || !alive()) return
      this.o.info(`herdr watch: ${why}; subscribing again`)
      // until the read after the new subscription, the cache may lack what was lost
      this.invalidations++
      this.stale = true
      recovering = (async () => {
        try {
          await subscribe(this.snap ?? { agents: [], panes: [], tabs: [], workspaces: [], protocol: 0, version: '' })
          if (alive()) await resync()
        } catch (e) {
          ended?.((e as Error).message)
        }
      })().finally(() => (recovering = undefined))
    }
    const resync = async (): Promise<void> => {
      if (resyncing) {
        resyncAgain = true
        return resyncing
      }
      resyncing = (async () => {
        do {
          resyncAgain = false
          try {
            const inv = this.invalidations
            const at = ++this.mark
            const s = await this.request('session.snapshot', {}, SnapshotReply)
            if (!alive()) return
            this.acceptRead(s.snapshot, inv, at)
            // A pane appeared or went: status subscriptions are per pane, so subscribe anew,
            // then read again (a change before the subscription started pushed no event).
            if (paneSet(s.snapshot) !== subscribed) {
              await subscribe(s.snapshot)
              resyncAgain = true
            }
          } catch (e) {
            ended?.((e as Error).message)
            return
          }
        } while (resyncAgain && alive())
      })().finally(() => (resyncing = undefined))
      return resyncing
    }
    const refreshAgent = async (pane: string, fromEvent: PaneStatusChanged['data']) => {
      if (refreshing.has(pane)) return void refreshing.set(pane, true)
      refreshing.set(pane, false)
      try {
        do {
          refreshing.set(pane, false)
          const at = ++this.mark
          try {
            const r = await this.request('agent.get', { target: pane }, AgentReply)
            if (!alive()) return
            this.patchAgent(pane, r.agent, at)
          } catch {
            if (!alive()) return
            // The agent went away (or herdr hiccuped): take the status from the event, then ask for everything.
            this.patchStatus(pane, fromEvent, at)
            void resync()
          }
        } while (refreshing.get(pane) && alive())
      } finally {
        refreshing.delete(pane)
      }
    }
    function onEvent(e: HerdrEvent) {
      if (!alive()) return
      watch.counters.events++
      // A status event fitting its schema refreshes its pane; any other event, or one of that name that does not fit, reads everything.
      if (Value.Check(PaneStatusChangedSchema, e)) void refreshAgent(e.data.pane_id, e.data)
      else void resync()
    }
    const watch = this

    try {
      const pong = await this.request('ping', {}, PingReply)
      if (pong.type !== 'pong') return 'no pong'
      // The panes to subscribe to (status subscriptions are per pane): a read like any other.
      const inv = this.invalidations
      const at = ++this.mark
      const s = await this.request('session.snapshot', {}, SnapshotReply)
      if (!alive()) return 'stopped'
      this.acceptRead(s.snapshot, inv, at)
      await subscribe(s.snapshot)
      // herdr 0.9 replays nothing: what changed before the subscription started is only in a
      // read taken after it. Socket mode (a live cache) begins once that read is in.
      if (alive()) await resync()
    } catch (e) {
      sub?.close()
      return (e as Error).message
    }
    if (!alive()) {
      sub?.close()
      return 'stopped'
    }
    this._mode = 'socket'
    this.resyncNow = resync
    this.o.info(`herdr watch: subscribed to herdr's socket API (${this.o.socketPath})`)
    const resyncTimer = setInterval(() => void resync(), this.o.resyncMs)
    const stopCheck = setInterval(() => {
      if (!alive()) ended?.('stopped')
    }, 200)
    const reason = await over
    await recovering
    this.resyncNow = undefined
    clearInterval(resyncTimer)
    clearInterval(stopCheck)
    sub?.close()
    if (alive()) this._mode = 'poll'
    return reason
  }

  // ---- the cache ----

  /**
   * A full read asked for at mark `at`: dropped when a newer read is already in (undefined);
   * else the events' patches newer than it go back on top, and the result is the cache.
   */
  private acceptRead(s: Snapshot, readFrom: number, at: number): Snapshot | undefined {
    if (at < this.readMark) return undefined
    this.readMark = at
    let merged = s
    for (const [pane, p] of this.patches) {
      if (p.at < at) this.patches.delete(pane)
      else merged = p.apply(merged)
    }
    this.accept(merged, readFrom)
    return merged
  }

  /** An event's news of one pane, taken at mark `at`: kept to re-apply over a read asked for before it. */
  private patch(pane: string, at: number, apply: (s: Snapshot) => Snapshot): void {
    // older than the read the cache holds: that read already has it, or something newer
    if (!this.snap || at < this.readMark) return
    const last = this.patches.get(pane)
    if (last && last.at > at) return
    this.patches.set(pane, { at, apply })
    this.accept(apply(this.snap), undefined)
  }

  /** `readFrom`: the invalidation count when a full read started (undefined: a patch from an event). */
  private accept(s: Snapshot, readFrom: number | undefined): void {
    this.lastError = undefined
    if (readFrom !== undefined) {
      this.snapAt = now()
      if (readFrom === this.invalidations) this.stale = false
    }
    if (readFrom !== undefined) queueMicrotask(() => this.readSettled()) // after the cache below is in place
    const key = canonical(s)
    if (key === this.snapKey && !this.emitNext) return
    this.emitNext = false
    this.snap = s
    this.snapKey = key
    this.emit()
  }

  private patchAgent(pane: string, agent: AgentInfo, at: number): void {
    this.patch(pane, at, (s) => {
      // a pane the read says is gone stays gone
      if (!s.panes.some((p) => p.pane_id === pane)) return s
      const agents = s.agents.filter((a) => a.pane_id !== pane)
      const i = s.agents.findIndex((a) => a.pane_id === pane)
      agents.splice(i < 0 ? agents.length : i, 0, agent)
      const panes = s.panes.map((p) => (p.pane_id === pane ? { ...p, agent_status: agent.agent_status, agent: agent.agent ?? p.agent } : p))
      return { ...s, agents, panes }
    })
  }

  private patchStatus(pane: string, data: PaneStatusChanged['data'], at: number): void {
    const status = data.agent_status
    if (status === undefined) return
    this.patch(pane, at, (s) => ({
      ...s,
      agents: s.agents.map((a) => (a.pane_id === pane ? { ...a, agent_status: status } : a)),
      panes: s.panes.map((p) => (p.pane_id === pane ? { ...p, agent_status: status } : p)),
    }))
  }

  private emit(): void {
    const s = this.snap!
    for (const l of [...this.users.all]) {
      try {
        l(s)
      } catch (e) {
        this.o.log(`herdr watch listener: ${(e as Error).message}`)
      }
    }
  }
}
