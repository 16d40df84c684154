// The frames of WS /events (docs/bridge.md "WS /events"), one schema each: the
// AsyncAPI document and the tests use these.
import { t } from 'elysia'
import { Value } from '@sinclair/typebox/value'
import { CardSchema } from '../card/card'
import { SnapshotRowSchema } from './rows'

export const EventRowSchema = t.Composite([
  SnapshotRowSchema,
  t.Object({ card: t.Optional(CardSchema) }, { description: 'on a row that became blocked: the parsed card, with blocked and its fingerprint' }),
])

export const EventsHelloFrame = t.Object({
  type: t.Literal('hello'),
  protocol: t.Literal(1),
  epoch: t.String({ description: 'changes when the bridge restarts' }),
  seq: t.Integer({ minimum: 0, description: 'the seq of the latest event' }),
  resume: t.Union([t.Literal('ok'), t.Literal('gap'), t.Literal('new')]),
  panes: t.Optional(t.Array(EventRowSchema, { description: 'the full current list (absent with resume ok)' })),
  machines: t.Optional(
    t.Array(t.Record(t.String(), t.Unknown()), {
      description: 'with other machines merged: every machine as GET /machines lists it (this one first); absent on a single machine',
    }),
  ),
})

/** Another machine merged by this bridge changed state (online, offline, attention) or was removed. */
export const MachineEventFrame = t.Object({
  type: t.Literal('machine'),
  seq: t.Integer({ minimum: 1 }),
  machine: t.Object(
    {
      id: t.String(),
      label: t.String(),
      state: t.Optional(t.Union([t.Literal('online'), t.Literal('offline'), t.Literal('attention')])),
      removed: t.Optional(t.Literal(true)),
    },
    { additionalProperties: true, description: 'as GET /machines lists it (offline: its rows stay, with stale: true), or {id, label, removed: true}' },
  ),
})

export const PaneEventFrame = t.Object({ type: t.Literal('pane'), seq: t.Integer({ minimum: 1 }), pane: EventRowSchema })

export const PaneRemovedFrame = t.Object({ type: t.Literal('pane_removed'), seq: t.Integer({ minimum: 1 }), pane_id: t.String() })

/** Client → bridge: whether a window of the app is on screen (push stays quiet for the device while one is). */
export const VisibilityFrame = t.Object({ type: t.Literal('visibility'), visible: t.Boolean() })

/** A well-formed visibility frame (text JSON, or the object Elysia parsed it into), or undefined. */
export function asVisibility(m: unknown): { visible: boolean } | undefined {
  let v = m
  if (typeof m === 'string') {
    try {
      v = JSON.parse(m)
    } catch {
      return undefined
    }
  }
  return Value.Check(VisibilityFrame, v) ? { visible: v.visible } : undefined
}
