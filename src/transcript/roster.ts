// The subagent roster row (docs/agent-pane-api.md, "Subagents").
import { t, type Static } from 'elysia'

export const SubagentSchema = t.Object({
  agent_id: t.String(),
  tool_use_id: t.String(),
  agent_type: t.String(),
  description: t.String(),
  spawn_depth: t.Integer(),
  done: t.Boolean(),
  last_activity_ts: t.Optional(t.Integer()),
})
export type Subagent = Static<typeof SubagentSchema>

/**
 * What a client must be told about: the roster without last_activity_ts. A
 * working agent's file is written constantly, and the contract says age alone
 * does not trigger a resend (the client computes elapsed time itself); the
 * timestamps ride along whenever something else changes.
 */
export function rosterChangeKey(rows: readonly Subagent[] | undefined): string {
  if (rows === undefined) return 'none'
  return JSON.stringify(rows.map(({ last_activity_ts: _age, ...row }) => row))
}
