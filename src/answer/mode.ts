// POST /agent-mode/cycle's policy: Shift+Tab moves a kind's permission mode to the
// next one, and the footer on screen is watched until it shows a new mode. The
// route only shapes the reply; herdr failures propagate to the route edge.
import type { ScreenGrammar } from '../card/card'
import { cleanScreen } from '../card/clean'
import { grammarFor } from '../card/registry'
import { HerdrError, type HerdrClient } from '../herdr/client'
import type { AgentInfo } from '../herdr/types'

/** How long to watch the screen for a keypress to take effect. */
const SETTLE = { tries: 10, everyMs: 60 }

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export type ModeCycle =
  | { refused: 409 | 422; body: string }
  | { pane_id: string; previous_mode: string | null; permission_mode: string | null; confirmed: boolean }

async function screenOf(herdr: HerdrClient, agent: AgentInfo): Promise<string | undefined> {
  try {
    return cleanScreen(await herdr.agentRead(agent.pane_id, { source: 'visible' }))
  } catch {
    return undefined
  }
}

/** Re-reads the footer until it shows a mode other than `previous`, or the settle time runs out. */
async function watchMode(
  herdr: HerdrClient,
  signal: AbortSignal,
  agent: AgentInfo,
  grammar: ScreenGrammar,
  previous: string | undefined,
): Promise<string | undefined> {
  let last: string | undefined
  for (let i = 0; i < SETTLE.tries && !signal.aborted; i++) {
    const s = await screenOf(herdr, agent)
    if (s !== undefined) {
      last = grammar.permissionMode!(s)
      if (last !== undefined && last !== previous) return last
    }
    await sleep(SETTLE.everyMs)
  }
  return last
}

/**
 * Cycles the permission mode of `agent` (named `target` in the request: keys go
 * to the name the phone used) and reads it back. `deadlineMs` only words the
 * error when the request's time ran out while watching.
 */
export async function cyclePermissionMode(herdr: HerdrClient, signal: AbortSignal, target: string, agent: AgentInfo, deadlineMs: number): Promise<ModeCycle> {
  const grammar = grammarFor(agent.agent)
  if (!grammar.permissionMode) return { refused: 422, body: 'permission modes not supported for this agent kind' }
  if (agent.agent_status === 'blocked') return { refused: 409, body: 'agent is blocked' }
  const before = await screenOf(herdr, agent)
  const previous = before === undefined ? undefined : grammar.permissionMode(before)
  await herdr.agentSendKeys(target, ['shift+tab'])
  const now = await watchMode(herdr, signal, agent, grammar, previous)
  if (signal.aborted) throw new HerdrError('failed', 'deadline', `herdr agent read ${target}: no answer within ${deadlineMs} ms`)
  return { pane_id: agent.pane_id, previous_mode: previous ?? null, permission_mode: now ?? null, confirmed: now !== undefined && now !== previous }
}
