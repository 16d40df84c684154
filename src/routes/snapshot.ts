// GET /snapshot: every pane herdr knows, one row each, in herdr's order.
import { Elysia, t, type Static } from 'elysia'
import type { Ctx } from '../ctx'
import type { AgentInfo, Snapshot } from '../herdr/types'
import { needs } from '../auth/scopes'

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
})
export type SnapshotRow = Static<typeof SnapshotRowSchema>

export const SnapshotSchema = t.Object({
  panes: t.Array(SnapshotRowSchema),
  herdr: t.Object({ version: t.String(), protocol: t.Integer() }),
})

/** Counts a session's subagents for its row; supplied by the transcript layer. */
export type SubagentCounter = (agent: AgentInfo) => Promise<{ running: number; total: number } | undefined>

/** /snapshot rows from herdr's snapshot, in herdr's order (also /events' rows). */
export async function snapshotRows(snap: Snapshot, counter: SubagentCounter | undefined, log: (m: string) => void): Promise<SnapshotRow[]> {
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
      if (a && counter) {
        try {
          row.subagents = await counter(a)
        } catch (e) {
          // Losing the roster must never cost the row.
          log(`snapshot: subagent count for ${p.pane_id} failed: ${(e as Error).message}`)
        }
      }
      for (const k of Object.keys(row) as (keyof SnapshotRow)[]) if (row[k] === undefined) delete row[k]
      return row
    }),
  )
}

export function snapshotRoutes(ctx: Ctx) {
  const counter: SubagentCounter = (agent) => ctx.sources.subagentCounts(agent)
  return new Elysia({ name: 'snapshot' }).get(
    '/snapshot',
    async () => {
      // The watcher's state while it runs; else one herdr read shared by concurrent requests.
      // A snapshot names no target, so every herdr failure is 502 (routes/edge.ts).
      const snap = await ctx.watch.snapshot()
      const panes = await snapshotRows(snap, counter, ctx.log)
      return { panes, herdr: { version: snap.version, protocol: snap.protocol } }
    },
    {
      response: { 200: SnapshotSchema, 401: t.String(), 502: t.String() },
      detail: needs('read', { summary: 'Every pane herdr knows, one row each', tags: ['panes'] }),
    },
  )
}
