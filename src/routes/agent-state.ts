// GET /agent-state: the parsed agent card (docs/agent-pane-api.md, first contract).
// Stateless per request: herdr agent get + agent read, then a pure grammar.
import { Elysia, t } from 'elysia'
import type { Ctx } from '../server/ctx'
import { explainCard, type ExplainedCard } from '../card/build'
import { CardSchema } from '../card/card'
import { grammarFor } from '../card/registry'
import type { HerdrClient } from '../herdr/client'
import type { AgentInfo } from '../herdr/types'
import { paneTargets, plainTextErrors } from './edge'
import { needs } from '../auth/scopes'

export const paneQuery = t.Object(
  { pane: t.String({ minLength: 1, description: 'the herdr pane_id (e.g. wQ:p2), from /snapshot' }) },
  { error: 'want ?pane=<pane_id>' },
)

/**
 * The card of `agent` (named `target` by the caller), from one screen read: GET
 * /agent-state, and /events' card on a pane that became blocked. `--source
 * visible`: an explicit --lines read of a non-idle Claude Code or OpenCode agent is
 * refused (agent_not_idle), and an idle one would be scrolled with side effects. A
 * failed read still gives a card (contract), and a log line under `who`.
 */
export async function readCard(herdr: HerdrClient, target: string, agent: AgentInfo, log: (m: string) => void, who: string): Promise<ExplainedCard> {
  let screen: string | undefined
  try {
    const ansi = grammarFor(agent.agent).wantsAnsi === true
    screen = await herdr.agentRead(target, ansi ? { source: 'visible', ansi } : { source: 'visible' })
  } catch (e) {
    log(`${who}: read ${target} failed: ${(e as Error).message}`)
  }
  return explainCard(agent, screen)
}

export function agentStateRoutes(ctx: Ctx) {
  return new Elysia({ name: 'agent-state' }).use(paneTargets(ctx)).get(
    '/agent-state',
    async ({ set, agent, herdr, target }) => {
      const { card, rule } = await readCard(herdr, target, agent, ctx.log, 'agent-state')
      // Which rules decided the card: a wrong card names its rule ids.
      set.headers['x-gothalo-rule'] = rule.replace(/[^\x20-\x7e]/g, '?')
      return card
    },
    {
      query: paneQuery,
      agentTarget: true,
      response: { 200: CardSchema, ...plainTextErrors(400, 401, 404, 502) },
      detail: needs('read', {
        summary: 'The parsed state card of an agent pane',
        description:
          'What the agent is doing, its last message and, when blocked, the question and choices. The `X-Gothalo-Rule` response header names the rule ids (src/card/rules.ts) that decided the card, headline first, comma-separated; `gothalo explain` prints why.',
        tags: ['agents'],
      }),
    },
  )
}
