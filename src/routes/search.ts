// GET /search over every past conversation (docs/bridge.md, "Every past
// conversation: history and search"). The index is src/search/; this is the edge.
import { Elysia, t } from 'elysia'
import type { Ctx } from '../server/ctx'
import { needs } from '../auth/scopes'
import { parseQuery, QUERY_MAX, TERM_MIN } from '../search/text'
import { SearchBusyError, SEARCH_WAITING_MAX, SearchResultSchema as ResultSchema } from '../search/search-index'
import { kindParam, kindQuery, limitParam } from './history'
import { machineQuery, plainTextErrors } from './edge'

export const SEARCH_LIMIT_DEFAULT = 20
export const SEARCH_LIMIT_MAX = 100

export function searchRoutes(ctx: Ctx) {
  return new Elysia({ name: 'search' }).get(
    '/search',
    async ({ query, status, set }) => {
      const started = performance.now()
      const q = query.q ?? ''
      if (q.trim() === '') return status(400, 'q: what to search for')
      if (q.length > QUERY_MAX) return status(400, `q: at most ${QUERY_MAX} characters`)
      const parsed = parseQuery(q)
      if (!parsed) return status(400, `q: a word or phrase of at least ${TERM_MIN} characters`)
      const kind = kindParam(query.kind)
      if (kind === false) return status(400, 'kind: one of claude, pi, opencode, codex')
      const limit = limitParam(query.limit, SEARCH_LIMIT_DEFAULT, SEARCH_LIMIT_MAX)
      if (limit === false) return status(400, `limit: a whole number from 1 to ${SEARCH_LIMIT_MAX}`)
      let sinceMs: number | undefined
      if (query.since) {
        sinceMs = /^\d{4}-\d{2}-\d{2}/.test(query.since) ? Date.parse(query.since) : Number.NaN
        if (!Number.isFinite(sinceMs)) return status(400, 'since: an ISO 8601 time')
      }
      const index = ctx.search
      if (!index) return status(503, 'search is not enabled')
      // the live panes as the watcher last saw them: a search never waits on herdr
      let results
      try {
        results = await index.search(parsed, { kind, project: query.project || undefined, sinceMs, limit }, ctx.watch.latest()?.agents ?? [])
      } catch (e) {
        if (!(e instanceof SearchBusyError)) throw e
        set.headers['retry-after'] = '1'
        return status(429, e.message)
      }
      const indexed = { ...index.progress(), ...(index.incomplete ? { incomplete: true as const } : {}) }
      return { results, took_ms: Math.round((performance.now() - started) * 10) / 10, indexed }
    },
    {
      query: t.Object({
        q: t.Optional(t.String({ description: `words and "quoted phrases", each at least ${TERM_MIN} characters; at most ${QUERY_MAX} characters` })),
        kind: kindQuery,
        project: t.Optional(t.String({ maxLength: 4096, description: "a project's path (exact)" })),
        since: t.Optional(t.String({ maxLength: 64, description: 'ISO 8601: only entries written since' })),
        limit: t.Optional(t.String({ maxLength: 8, description: `1 to ${SEARCH_LIMIT_MAX}, default ${SEARCH_LIMIT_DEFAULT}` })),
        machine: machineQuery('that machine answers, its live panes named LABEL/PANE'),
      }),
      response: {
        200: t.Object({
          results: t.Array(ResultSchema, { description: 'by relevance, then the newest first' }),
          took_ms: t.Number(),
          indexed: t.Object({
            files: t.Integer({ description: 'sessions indexed to their end' }),
            of: t.Integer({ description: 'sessions known' }),
            incomplete: t.Optional(t.Literal(true, { description: 'a write of the index failed (disk full): results may miss entries' })),
          }),
        }),
        ...plainTextErrors(400, 401, 403, 429, 503),
      },
      detail: needs('read', {
        summary: 'Search every past conversation',
        description:
          'Every term (a word, or a "quoted phrase") must occur in the entry, as a substring of three characters or more, case-insensitive; FTS5 syntax (`*`, `NEAR(`, `AND`, `-`, `:`) is searched as text. Over user prompts, assistant prose, tool calls\' summaries and the first 4 KiB of each tool result. While the index is built in the background, `indexed.files < indexed.of`. Searches run one at a time; past ' +
          `${SEARCH_WAITING_MAX} waiting, 429 (Retry-After: 1).`,
        tags: ['history'],
      }),
    },
  )
}
