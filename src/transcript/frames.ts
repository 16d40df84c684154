// The WS /agent-transcript frames (docs/agent-pane-api.md, "Framing"), one schema each.
import { t, type Static } from 'elysia'
import { EntrySchema } from './entry'
import { SubagentSchema } from './roster'

/** Wire version (docs/bridge.md: hello's protocol is 5). */
export const PROTOCOL = 5

export const HelloFrame = t.Object({
  type: t.Literal('hello'),
  protocol: t.Literal(PROTOCOL),
  pane: t.String(),
  agent_kind: t.String(),
  session_id: t.String(),
  subagent: t.Optional(t.String()),
  backlog_count: t.Integer(),
  total: t.Integer(),
  has_more: t.Boolean(),
  oldest_loaded_seq: t.Integer(),
  has_older: t.Boolean(),
  subagents: t.Optional(t.Array(SubagentSchema)),
})
export const EntryFrame = t.Object({ type: t.Literal('entry'), live: t.Boolean(), entry: EntrySchema })
export const BacklogCompleteFrame = t.Object({ type: t.Literal('backlog_complete'), count: t.Integer(), has_more: t.Boolean() })
export const PageCompleteFrame = t.Object({
  type: t.Literal('page_complete'),
  requested_before_seq: t.Integer(),
  oldest_loaded_seq: t.Integer(),
  has_older: t.Boolean(),
})
export const SessionChangedFrame = t.Object({ type: t.Literal('session_changed'), pane: t.String(), from: t.String(), to: t.String() })
export const SubagentsFrame = t.Object({ type: t.Literal('subagents'), pane: t.String(), subagents: t.Array(SubagentSchema) })
export const LoadOlderFrame = t.Object({
  type: t.Literal('load_older'),
  before_seq: t.Integer(),
  limit: t.Optional(t.Integer({ minimum: 0 })),
})

export type Hello = Static<typeof HelloFrame>
export type ServerFrame =
  | Hello
  | Static<typeof EntryFrame>
  | Static<typeof BacklogCompleteFrame>
  | Static<typeof PageCompleteFrame>
  | Static<typeof SessionChangedFrame>
  | Static<typeof SubagentsFrame>
export type LoadOlder = Static<typeof LoadOlderFrame>

/**
 * The one inbound frame the server acts on. Elysia hands text frames over
 * pre-parsed (JSON → object), so this checks the parsed value; anything else
 * (garbage, unknown type, binary, a bare number) is not well-formed.
 */
export function asLoadOlder(m: unknown): LoadOlder | undefined {
  if (!m || typeof m !== 'object' || Array.isArray(m) || m instanceof Uint8Array) return undefined
  const o = m as Record<string, unknown>
  if (o.type !== 'load_older') return undefined
  if (typeof o.before_seq !== 'number' || !Number.isSafeInteger(o.before_seq)) return undefined
  if (o.limit !== undefined && o.limit !== null && (typeof o.limit !== 'number' || !Number.isSafeInteger(o.limit) || o.limit < 0))
    return undefined
  return { type: 'load_older', before_seq: o.before_seq, limit: typeof o.limit === 'number' ? o.limit : undefined }
}
