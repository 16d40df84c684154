// Which pane changes become notifications: one per pane per change of status
// into a status a subscription asked for (a blocked pane on a new dialog counts
// as a change), drawn from the /events row (blocked rows carry their card).
// When a blocked pane moves on (answered from the phone, the terminal or
// anywhere), subscribers of `blocked` get a follow-up with the same pane, so the
// phone replaces the question with "answered". It keeps the event hub running
// only while there is a subscription.
import type { EventHub, EventRow, PaneEvent } from '../events/hub'
import type { PushPayload, PushSender } from './sender'
import type { PushEvent, PushStore } from './store'

const STATUS_WORDS: Record<string, string> = {
  blocked: 'needs your answer',
  done: 'is done',
  idle: 'is idle',
  working: 'is working',
}

function nameOf(row: EventRow): string {
  return row.agent_name ?? row.label ?? row.title ?? row.pane_id
}

/** The notification for a row that changed into its status. */
export function payloadFor(row: EventRow, seq: number): PushPayload {
  const kind = row.agent_kind ?? 'agent'
  const p: PushPayload = {
    pane_id: row.pane_id,
    agent_kind: kind,
    agent_status: row.agent_status,
    headline: row.card?.headline || row.title || `${kind} ${STATUS_WORDS[row.agent_status] ?? row.agent_status}`,
    seq,
  }
  const b = row.card?.blocked
  if (row.agent_status === 'blocked' && b) {
    if (b.question) p.question = b.question
    if (b.fingerprint) p.fingerprint = b.fingerprint
  }
  return p
}

/** The follow-up for a blocked pane that moved on. */
export function answeredPayload(row: EventRow, seq: number): PushPayload {
  return {
    pane_id: row.pane_id,
    agent_kind: row.agent_kind ?? 'agent',
    agent_status: row.agent_status,
    headline: `Answered — ${nameOf(row)} ${STATUS_WORDS[row.agent_status] ?? `is ${row.agent_status}`}`,
    seq,
  }
}

export class PushNotifier {
  private release: (() => void) | undefined

  constructor(
    private readonly hub: EventHub,
    private readonly store: PushStore,
    private readonly sender: PushSender,
  ) {
    this.sync()
  }

  /** Runs the hub while there is a subscription; call after adding or deleting one. */
  sync(): void {
    const want = this.store.count() > 0
    if (want && !this.release) this.release = this.hub.use((e, before) => this.onEvent(e, before))
    else if (!want && this.release) {
      this.release()
      this.release = undefined
    }
  }

  close(): void {
    this.release?.()
    this.release = undefined
  }

  private onEvent(e: PaneEvent, before: EventRow | undefined): void {
    if (e.type !== 'pane') return
    const row = e.pane
    if (!row.agent_kind) return // a plain shell
    // A pane that just appeared already in a status is not a change (the bridge restarted, a pane opened).
    if (!before) return
    const status = row.agent_status
    const changed = status !== before.agent_status || (status === 'blocked' && row.state_change_seq !== before.state_change_seq)
    if (!changed) return
    const answered = before.agent_status === 'blocked' && status !== 'blocked'
    for (const sub of this.store.list()) {
      if (sub.events.includes(status as PushEvent)) this.sender.send(sub, payloadFor(row, e.seq))
      else if (answered && sub.events.includes('blocked')) this.sender.send(sub, answeredPayload(row, e.seq))
    }
  }
}
