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
