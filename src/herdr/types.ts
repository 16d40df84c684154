// herdr's wire shapes as the CLI prints them (docs/reference/herdr-cli.md §3, §5).
// Absent optional fields are omitted by herdr, never null.

export type AgentStatus = 'idle' | 'working' | 'blocked' | 'done' | 'unknown'

export interface AgentSession {
  agent: string
  kind: 'id' | 'path'
  source: string
  value: string
}

export interface AgentInfo {
  agent?: string
  agent_session?: AgentSession
  agent_status: AgentStatus
  cwd?: string
  display_agent?: string
  focused: boolean
  foreground_cwd?: string
  interactive_ready?: boolean
  launch_pending?: boolean
  name?: string
  pane_id: string
  revision: number
  screen_detection_skipped?: boolean
  state_change_seq: number
  state_labels?: Record<string, string>
  tab_id: string
  terminal_id: string
  terminal_title?: string
  terminal_title_stripped?: string
  title?: string
  tokens?: Record<string, string>
  workspace_id: string
}

export interface PaneInfo {
  pane_id: string
  terminal_id: string
  workspace_id: string
  tab_id: string
  focused: boolean
  cwd?: string
  foreground_cwd?: string
  label?: string
  agent?: string
  title?: string
  terminal_title?: string
  terminal_title_stripped?: string
  display_agent?: string
  agent_status: AgentStatus
  state_labels?: Record<string, string>
  tokens?: Record<string, string>
  agent_session?: AgentSession
  revision: number
}

export interface WorkspaceInfo {
  workspace_id: string
  number: number
  label: string
  focused: boolean
  pane_count: number
  tab_count: number
  active_tab_id: string
  agent_status: AgentStatus
}

export interface TabInfo {
  tab_id: string
  workspace_id: string
  number: number
  label: string
  focused: boolean
  pane_count: number
  agent_status: AgentStatus
}

export interface Snapshot {
  agents: AgentInfo[]
  panes: PaneInfo[]
  tabs: TabInfo[]
  workspaces: WorkspaceInfo[]
  protocol: number
  version: string
  focused_pane_id?: string
  focused_tab_id?: string
  focused_workspace_id?: string
}

export type ReadSource = 'visible' | 'recent' | 'recent-unwrapped' | 'detection'
