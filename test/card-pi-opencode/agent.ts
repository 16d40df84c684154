// The herdr agent record the card tests hand to the grammars (the same as test/card's).
import type { AgentInfo, AgentStatus } from '../../src/herdr/types'
import { fakeAgent } from '../support/agent'

export const TITLE = 'Task title from herdr'

export function agentOf(kind: string, status: AgentStatus): AgentInfo {
  return fakeAgent(kind, status, { terminal_title_stripped: TITLE })
}
