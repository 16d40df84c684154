// The list screen's state: every pane herdr knows, kept current from WS /events
// frames (or from /snapshot polls where /events is not reachable). Pure.
export interface Card {
  pane_id: string
  agent_kind: string
  agent_status: string
  permission_mode?: string
  headline: string
  detail?: string
  blocked?: Blocked
  parsed: boolean
}

export interface Option {
  index: number
  /** the choice alone */
  label: string
  /** what the agent draws beside the choice (dim after " · ", or a picker's column) */
  description?: string
  selected: boolean
  checked?: boolean
  free_text?: boolean
}

export interface Blocked {
  question: string
  options: Option[]
  fingerprint?: string
  multi_select?: boolean
  questions?: { titles?: string[]; current?: number } | unknown
}

export interface PaneRow {
  pane_id: string
  workspace_id?: string
  tab_id?: string
  workspace_label?: string
  tab_label?: string
  label?: string
  cwd?: string
  focused?: boolean
  agent_kind?: string
  agent_name?: string
  agent_status?: string
  state_change_seq?: number
  title?: string
  subagents?: { running: number; total: number }
  /** how full the context is, where the bridge knows */
  context_pct?: number
  card?: Card
  /** another machine's pane: its label (pane_id is LABEL/PANE) */
  machine?: string
  /** its machine is offline: the row as last heard */
  stale?: boolean
}

/** A machine as GET /machines lists it (the home bridge first, id `local`). */
export interface MachineInfo {
  id: string
  label: string
  state?: 'online' | 'offline' | 'attention'
  last_seen?: number
  error?: string
}

export interface ListState {
  /** herdr's order */
  panes: PaneRow[]
  epoch: string | null
  seq: number
  /** every machine when the bridge merges others; empty on a single machine */
  machines: MachineInfo[]
}

export const emptyList = (): ListState => ({ panes: [], epoch: null, seq: 0, machines: [] })

/** A machine event: its entry replaced (or dropped), its rows marked stale while it is not online. */
function onMachine(s: ListState, m: MachineInfo & { removed?: boolean }): ListState {
  if (!m || typeof m.id !== 'string') return s
  const machines = m.removed
    ? s.machines.filter((x) => x.id !== m.id)
    : s.machines.some((x) => x.id === m.id)
      ? s.machines.map((x) => (x.id === m.id ? m : x))
      : [...s.machines, m]
  const stale = m.state !== 'online'
  const panes = s.panes.map((p) => (p.machine !== m.id ? p : stale ? { ...p, stale: true } : (({ stale: _s, ...rest }) => rest)(p)))
  return { ...s, machines, panes }
}

export function reduceEvents(s: ListState, f: any): ListState {
  if (!f || typeof f !== 'object') return s
  switch (f.type) {
    case 'hello':
      return {
        panes: Array.isArray(f.panes) ? f.panes : s.panes,
        epoch: typeof f.epoch === 'string' ? f.epoch : s.epoch,
        seq: typeof f.seq === 'number' ? f.seq : s.seq,
        machines: Array.isArray(f.machines) ? f.machines : [],
      }
    case 'machine':
      return { ...onMachine(s, f.machine), seq: typeof f.seq === 'number' ? f.seq : s.seq }
    case 'pane': {
      const row = f.pane as PaneRow
      if (!row || typeof row.pane_id !== 'string') return s
      const i = s.panes.findIndex((p) => p.pane_id === row.pane_id)
      const panes = i < 0 ? [...s.panes, row] : s.panes.map((p, j) => (j === i ? keepCard(p, row) : p))
      return { ...s, panes, seq: typeof f.seq === 'number' ? f.seq : s.seq }
    }
    case 'pane_removed':
      return { ...s, panes: s.panes.filter((p) => p.pane_id !== f.pane_id), seq: typeof f.seq === 'number' ? f.seq : s.seq }
    default:
      return s
  }
}

/** A row update without a card keeps the card only while the pane stays blocked at the same seq. */
function keepCard(old: PaneRow, row: PaneRow): PaneRow {
  if (row.card || !old.card) return row
  const same = row.agent_status === 'blocked' && old.agent_status === 'blocked' && row.state_change_seq === old.state_change_seq
  return same ? { ...row, card: old.card } : row
}

/** Rows from a /snapshot answer (the fallback path). */
export function fromSnapshot(s: ListState, snap: any): ListState {
  if (!snap || !Array.isArray(snap.panes)) return s
  const panes = (snap.panes as PaneRow[]).map((row) => {
    const old = s.panes.find((p) => p.pane_id === row.pane_id)
    return old ? keepCard(old, row) : row
  })
  return { ...s, panes }
}

/** The list cut by machine: one group per machine (this one first) when there are several, else one group with no machine. */
export function groupByMachine(panes: PaneRow[], machines: MachineInfo[]): { machine?: MachineInfo; panes: PaneRow[] }[] {
  if (machines.length < 2) return [{ panes }]
  return machines.map((m) => ({ machine: m, panes: panes.filter((p) => (m.id === 'local' ? !p.machine : p.machine === m.id)) }))
}

/** Where to resume /events from after a reconnect. */
export function sinceParam(s: ListState): string | null {
  return s.epoch ? `${s.epoch}:${s.seq}` : null
}

const RANK: Record<string, number> = { blocked: 0, working: 1, done: 2, idle: 3, unknown: 4 }

/** Blocked panes first, then working, done, idle, then plain shells; herdr's order within each. */
export function sortedForList(panes: PaneRow[]): PaneRow[] {
  const rank = (p: PaneRow) => (p.agent_kind ? (RANK[p.agent_status ?? 'unknown'] ?? 4) : 9)
  return panes
    .map((p, i) => ({ p, i }))
    .sort((a, b) => rank(a.p) - rank(b.p) || a.i - b.i)
    .map((x) => x.p)
}

/** A short name for a pane: its label, else the agent name, else the cwd's last folder. */
export function paneName(p: PaneRow): string {
  if (p.label) return p.label
  if (p.agent_name) return p.agent_name
  if (p.cwd) return p.cwd.replace(/\/+$/, '').split('/').pop() || p.cwd
  return p.pane_id
}
