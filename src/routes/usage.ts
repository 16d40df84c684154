// GET /usage: context, tokens, cost and the plan's limits of a pane's session,
// as the session's own records state them (docs/bridge.md, "Usage"). Read from
// the transcript's index pass: an indexed session answers from its fold.
import { Elysia } from 'elysia'
import type { Ctx } from '../server/ctx'
import { UsageSchema } from '../usage/tally'
import { paneQuery } from './agent-state'
import { paneTargets, plainTextErrors } from './edge'
import { needs } from '../auth/scopes'

export function usageRoutes(ctx: Ctx) {
  return new Elysia({ name: 'usage' }).use(paneTargets(ctx)).get(
    '/usage',
    async ({ agent, status }) => {
      const r = await ctx.sources.usage(agent)
      return r.ok ? r.usage : status(r.status, r.body)
    },
    {
      query: paneQuery,
      agentTarget: true,
      response: { 200: UsageSchema, ...plainTextErrors(400, 401, 404, 500, 502) },
      detail: needs('read', {
        summary: "Context filled, tokens, cost and plan limits of an agent's session",
        description:
          "From the session's own records (Claude Code: each assistant message's usage and `cost-state`; codex: `token_count`; pi: usage and cost per message; opencode: tokens and cost per message). A figure the agent does not record is absent, never estimated. 404 bodies as WS /agent-transcript's: `no such agent`, `no transcript file for pane`, `transcript not supported for this agent kind`.",
        tags: ['agents'],
      }),
    },
  )
}
