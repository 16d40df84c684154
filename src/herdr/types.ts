// herdr's wire shapes as the CLI and the socket print them (docs/reference/herdr-cli.md §3, §5, §8),
// as TypeBox schemas: the herdr edge (client.ts, socket.ts) checks every reply and every
// pushed event against them, so past the edge the fields are what their types say. A reply that does not fit
// is malformed (a 502), never a crash. Absent optional fields are omitted by herdr,
// never null. Required are the fields the bridge relies on; the others are checked
// only when present.
import { Type, type Static, type TOptional, type TSchema, type TString } from '@sinclair/typebox'

export type AgentStatus = 'idle' | 'working' | 'blocked' | 'done' | 'unknown'

/** herdr's documented statuses (§3.3); one it adds later passes through as text. */
const Status = Type.Unsafe<AgentStatus>(Type.String())
const Labels = Type.Record(Type.String(), Type.String())
const opt = <T extends TSchema>(s: T) => Type.Optional(s)

export const AgentSessionSchema = Type.Object({
  agent: opt(Type.String()),
  kind: opt(Type.Unsafe<'id' | 'path'>(Type.String())),
  source: opt(Type.String()),
  value: Type.String(),
})
export type AgentSession = Static<typeof AgentSessionSchema>

/** Fields herdr prints only when it knows them, each a string then. */
function optionalStrings<const K extends string>(...names: K[]): Record<K, TOptional<TString>> {
  return Object.fromEntries(names.map((name) => [name, opt(Type.String())])) as Record<K, TOptional<TString>>
}

/** What herdr says of a pane and its agent, alike in `agent get` and in the snapshot's panes. */
const paneAgentFields = {
  pane_id: Type.String(),
  agent_status: Status,
  ...optionalStrings('agent', 'cwd', 'display_agent', 'foreground_cwd', 'terminal_id', 'terminal_title', 'terminal_title_stripped', 'title'),
  agent_session: opt(AgentSessionSchema),
  revision: opt(Type.Number()),
  state_labels: opt(Labels),
  tokens: opt(Labels),
}

export const AgentInfoSchema = Type.Object({
  ...paneAgentFields,
  state_change_seq: Type.Number(),
  ...optionalStrings('name', 'tab_id', 'workspace_id'),
  focused: opt(Type.Boolean()),
  interactive_ready: opt(Type.Boolean()),
  launch_pending: opt(Type.Boolean()),
  screen_detection_skipped: opt(Type.Boolean()),
})
export type AgentInfo = Static<typeof AgentInfoSchema>

export const PaneInfoSchema = Type.Object({
  ...paneAgentFields,
  workspace_id: Type.String(),
  tab_id: Type.String(),
  focused: Type.Boolean(),
  label: opt(Type.String()),
})
export type PaneInfo = Static<typeof PaneInfoSchema>

/** What herdr lists of a workspace and of a tab alike. */
const listedFields = {
  number: opt(Type.Number()),
  label: opt(Type.String()),
  focused: opt(Type.Boolean()),
  pane_count: opt(Type.Number()),
  agent_status: opt(Status),
}

export const WorkspaceInfoSchema = Type.Object({
  workspace_id: Type.String(),
  ...listedFields,
  tab_count: opt(Type.Number()),
  active_tab_id: opt(Type.String()),
})
export type WorkspaceInfo = Static<typeof WorkspaceInfoSchema>

export const TabInfoSchema = Type.Object({ tab_id: Type.String(), workspace_id: opt(Type.String()), ...listedFields })
export type TabInfo = Static<typeof TabInfoSchema>

export const SnapshotSchema = Type.Object({
  agents: Type.Array(AgentInfoSchema),
  panes: Type.Array(PaneInfoSchema),
  tabs: Type.Array(TabInfoSchema),
  workspaces: Type.Array(WorkspaceInfoSchema),
  protocol: Type.Integer(),
  version: Type.String(),
  ...optionalStrings('focused_pane_id', 'focused_tab_id', 'focused_workspace_id'),
})
export type Snapshot = Static<typeof SnapshotSchema>

/** `herdr agent get` / socket `agent.get`: the `result` of the envelope. */
export const AgentReply = Type.Object({ agent: AgentInfoSchema })
/** `herdr api snapshot` / socket `session.snapshot`: the `result` of the envelope. */
export const SnapshotReply = Type.Object({ snapshot: SnapshotSchema })

/** socket `ping`. */
export const PingReply = Type.Object({ type: opt(Type.String()), version: opt(Type.String()), protocol: opt(Type.Number()) })

/** socket `events.subscribe`: the first line's `result`, before any event is pushed (§8.3). */
export const SubscriptionStartedReply = Type.Object({ type: Type.Literal('subscription_started') })

/**
 * A line `events.subscribe` pushes (§8.3): an event name and its data. Generic events are
 * snake_case (`pane_created`, …) with a matching `type` in data; the watcher reads the
 * whole state again on them, so it looks no further into their data. A pushed line that
 * does not fit is not herdr's event and is ignored.
 */
export const HerdrEventSchema = Type.Object({ event: Type.String(), data: Type.Record(Type.String(), Type.Unknown()) })
export type HerdrEvent = Static<typeof HerdrEventSchema>

/**
 * The pane-scoped `pane.agent_status_changed` (dot name, no `type` in data): herdr pushes it
 * when a subscribed pane's status or its presentation fields change. It carries no
 * state_change_seq (the watcher asks `agent.get` for that). An event of this name whose
 * data does not fit is read as a generic event.
 */
export const PaneStatusChangedSchema = Type.Object({
  event: Type.Literal('pane.agent_status_changed'),
  data: Type.Object({
    pane_id: Type.String(),
    agent_status: opt(Status),
    ...optionalStrings('workspace_id', 'agent', 'title', 'display_agent'),
    state_labels: opt(Labels),
  }),
})
export type PaneStatusChanged = Static<typeof PaneStatusChangedSchema>

export type ReadSource = 'visible' | 'recent' | 'recent-unwrapped' | 'detection'

/** `herdr workspace create` / `tab create`: the pane the new tab starts with (docs/reference/spawn-attach.md §1.2). */
export const CreatedReply = Type.Object({
  root_pane: Type.Object({ pane_id: Type.String(), workspace_id: Type.String(), tab_id: Type.String(), terminal_id: opt(Type.String()) }),
})
/** `herdr agent start`: the agent once ready, and the argv herdr typed (§1.3). */
export const StartedReply = Type.Object({ agent: AgentInfoSchema, argv: opt(Type.Array(Type.String())) })
