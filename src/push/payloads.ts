// What a Web Push message carries (docs/bridge.md "Notifications that act"), one
// schema per shape: the sender encrypts these, the service worker (web/public/sw.js)
// reads them, the tests check every message against them. Pure: rows in, payloads out.
import { t, type Static } from 'elysia'
import type { EventRow } from '../events/hub'

/** How many of a dialog's options a payload carries (the worker offers at most two as buttons). */
export const PAYLOAD_OPTIONS = 4

export const PushOptionSchema = t.Object({
  position: t.Integer({ minimum: 1, description: "1-based position in the card's options: what POST /answer's `choose` takes" }),
  label: t.String(),
  free_text: t.Optional(t.Literal(true, { description: 'choosing it asks for typed text: not offered as a notification button' })),
})

export const StatusPayloadSchema = t.Object(
  {
    pane_id: t.String(),
    agent_kind: t.String(),
    agent_status: t.String(),
    headline: t.String(),
    question: t.Optional(t.String()),
    fingerprint: t.Optional(t.String({ description: "the dialog's fingerprint, for POST /answer and /approve" })),
    options: t.Optional(t.Array(PushOptionSchema, { maxItems: PAYLOAD_OPTIONS, description: 'a blocked payload: the first four options' })),
    multi_select: t.Optional(t.Literal(true)),
    name: t.String({ description: 'what the pane is called (agent name, label or title): the notification says "<name> needs you"' }),
    seq: t.Integer({ minimum: 0, description: "the pane's state_change_seq: what POST /approve and /answer take" }),
    event_seq: t.Integer({ minimum: 0, description: 'the WS /events sequence number of the change' }),
  },
  { description: 'a pane changed into a status the subscription asked for; the notification is tagged with pane_id' },
)

export const ResolvedPayloadSchema = t.Object(
  {
    pane_id: t.String(),
    resolved: t.Literal(true),
    seq: t.Integer({ minimum: 0, description: "the pane's state_change_seq now" }),
    event_seq: t.Integer({ minimum: 0 }),
  },
  { description: "a blocked pane moved on (answered anywhere): the worker closes that pane's notification and shows none" },
)

export const GroupPayloadSchema = t.Object(
  {
    group: t.Literal(true),
    agent_status: t.Literal('blocked'),
    count: t.Integer({ minimum: 2 }),
    panes: t.Array(t.Object({ pane_id: t.String(), agent_kind: t.String(), name: t.String(), question: t.Optional(t.String()) }), { minItems: 2 }),
    event_seq: t.Integer({ minimum: 0 }),
  },
  { description: 'several panes turned blocked within the coalescing window: one notification ("3 agents need you") that opens the list' },
)

export type StatusPayload = Static<typeof StatusPayloadSchema>
export type ResolvedPayload = Static<typeof ResolvedPayloadSchema>
export type GroupPayload = Static<typeof GroupPayloadSchema>
export type PushPayload = StatusPayload | ResolvedPayload | GroupPayload

/** The notification a payload stands for on the phone: a pane's own, or the one group notification. */
export const GROUP_TAG = 'gothalo:blocked'
export const tagOf = (p: PushPayload): string => ('group' in p ? GROUP_TAG : p.pane_id)

const STATUS_WORDS: Record<string, string> = {
  blocked: 'needs your answer',
  done: 'is done',
  idle: 'is idle',
  working: 'is working',
}

/** What the phone calls a pane: its label, else "claude in proj" (the workspace), else herdr's names; another machine's pane says which ("… on laptop"). */
export function nameOf(row: EventRow): string {
  const on = row.machine ? ` on ${row.machine}` : ''
  if (row.label) return row.label + on
  if (row.agent_kind && row.workspace_label) return `${row.agent_kind} in ${row.workspace_label}${on}`
  return (row.agent_name ?? row.title ?? row.pane_id) + on
}

/** The notification for a row that changed into its status; `eventSeq` is the /events number of the change. */
export function statusPayload(row: EventRow, eventSeq: number): StatusPayload {
  const kind = row.agent_kind ?? 'agent'
  const p: StatusPayload = {
    pane_id: row.pane_id,
    agent_kind: kind,
    agent_status: row.agent_status,
    headline: row.card?.headline || row.title || `${kind} ${STATUS_WORDS[row.agent_status] ?? row.agent_status}`,
    name: nameOf(row),
    seq: row.state_change_seq ?? 0,
    event_seq: eventSeq,
  }
  const b = row.card?.blocked
  if (row.agent_status === 'blocked' && b) {
    if (b.question) p.question = b.question
    if (b.fingerprint) p.fingerprint = b.fingerprint
    if (b.multi_select) p.multi_select = true
    p.options = b.options
      .slice(0, PAYLOAD_OPTIONS)
      .map((o, i) => (o.free_text ? { position: i + 1, label: o.label, free_text: true } : { position: i + 1, label: o.label }))
  }
  return p
}

export function resolvedPayload(row: { pane_id: string; state_change_seq?: number | null }, eventSeq: number): ResolvedPayload {
  return { pane_id: row.pane_id, resolved: true, seq: row.state_change_seq ?? 0, event_seq: eventSeq }
}

export function groupPayload(members: StatusPayload[], eventSeq: number): GroupPayload {
  return {
    group: true,
    agent_status: 'blocked',
    count: members.length,
    panes: members.map((m) =>
      m.question
        ? { pane_id: m.pane_id, agent_kind: m.agent_kind, name: m.name, question: m.question }
        : { pane_id: m.pane_id, agent_kind: m.agent_kind, name: m.name },
    ),
    event_seq: eventSeq,
  }
}
