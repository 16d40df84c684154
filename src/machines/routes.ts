// GET /machines (docs/bridge.md "Several machines from one phone"): this machine
// first (`local`), then each merged machine with its state.
import { Elysia, t } from 'elysia'
import type { Ctx } from '../server/ctx'
import { needs } from '../auth/scopes'
import { plainTextErrors } from '../routes/edge'

export const MachineSchema = t.Object({
  id: t.String({ description: '`local` for this machine, else the label' }),
  label: t.String(),
  target: t.Optional(t.String({ description: 'how this bridge reaches it: ssh://…, https://… or a loopback http:// URL' })),
  state: t.Union([t.Literal('online'), t.Literal('offline'), t.Literal('attention')], {
    description: 'attention: the remote refused this bridge (token revoked, scope missing) or ssh cannot connect (host key, auth); `error` says which',
  }),
  last_seen: t.Optional(t.Number({ description: 'unix ms: now while online, else when it was last heard' })),
  error: t.Optional(t.String()),
  version: t.Optional(t.String({ description: "the machine's gothalo version" })),
  panes: t.Integer({ description: 'its panes (an offline machine: as last heard)' }),
})

export function machinesRoutes(ctx: Ctx) {
  return new Elysia({ name: 'machines' }).get(
    '/machines',
    () => ({
      machines: ctx.machines?.list() ?? [
        { id: 'local', label: 'local', state: 'online' as const, last_seen: ctx.clock(), version: ctx.version, panes: ctx.watch.latest()?.panes.length ?? 0 },
      ],
    }),
    {
      response: { 200: t.Object({ machines: t.Array(MachineSchema) }), ...plainTextErrors(401, 403) },
      detail: needs('read', {
        summary: 'This machine and the others this bridge merges, with their states',
        description:
          'Other machines are added with `gothalo machines add LABEL TARGET --code CODE`; their panes appear in /snapshot and WS /events as `LABEL/PANE` with `machine: LABEL`.',
        tags: ['machines'],
      }),
    },
  )
}
