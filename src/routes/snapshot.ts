// GET /snapshot: every pane herdr knows, one row each, in herdr's order.
import { Elysia, t } from 'elysia'
import type { Ctx } from '../server/ctx'
import { snapshotRows, SnapshotRowSchema } from '../events/rows'
import { needs } from '../auth/scopes'
import { plainTextErrors } from './edge'

export const SnapshotSchema = t.Object({
  panes: t.Array(SnapshotRowSchema),
  herdr: t.Object({ version: t.String(), protocol: t.Integer() }),
})

export function snapshotRoutes(ctx: Ctx) {
  return new Elysia({ name: 'snapshot' }).get(
    '/snapshot',
    async () => {
      // The watcher's state while it runs; else one herdr read shared by concurrent requests.
      // A snapshot names no target, so every herdr failure is 502 (routes/edge.ts).
      const snap = await ctx.watch.snapshot()
      const panes = await snapshotRows(snap, ctx.sources, ctx.log)
      // other machines' rows after this one's (none on a single machine)
      const remote = ctx.machines?.rows()
      return { panes: remote?.length ? [...panes, ...remote] : panes, herdr: { version: snap.version, protocol: snap.protocol } }
    },
    {
      response: { 200: SnapshotSchema, ...plainTextErrors(401, 502) },
      detail: needs('read', { summary: 'Every pane herdr knows, one row each', tags: ['panes'] }),
    },
  )
}
