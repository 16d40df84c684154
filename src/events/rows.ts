// The rows of /snapshot and WS /events: one per pane herdr knows, in herdr's
// order, built from herdr's snapshot (with the subagent counts and the context
// figure the transcript layer supplies). Domain, not route: the event hub and the route both use it.
import { t, type Static } from 'elysia'
import type { AgentInfo, Snapshot } from '../herdr/types'

export const SnapshotRowSchema = t.Object({
  pane_id: t.String(),
  workspace_id: t.String(),
  tab_id: t.String(),
  workspace_label: t.String(),
  tab_label: t.String(),
  label: t.Optional(t.String()),
  cwd: t.Optional(t.String()),
  focused: t.Boolean(),
  agent_kind: t.Optional(t.String()),
  agent_name: t.Optional(t.String()),
  agent_status: t.String(),
  state_change_seq: t.Optional(t.Integer()),
  title: t.Optional(t.String()),
  subagents: t.Optional(t.Object({ running: t.Integer(), total: t.Integer() })),
  context_pct: t.Optional(t.Integer({ description: "how full the session's context is, in percent, where known (GET /usage has the figures)" })),
  machine: t.Optional(t.String({ description: "another machine's row: that machine's label (its pane_id is LABEL/PANE); absent for this machine's panes" })),
  stale: t.Optional(t.Boolean({ description: 'the machine of this row is offline: the row is as last heard' })),
})
export type SnapshotRow = Static<typeof SnapshotRowSchema>

/** What the transcript layer adds to an agent's row: its subagent counts and how full its context is. */
export interface SessionFacts {
  subagentCounts(agent: AgentInfo): Promise<{ running: number; total: number } | undefined>
  /** never waits: the figure last read (src/usage/book.ts) */
  contextPct(agent: AgentInfo): number | undefined
}

/** /snapshot rows from herdr's snapshot, in herdr's order (also /events' rows). */
export async function snapshotRows(snap: Snapshot, facts: SessionFacts | undefined, log: (m: string) => void): Promise<SnapshotRow[]> {
  const ws = new Map(snap.workspaces.map((w) => [w.workspace_id, w.label]))
  const tabs = new Map(snap.tabs.map((x) => [x.tab_id, x.label]))
  const agents = new Map(snap.agents.map((a) => [a.pane_id, a]))
  return Promise.all(
    snap.panes.map(async (p): Promise<SnapshotRow> => {
      const a = agents.get(p.pane_id)
      const row: SnapshotRow = {
        pane_id: p.pane_id,
        workspace_id: p.workspace_id,
        tab_id: p.tab_id,
        workspace_label: ws.get(p.workspace_id) ?? p.workspace_id,
        tab_label: tabs.get(p.tab_id) ?? p.tab_id,
        label: p.label,
        cwd: p.cwd,
        focused: p.focused,
        agent_kind: a?.agent,
        agent_name: a?.name,
        agent_status: a?.agent_status ?? p.agent_status,
        state_change_seq: a?.state_change_seq,
        title: a?.title ?? a?.terminal_title_stripped ?? p.title ?? p.terminal_title_stripped,
      }
      if (a && facts) {
        try {
          row.subagents = await facts.subagentCounts(a)
        } catch (e) {
          // Losing the roster must never cost the row.
          log(`snapshot: subagent count for ${p.pane_id} failed: ${(e as Error).message}`)
        }
        row.context_pct = facts.contextPct(a)
      }
      for (const k of Object.keys(row) as (keyof SnapshotRow)[]) if (row[k] === undefined) delete row[k]
      return row
    }),
  )
}
