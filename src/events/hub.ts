// Every pane's state as a numbered stream of events (WS /events, Web Push).
// It reads the one herdr watcher, turns each snapshot into /snapshot rows and
// diffs them against the last: a changed or new row is a `pane` event, a gone
// one `pane_removed`. `seq` is per epoch (one per bridge process), +1 per event,
// gap-free; the last 256 events are kept for resume. A row that became blocked
// carries the parsed card (one screen read per blocked transition, per pane, not
// per socket). It runs while someone listens (an /events socket, push).
import { randomBytes } from 'node:crypto'
import type { Card } from '../card/card'
import { Listeners } from '../server/listeners'
import type { HerdrWatch } from '../herdr/watch'
import type { AgentInfo, Snapshot } from '../herdr/types'
import { snapshotRows, type SessionFacts, type SnapshotRow } from './rows'

export const RING_SIZE = 256

export type EventRow = SnapshotRow & { card?: Card }
export type PaneEvent = { type: 'pane'; seq: number; pane: EventRow } | { type: 'pane_removed'; seq: number; pane_id: string }
/** A remote machine went offline, came back, needs attention, or was removed (src/machines). */
export type MachineEvent = { type: 'machine'; seq: number; machine: Record<string, unknown> }
export type HubEvent = PaneEvent | MachineEvent
/** An event before the hub numbers it. */
export type UnnumberedEvent =
  | { type: 'pane'; pane: EventRow }
  | { type: 'pane_removed'; pane_id: string }
  | { type: 'machine'; machine: Record<string, unknown> }

/** What a hub listener hears: the event, and the row before it (push decides on transitions). */
export type HubListener = (e: HubEvent, before: EventRow | undefined) => void

/** Where the rows of other machines come from (src/machines/registry.ts): merged after this machine's. */
export interface RemoteRows {
  rows(): EventRow[]
}

export interface Resume {
  resume: 'ok' | 'gap' | 'new'
  /** the events after `since` (resume ok) */
  events: HubEvent[]
}

export interface EventHubOptions {
  /** counts a session's subagents for its row (same as /snapshot) */
  facts?: SessionFacts
  /** the card of an agent that became blocked; undefined when it cannot be read */
  cardFor: (agent: AgentInfo) => Promise<Card | undefined>
  /** subagent counts change without herdr noticing: rows are re-read this often */
  rosterMs: number
  log: (m: string) => void
}

const rowKey = (r: EventRow): string => {
  const { card: _card, ...rest } = r
  return JSON.stringify(
    Object.keys(rest)
      .sort()
      .map((k) => [k, (rest as Record<string, unknown>)[k]]),
  )
}

export class EventHub {
  readonly epoch = `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`
  private _seq = 0
  private ring: HubEvent[] = []
  private remote: RemoteRows | undefined
  private rows: EventRow[] = []
  private baseline = false
  private readyWaiters: (() => void)[] = []
  private readonly users = new Listeners<HubListener>(
    () => this.start(),
    () => this.stop(),
  )
  private releaseWatch: (() => void) | undefined
  private rosterTimer: ReturnType<typeof setInterval> | undefined
  private busy = false
  private pending: Snapshot | undefined

  constructor(
    private readonly watch: HerdrWatch,
    private readonly o: EventHubOptions,
  ) {}

  get seq(): number {
    return this._seq
  }

  /** Has a first list of panes (hello can be sent). */
  get ready(): boolean {
    return this.baseline
  }

  whenReady(): Promise<void> {
    if (this.baseline) return Promise.resolve()
    return new Promise((res) => this.readyWaiters.push(res))
  }

  /** The current rows, in herdr's order; blocked rows with their card; then other machines' rows. */
  current(): EventRow[] {
    const more = this.remote?.rows()
    return more?.length ? [...this.rows, ...more] : this.rows
  }

  /** Merges other machines' rows into current() (their events come through publish). */
  mergeRemote(remote: RemoteRows): void {
    this.remote = remote
  }

  /**
   * An event from elsewhere (another machine's bridge) in this hub's one sequence: numbered,
   * kept for resume and heard by every listener at once, in the same synchronous step.
   */
  publish(e: UnnumberedEvent, before?: EventRow): void {
    this.emit({ ...e, seq: ++this._seq } as HubEvent, before)
  }

  private emit(e: HubEvent, before: EventRow | undefined): void {
    this.ring.push(e)
    if (this.ring.length > RING_SIZE) this.ring.shift()
    for (const l of [...this.users.all]) {
      try {
        l(e, before)
      } catch (err) {
        this.o.log(`events listener: ${(err as Error).message}`)
      }
    }
  }

  /**
   * Where a client resuming from `since` stands: `ok` with the events after it,
   * `gap` when the ring no longer holds them, `new` for another epoch or none.
   */
  resumeFrom(since: { epoch: string; seq: number } | undefined): Resume {
    if (!since || since.epoch !== this.epoch) return { resume: 'new', events: [] }
    if (since.seq > this._seq) return { resume: 'gap', events: [] }
    const oldest = this.ring.length ? this.ring[0].seq : this._seq + 1
    if (since.seq < oldest - 1) return { resume: 'gap', events: [] }
    return { resume: 'ok', events: this.ring.filter((e) => e.seq > since.seq) }
  }

  /** Listens (and keeps the hub running) until the returned function is called. */
  use(listener?: HubListener): () => void {
    return this.users.use(listener)
  }

  close(): void {
    this.users.clear()
    this.stop()
  }

  private start(): void {
    this.releaseWatch = this.watch.use((s) => this.offer(s))
    const now = this.watch.latest()
    if (now && this.watch.live()) this.offer(now)
    this.rosterTimer = setInterval(() => {
      const s = this.watch.latest()
      if (s && this.baseline) this.offer(s)
    }, this.o.rosterMs)
  }

  private stop(): void {
    this.releaseWatch?.()
    this.releaseWatch = undefined
    clearInterval(this.rosterTimer)
  }

  /** The latest snapshot wins: one diff at a time, skipping the ones a slow diff overtook. */
  private offer(s: Snapshot): void {
    this.pending = s
    if (this.busy) return
    this.busy = true
    void (async () => {
      try {
        while (this.pending) {
          const next = this.pending
          this.pending = undefined
          try {
            await this.diff(next)
          } catch (e) {
            this.o.log(`events: ${(e as Error).message}`)
          }
        }
      } finally {
        this.busy = false
      }
    })()
  }

  private async diff(s: Snapshot): Promise<void> {
    const rows: EventRow[] = await snapshotRows(s, this.o.facts, this.o.log)
    const before = new Map(this.rows.map((r) => [r.pane_id, r]))
    const agents = new Map(s.agents.map((a) => [a.pane_id, a]))
    const out: { row?: EventRow; removed?: string; prev?: EventRow }[] = []
    for (const row of rows) {
      const prev = before.get(row.pane_id)
      if (row.agent_status === 'blocked') {
        const becameBlocked = prev?.agent_status !== 'blocked' || prev.state_change_seq !== row.state_change_seq
        if (becameBlocked) {
          const agent = agents.get(row.pane_id)
          const card = agent ? await this.o.cardFor(agent).catch(() => undefined) : undefined
          if (card) row.card = card
        } else if (prev?.card) row.card = prev.card // keep the card while it stays blocked on the same dialog
      }
      if (!prev || rowKey(prev) !== rowKey(row) || (row.card && !prev.card)) out.push({ row, prev })
    }
    const now = new Set(rows.map((r) => r.pane_id))
    for (const r of this.rows) if (!now.has(r.pane_id)) out.push({ removed: r.pane_id, prev: r })
    this.rows = rows
    if (!this.baseline) {
      // The first list is the baseline: it goes out in hellos, not as events.
      this.baseline = true
      for (const w of this.readyWaiters.splice(0)) w()
      return
    }
    for (const o of out) {
      const e: PaneEvent = o.row ? { type: 'pane', seq: ++this._seq, pane: o.row } : { type: 'pane_removed', seq: ++this._seq, pane_id: o.removed! }
      this.emit(e, o.prev)
    }
  }
}
