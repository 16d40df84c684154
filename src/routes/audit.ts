// GET /audit (docs/bridge.md "Devices with scopes, and an audit log"): the audit
// log, newest first, for the admin.
import { Elysia, t } from 'elysia'
import type { Ctx } from '../server/ctx'
import { needs } from '../auth/scopes'
import { plainTextErrors } from './edge'

export const AuditRowSchema = t.Object({
  id: t.Integer(),
  ts: t.Integer({ description: 'unix ms' }),
  device_id: t.String({ description: 'the device; `admin` for the admin token, `cli` for the command line, `-` for requests without a valid token' }),
  action: t.String({
    description:
      'approve, answer, send, attach, mode.cycle, terminal, agent.start, agent.stop, pair.code, pair, device.revoke, push.subscribe, push.unsubscribe; `unauthenticated`: requests without a valid token from one address in one minute, counted (`detail`: address, count, last_ts, requests by action and status)',
  }),
  pane: t.Union([t.String(), t.Null()]),
  detail: t.Record(t.String(), t.Unknown(), {
    description:
      'what was done, at most 2 KiB; typed text only as {length, sha256}, answers as positions and the fingerprint, a terminal session as the bytes typed; a body that failed validation as `invalid_body` {length, sha256}, never verbatim',
  }),
  status: t.Integer({ description: 'the HTTP status answered (101: a terminal session that opened)' }),
})

const QUERY_ERROR = 'want ?since=<unix ms>&limit=<1..1000>'

export function auditRoutes(ctx: Ctx) {
  return new Elysia({ name: 'audit' }).get('/audit', ({ query }) => ({ rows: ctx.audit.log.list({ since: query.since, limit: query.limit }) }), {
    query: t.Object(
      {
        since: t.Optional(t.Integer({ minimum: 0, description: 'unix ms: rows from then on', error: QUERY_ERROR })),
        limit: t.Optional(
          t.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'at most this many rows (default 100, at most 1000)', error: QUERY_ERROR }),
        ),
      },
      { error: QUERY_ERROR },
    ),
    response: { 200: t.Object({ rows: t.Array(AuditRowSchema) }), ...plainTextErrors(400, 401, 403) },
    detail: needs('admin', {
      summary: 'The audit log: every write taken from a phone or the admin token, newest first',
      description:
        'Kept 90 days, at most 100,000 rows (at most 10,000 of them `unauthenticated` counts). `gothalo audit` prints the same from the shell, every field escaped.',
      tags: ['pairing'],
    }),
  })
}
