// Which pane changes become notifications (docs/bridge.md "Web Push" and
// "Notifications that act"), per subscription:
// - one per pane per change of status into a status the subscription asked for (a
//   blocked pane on a new dialog counts as a change), drawn from the /events row
//   (blocked rows carry their card, so the payload has the question and options);
// - when a blocked pane the device was told about moves on (answered at the desk,
//   from the phone, or the pane closed), a `resolved` message that closes it;
// - several panes turning blocked within `coalesceMs` (5 s): the first is shown
//   at once, the ones after it are held, and at the window's end one group message
//   ("3 agents need you") stands for all that still wait;
// - nothing for a device with a window of the app on screen (Presence): its list
//   shows the same, and the app closes notifications it can see are stale.
// It keeps the event hub running only while there is a subscription.
import type { EventHub, EventRow, PaneEvent } from '../events/hub'
import { groupPayload, resolvedPayload, statusPayload, type StatusPayload } from './payloads'
import type { Presence } from './presence'
import type { PushSender } from './sender'
import type { PushEvent, PushStore, PushSubscriptionRecord } from './store'

/** Spec: panes turning blocked within 5 s make one notification. */
export const COALESCE_MS = 5000

export interface PushNotifierOptions {
  presence?: Presence
  coalesceMs?: number
}

/** One subscription's view: which panes its phone shows as blocked, and the open coalescing window. */
interface Shown {
  /** panes whose blocked notification (own or in the group) the phone shows */
  blocked: Map<string, StatusPayload>
  /** the coalescing window: panes held back until it ends */
  window?: { timer: ReturnType<typeof setTimeout>; held: Map<string, StatusPayload> }
}

export class PushNotifier {
  private release: (() => void) | undefined
  private readonly shown = new Map<string, Shown>()
  private readonly coalesceMs: number

  constructor(
    private readonly hub: EventHub,
    private readonly store: PushStore,
    private readonly sender: PushSender,
    private readonly o: PushNotifierOptions = {},
  ) {
    this.coalesceMs = o.coalesceMs ?? COALESCE_MS
    this.sync()
  }

  /** Runs the hub while there is a subscription; call after adding or deleting one. */
  sync(): void {
    const want = this.store.count() > 0
    if (want && !this.release) this.release = this.hub.use((e, before) => e.type !== 'machine' && this.onEvent(e, before))
    else if (!want && this.release) {
      this.release()
      this.release = undefined
    }
    const live = new Set(this.store.list().map((s) => s.id))
    for (const [id, s] of this.shown) if (!live.has(id)) this.forget(id, s)
  }

  close(): void {
    this.release?.()
    this.release = undefined
    for (const [id, s] of this.shown) this.forget(id, s)
  }

  private forget(id: string, s: Shown): void {
    if (s.window) clearTimeout(s.window.timer)
    this.shown.delete(id)
  }

  private stateOf(id: string): Shown {
    let s = this.shown.get(id)
    if (!s) this.shown.set(id, (s = { blocked: new Map() }))
    return s
  }

  private quiet(sub: PushSubscriptionRecord): boolean {
    return this.o.presence?.watching(sub.device_id) ?? false
  }

  private onEvent(e: PaneEvent, before: EventRow | undefined): void {
    if (e.type === 'pane_removed') {
      for (const sub of this.store.list()) this.moveOn(sub, { pane_id: e.pane_id, state_change_seq: before?.state_change_seq }, e.seq)
      return
    }
    const row = e.pane
    if (!row.agent_kind) return // a plain shell
    // A pane that just appeared already in a status is not a change (the bridge restarted, a pane opened).
    if (!before) return
    const status = row.agent_status
    const changed = status !== before.agent_status || (status === 'blocked' && row.state_change_seq !== before.state_change_seq)
    if (!changed) return
    for (const sub of this.store.list()) {
      if (status === 'blocked') {
        if (sub.events.includes('blocked')) this.blocked(sub, statusPayload(row, e.seq))
        continue
      }
      if (sub.events.includes(status as PushEvent)) {
        // a new status of the pane replaces its notification (same tag); it no longer waits
        this.stateOf(sub.id).blocked.delete(row.pane_id)
        this.stateOf(sub.id).window?.held.delete(row.pane_id)
        if (!this.quiet(sub)) this.sender.send(sub, statusPayload(row, e.seq))
      } else this.moveOn(sub, row, e.seq)
    }
  }

  /** A pane turned blocked (or showed a new dialog): shown at once, or held for the window's group. */
  private blocked(sub: PushSubscriptionRecord, p: StatusPayload): void {
    const s = this.stateOf(sub.id)
    if (this.quiet(sub)) {
      // the app is on screen and shows it; a notification left from before is stale, and the app closes it
      s.blocked.delete(p.pane_id)
      s.window?.held.delete(p.pane_id)
      return
    }
    if (s.window && !s.blocked.has(p.pane_id)) {
      s.window.held.set(p.pane_id, p)
      return
    }
    // the window's first, or a pane already shown moving to a new dialog: its own notification replaces the old
    s.blocked.set(p.pane_id, p)
    this.sender.send(sub, p)
    if (!s.window) s.window = { held: new Map(), timer: setTimeout(() => this.endWindow(sub.id), this.coalesceMs) }
  }

  /** A blocked pane moved on: the phone closes its notification (if it was shown one). */
  private moveOn(sub: PushSubscriptionRecord, row: { pane_id: string; state_change_seq?: number | null }, eventSeq: number): void {
    const s = this.shown.get(sub.id)
    if (!s) return
    s.window?.held.delete(row.pane_id)
    if (!s.blocked.delete(row.pane_id)) return
    if (!this.quiet(sub)) this.sender.send(sub, resolvedPayload(row, eventSeq))
  }

  /** The window ends: the panes held in it, with the ones shown that still wait, become one notification. */
  private endWindow(subId: string): void {
    const s = this.shown.get(subId)
    const sub = this.store.get(subId)
    if (!s?.window) return
    const held = [...s.window.held.values()]
    s.window = undefined
    if (!sub || held.length === 0) return
    if (this.quiet(sub)) return
    for (const p of held) s.blocked.set(p.pane_id, p)
    const members = [...s.blocked.values()]
    const eventSeq = Math.max(...held.map((p) => p.event_seq))
    // one still waiting (the first was answered meanwhile): its own notification, buttons and all
    this.sender.send(sub, members.length === 1 ? members[0]! : groupPayload(members, eventSeq))
    // what comes within the next window joins the group again
    s.window = { held: new Map(), timer: setTimeout(() => this.endWindow(subId), this.coalesceMs) }
  }
}
