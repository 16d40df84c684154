// The opencode Timeline: a session's normalized entries cached in memory (opencode
// has no append-only file to index), grown by a poll that reads the newest
// messages back to the tail watermark and appends what tailStep says is new.
// One per (backend, session), shared by every socket and reference counted; the
// poll stops on the last release, and the cache stays warm for a while so a
// reconnect costs one tail poll instead of a full reload.
import { placed, type Entry } from '../../entry'
import type { Timeline } from '../../timeline'
import { opencodeMessageId } from './normalize'
import { isObj } from '../../tool-summary'
import { addOpencodeUsage } from '../../../usage/kinds/opencode'
import { UsageTally } from '../../../usage/tally'
import { emptyTailState, tailStep, type OpencodeTailState } from './tail'

/** Where a session's messages come from (the service or the store). */
export interface MessageFeed {
  /** The whole session, oldest first. */
  all(): Promise<unknown[]>
  /** Newest first, back to and including the message `stopAtId` (all of them when undefined or absent). */
  newestUntil(stopAtId: string | undefined): Promise<unknown[]>
  /** A value that changes when the session may have (undefined: cannot tell; always poll). */
  version?(): number | undefined
}

export interface OpencodeTimelineOptions {
  /** tail poll (contract: 250 ms) */
  pollMs?: number
  log?: (m: string) => void
}

/** A Timeline over one opencode session. */
export interface OpencodeTimeline extends Timeline {
  onReset(listener: () => void): () => void
  /** the session's usage, from the assistant messages the load and the tail polls have seen */
  usage(): UsageTally
}

/** What a registry of opencode sessions counts, for tests and measurements. */
export type OpencodeCounters = ReturnType<typeof newOpencodeCounters>

const newOpencodeCounters = () => ({
  /** full loads of a session (cold acquire or rebuild after a rewrite) */
  loads: 0,
  /** polls skipped because the store said nothing changed */
  skipped: 0,
  /** polls running now */
  activePollers: 0,
})

class SessionCache {
  entries: Entry[] = []
  state: OpencodeTailState = emptyTailState
  refs = 0
  evictTimer: ReturnType<typeof setTimeout> | null = null
  private timer: ReturnType<typeof setInterval> | null = null
  private running: Promise<void> | null = null
  private lastVersion: number | undefined = undefined
  private lastError = ''
  readonly grow = new Set<(entries: Entry[]) => void>()
  /**
   * The assistant messages' usage by message id, in session order, folded from
   * what the load and each tail poll read (no read of its own): a message read
   * again (still streaming) replaces its figures in place.
   */
  private readonly turns = new Map<string, unknown>()
  readonly reset = new Set<() => void>()

  constructor(
    readonly key: string,
    private readonly feed: MessageFeed,
    private readonly pollMs: number,
    private readonly log: (m: string) => void,
    private readonly counters: OpencodeCounters,
  ) {}

  /** Replaces the cache with the whole session, as the backlog load. */
  async load(): Promise<void> {
    this.counters.loads++
    const v = this.feed.version?.()
    const all = await this.feed.all()
    const r = tailStep(emptyTailState, [...all].reverse())
    this.turns.clear()
    this.noteTurns(all)
    this.entries = r.newDrafts.map((d, i) => placed(d, i + 1))
    this.state = r.state
    this.lastVersion = v
  }

  /** One tail poll; serialized (a poll that overlaps the running one joins it). */
  poll(): Promise<void> {
    if (!this.running) {
      this.running = this.pollOnce().finally(() => {
        this.running = null
      })
    }
    return this.running
  }

  private async pollOnce(): Promise<void> {
    const v = this.feed.version?.()
    if (v !== undefined && v === this.lastVersion) {
      this.counters.skipped++
      return
    }
    try {
      const desc = await this.feed.newestUntil(this.state.watermark)
      const r = tailStep(this.state, desc)
      if (!r.reachedWatermark) {
        // The whole session was read and the watermark message is gone: history was
        // rewritten (revert, undo). Every seq after the change is void: reload, reset.
        await this.load()
        for (const l of [...this.reset]) l()
        return
      }
      this.state = r.state
      this.lastVersion = v
      this.noteTurns([...desc].reverse())
      if (!r.newDrafts.length) return
      const base = this.entries.length
      const added = r.newDrafts.map((d, i) => placed(d, base + i + 1))
      this.entries.push(...added)
      for (const l of [...this.grow]) l(added)
      this.lastError = ''
    } catch (e) {
      // Transient (the service restarting, a busy database): keep polling, log once per kind.
      const msg = (e as Error).message
      if (msg !== this.lastError) this.log(`opencode tail ${this.key}: ${msg}`)
      this.lastError = msg
    }
  }

  /** Keeps what usage needs of each assistant message (its info, not its parts), oldest first. */
  private noteTurns(oldestFirst: unknown[]): void {
    for (const m of oldestFirst) {
      const id = opencodeMessageId(m)
      const info = isObj(m) && isObj(m.info) ? m.info : m
      if (id === undefined || !isObj(info) || (info.role ?? info.type) !== 'assistant') continue
      this.turns.set(id, { ...info, parts: undefined, content: undefined })
    }
  }

  usage(): UsageTally {
    const tally = new UsageTally()
    for (const m of this.turns.values()) addOpencodeUsage(tally, m)
    return tally
  }

  startPolling(): void {
    if (this.timer || this.pollMs <= 0) return
    this.counters.activePollers++
    this.timer = setInterval(() => void this.poll(), this.pollMs)
  }

  stopPolling(): void {
    if (!this.timer) return
    clearInterval(this.timer)
    this.timer = null
    this.counters.activePollers--
  }
}

/**
 * The opencode sessions of one app: one SessionCache per session, shared by
 * every socket on it and reference counted; a session nobody holds stops
 * polling and stays warm for `keepAliveMs`. Owned by its source: two apps
 * share nothing.
 */
export class OpencodeSessions {
  readonly counters: OpencodeCounters = newOpencodeCounters()
  private readonly caches = new Map<string, SessionCache>()
  private readonly loading = new Map<string, Promise<SessionCache>>()

  constructor(private readonly settings: { keepAliveMs: number } = { keepAliveMs: 60_000 }) {}

  /**
   * Opens (or joins) the shared timeline of one session. A cold acquire loads the
   * whole session; a warm one (the cache was kept) catches up with one tail poll.
   * Rejects when the first load fails (the caller tells "unreachable" from "failed").
   */
  async acquire(key: string, makeFeed: () => MessageFeed, opts: OpencodeTimelineOptions = {}): Promise<OpencodeTimeline> {
    const { caches, loading } = this
    let cache = caches.get(key)
    if (!cache) {
      let pending = loading.get(key)
      if (!pending) {
        const fresh = new SessionCache(key, makeFeed(), opts.pollMs ?? 250, opts.log ?? ((m) => console.warn(m)), this.counters)
        pending = fresh.load().then(() => fresh)
        loading.set(key, pending)
        pending.then(
          (c) => {
            if (loading.get(key) === pending) loading.delete(key)
            caches.set(key, c)
          },
          () => {
            if (loading.get(key) === pending) loading.delete(key)
          },
        )
      }
      cache = await pending
      caches.set(key, cache)
    } else if (cache.refs === 0) {
      // Warm: the cache outlived its last socket; bring it up to date before serving.
      await cache.poll()
    }
    if (cache.evictTimer) {
      clearTimeout(cache.evictTimer)
      cache.evictTimer = null
    }
    cache.refs++
    cache.startPolling()
    return handleOn(cache, (c) => this.release(c))
  }

  /** Forgets every released session now. */
  drop(): void {
    for (const [k, c] of [...this.caches]) {
      if (c.refs > 0) continue
      if (c.evictTimer) clearTimeout(c.evictTimer)
      this.caches.delete(k)
    }
  }

  /** What the registry holds now, for tests and measurements (what it did is in `counters`). */
  holding() {
    let held = 0
    let cached = 0
    for (const c of this.caches.values()) c.refs > 0 ? held++ : cached++
    return { heldSessions: held, cachedSessions: cached }
  }

  private release(cache: SessionCache): void {
    if (--cache.refs > 0) return
    cache.stopPolling()
    const evict = () => {
      if (cache.refs === 0 && this.caches.get(cache.key) === cache) this.caches.delete(cache.key)
    }
    if (this.settings.keepAliveMs <= 0) {
      evict()
      return
    }
    cache.evictTimer = setTimeout(evict, this.settings.keepAliveMs)
    ;(cache.evictTimer as { unref?: () => void }).unref?.()
  }
}

function handleOn(cache: SessionCache, released: (cache: SessionCache) => void): OpencodeTimeline {
  const subs = new Set<() => void>()
  let done = false
  const subscribe = <T>(set: Set<T>, l: T): (() => void) => {
    if (done) return () => {}
    set.add(l)
    const off = () => {
      set.delete(l)
      subs.delete(off)
    }
    subs.add(off)
    return off
  }
  return {
    total: () => cache.entries.length,
    read: async (fromSeq, toSeq) => {
      if (done) return []
      const from = Math.max(1, Math.floor(fromSeq))
      const to = Math.min(cache.entries.length, Math.floor(toSeq))
      return to < from ? [] : cache.entries.slice(from - 1, to)
    },
    onGrow: (l) => subscribe(cache.grow, l),
    onReset: (l) => subscribe(cache.reset, l),
    usage: () => cache.usage(),
    release: () => {
      if (done) return
      done = true
      for (const off of [...subs]) off()
      released(cache)
    },
  }
}

/** Newest first, growing the window until `stopAtId` is in it or the session is exhausted. */
export async function newestUntilByLimit(
  readNewest: (limit: number | undefined) => Promise<unknown[]>,
  stopAtId: string | undefined,
  firstLimit = 8,
): Promise<unknown[]> {
  if (stopAtId === undefined) return [...(await readNewest(undefined))].reverse()
  for (let limit = firstLimit; ; limit *= 4) {
    const asc = await readNewest(limit)
    const desc = [...asc].reverse()
    if (asc.length < limit || desc.some((m) => opencodeMessageId(m) === stopAtId)) return desc
  }
}
