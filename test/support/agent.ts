// The herdr agent record the card tests hand to buildCard and the grammars.
import type { AgentInfo, AgentStatus } from '../../src/herdr/types'

export const FAKE_TITLE = 'Fake task title'

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
