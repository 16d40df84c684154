// The herdr agent record (as `herdr agent get` reports it) that the card, answer and demo
// tests hand to buildCard and the grammars: one fake, so every test reads the same record.
import type { AgentInfo, AgentStatus } from '../../src/herdr/types'

export const FAKE_TITLE = 'Task title from herdr'

export function fakeAgent(kind: string, status: AgentStatus, extra: Partial<AgentInfo> = {}): AgentInfo {
  return {
    agent: kind,
    agent_status: status,
    focused: false,
    pane_id: 'w1:p1',
    revision: 1,
    state_change_seq: 7,
    tab_id: 'w1:t1',
    terminal_id: 'term-1',
    workspace_id: 'w1',
    terminal_title_stripped: FAKE_TITLE,
    ...extra,
  }
}
