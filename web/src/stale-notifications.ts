// Which notifications the app closes while it is on screen: the bridge pushes
// nothing to a device whose app is visible (not even the message that would close
// a notification whose pane moved on), so the app tidies what it can see is stale.
// Pure: the notifications' tag and data, and the live list.
import type { PaneRow } from './pane-list'

export interface ShownNotification {
  tag: string
  data: unknown
}

/** The tags of notifications that no longer say what the panes show. */
export function staleNotifications(shown: ShownNotification[], panes: PaneRow[]): string[] {
  const byId = new Map(panes.map((p) => [p.pane_id, p]))
  const out: string[] = []
  for (const n of shown) {
    const d = (n.data ?? {}) as { group?: boolean; panes?: { pane_id: string }[]; pane_id?: string; agent_status?: string; seq?: number }
    if (d.group && Array.isArray(d.panes)) {
      // the group stands while any of its panes still waits
      if (!d.panes.some((m) => byId.get(m.pane_id)?.agent_status === 'blocked')) out.push(n.tag)
      continue
    }
    if (typeof d.pane_id !== 'string') continue
    const row = byId.get(d.pane_id)
    const moved = !row || row.agent_status !== d.agent_status || (typeof d.seq === 'number' && row.state_change_seq !== d.seq)
    if (moved) out.push(n.tag)
  }
  return out
}
