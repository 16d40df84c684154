// Every past conversation (docs/bridge.md, "Every past conversation: history
// and search"): GET /sessions. The logic is in src/history/; this is the edge.
import { Elysia, t } from 'elysia'
import type { Ctx } from '../server/ctx'
import { needs } from '../auth/scopes'
import { AGENT_KINDS, type AgentKind } from '../projects/listing'
import { pastSessions, parseCursor, SESSIONS_LIMIT_DEFAULT, SESSIONS_LIMIT_MAX } from '../history/sessions'
import { machineQuery, plainTextErrors } from './edge'

const Kind = t.Union([t.Literal('claude'), t.Literal('pi'), t.Literal('opencode'), t.Literal('codex')])

export const PastSessionSchema = t.Object({
  agent_kind: Kind,
  session_id: t.String({ description: 'with agent_kind, what WS /agent-transcript?session=KIND:ID opens and POST /agent-start takes as `resume`' }),
  project: t.String({ description: 'the directory the session recorded as its cwd' }),
  title: t.String({ description: 'the first human prompt, one line, at most 120 characters ("" when none yet)' }),
  started_ts: t.String({ description: "ISO 8601: the session's first record" }),
  last_activity_ts: t.String({ description: 'ISO 8601: the session file last written' }),
  entries: t.Optional(t.Integer({ description: 'its transcript entries, when the bridge has indexed it' })),
  pane_id: t.Optional(t.String({ description: 'the live pane showing this session' })),
})

/** `?kind=` as GET /sessions and GET /search take it (kindParam reads it). */
export const kindQuery = t.Optional(t.String({ maxLength: 16, description: 'claude, pi, opencode or codex' }))

/** A query parameter that must be one of the kinds, else a 400 with `message`. */
export function kindParam(v: string | undefined): AgentKind | undefined | false {
  if (v === undefined || v === '') return undefined
  return (AGENT_KINDS as readonly string[]).includes(v) ? (v as AgentKind) : false
}

/** `limit` as text: 1..max, default `dflt`; false when it is anything else. */
export function limitParam(v: string | undefined, dflt: number, max: number): number | false {
  if (v === undefined || v === '') return dflt
  if (!/^\d{1,6}$/.test(v)) return false
  const n = Number(v)
  return n >= 1 && n <= max ? n : false
}

export function historyRoutes(ctx: Ctx) {
  const p = ctx.projects
  return new Elysia({ name: 'history' }).get(
    '/sessions',
    async ({ query, status }) => {
      const kind = kindParam(query.kind)
      if (kind === false) return status(400, 'kind: one of claude, pi, opencode, codex')
      const limit = limitParam(query.limit, SESSIONS_LIMIT_DEFAULT, SESSIONS_LIMIT_MAX)
      if (limit === false) return status(400, `limit: a whole number from 1 to ${SESSIONS_LIMIT_MAX}`)
      const before = query.before === undefined || query.before === '' ? undefined : parseCursor(query.before)
      if (before === undefined && query.before) return status(400, 'before: the `next` of the previous page, or an ISO 8601 time')
      const project = query.project === undefined || query.project === '' ? undefined : query.project
      const snap = ctx.watch.latest() ?? (await ctx.herdr.snapshot().catch(() => undefined))
      return pastSessions(await p.finder.find(), snap?.agents ?? [], p.roots, { kind, project, before, limit }, ctx.search?.entriesOf)
    },
    {
      query: t.Object({
        kind: kindQuery,
        project: t.Optional(t.String({ maxLength: 4096, description: "a project's path (as /projects and these rows name it)" })),
        before: t.Optional(t.String({ maxLength: 300, description: '`next` of the previous page, or an ISO 8601 time' })),
        limit: t.Optional(t.String({ maxLength: 8, description: `1 to ${SESSIONS_LIMIT_MAX}, default ${SESSIONS_LIMIT_DEFAULT}` })),
        machine: machineQuery('that machine answers, its live panes named LABEL/PANE'),
      }),
      response: {
        200: t.Object({
          sessions: t.Array(PastSessionSchema, { description: 'newest first (last activity)' }),
          next: t.Optional(t.String({ description: 'pass as `before` for the next page; absent on the last' })),
        }),
        ...plainTextErrors(400, 401, 403),
      },
      detail: needs('read', {
        summary: 'Every past session of the four agents, newest first',
        description:
          "The sources of GET /projects (Claude Code projects, pi sessions, codex rollouts, opencode's database), inside the project roots, every session rather than 20 per project. Filters: `kind`, `project` (exact path), `before` (the previous page's `next`, or an ISO time). 400 names the parameter that is wrong.",
        tags: ['history'],
      }),
    },
  )
}
