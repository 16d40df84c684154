// The WS /agent-transcript frames (docs/agent-pane-api.md, "Framing"), one schema each.
import { t, type Static } from 'elysia'
import { Type } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { EntrySchema } from './entry'
import { SubagentSchema } from './roster'

/** Wire version (docs/bridge.md: hello's protocol is 5). */
export const PROTOCOL = 5

export const HelloFrame = t.Object({
  type: t.Literal('hello'),
  protocol: t.Literal(PROTOCOL),
  pane: t.String(),
  agent_kind: t.String(),
  session_id: t.String({ description: '"" while the agent has not written a session yet (total 0): a session_changed moves the socket to it once it has' }),
  subagent: t.Optional(t.String()),
  backlog_count: t.Integer(),
  total: t.Integer(),
  has_more: t.Boolean(),
  oldest_loaded_seq: t.Integer(),
  has_older: t.Boolean(),
  subagents: t.Optional(t.Array(SubagentSchema)),
  /** a session socket (?session=): the `KIND:ID` it opened */
  session: t.Optional(t.String()),
  /** a session socket: entries after this first page exist (load_newer) */
  has_newer: t.Optional(t.Boolean()),
})
export const EntryFrame = t.Object({ type: t.Literal('entry'), live: t.Boolean(), entry: EntrySchema })
export const BacklogCompleteFrame = t.Object({ type: t.Literal('backlog_complete'), count: t.Integer(), has_more: t.Boolean() })
export const PageCompleteFrame = t.Object({
  type: t.Literal('page_complete'),
  requested_before_seq: t.Integer(),
  oldest_loaded_seq: t.Integer(),
  has_older: t.Boolean(),
})
export const NewerPageCompleteFrame = t.Object({
  type: t.Literal('newer_page_complete'),
  requested_after_seq: t.Integer(),
  newest_loaded_seq: t.Integer(),
  has_newer: t.Boolean(),
})
export const SessionChangedFrame = t.Object({ type: t.Literal('session_changed'), pane: t.String(), from: t.String(), to: t.String() })
export const SubagentsFrame = t.Object({ type: t.Literal('subagents'), pane: t.String(), subagents: t.Array(SubagentSchema) })
/**
 * The client's one frame, checked as it arrives: TypeBox's own types, not
 * Elysia's `t` (whose Integer also takes a numeric string). JSON numbers past
 * 2^53 are not exact: they are not a seq.
 */
const Seq = () => Type.Integer({ minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER })
const PageLimit = () =>
  Type.Optional(
    Type.Union([Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), Type.Null()], {
      description: 'the most entries in the page; absent, null or 0 ⇒ 150; capped at 500',
    }),
  )
export const LoadOlderFrame = Type.Object({ type: Type.Literal('load_older'), before_seq: Seq(), limit: PageLimit() })

/** load_older's mirror: the entries after `after_seq` (a session socket opened ?around= pages down with it). */
export const LoadNewerFrame = Type.Object({ type: Type.Literal('load_newer'), after_seq: Seq(), limit: PageLimit() })

export type Hello = Static<typeof HelloFrame>
export type ServerFrame =
  | Hello
  | Static<typeof EntryFrame>
  | Static<typeof BacklogCompleteFrame>
  | Static<typeof PageCompleteFrame>
  | Static<typeof NewerPageCompleteFrame>
  | Static<typeof SessionChangedFrame>
  | Static<typeof SubagentsFrame>
export type LoadOlder = Static<typeof LoadOlderFrame>
export type LoadNewer = Static<typeof LoadNewerFrame>

/**
 * The one inbound frame the server acts on, checked against its schema. Elysia
 * hands text frames over pre-parsed (JSON → object), so this checks the parsed
 * value; anything else (garbage, unknown type, binary, a bare number) is not
 * well-formed. Only the frame's own fields are kept.
 */
export function asLoadOlder(m: unknown): LoadOlder | undefined {
  if (!Value.Check(LoadOlderFrame, m)) return undefined
  return { type: 'load_older', before_seq: m.before_seq, limit: m.limit ?? undefined }
}

/** The client's two frames, each checked against its schema (asLoadOlder's rule); undefined for anything else. */
export function asClientFrame(m: unknown): LoadOlder | LoadNewer | undefined {
  const older = asLoadOlder(m)
  if (older) return older
  if (!Value.Check(LoadNewerFrame, m)) return undefined
  return { type: 'load_newer', after_seq: m.after_seq, limit: m.limit ?? undefined }
}
