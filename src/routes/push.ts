// Web Push (docs/bridge.md "Web Push"): the VAPID public key, and the
// subscriptions of the calling device.
import { Elysia, t } from 'elysia'
import type { Ctx } from '../server/ctx'
import type { Principal } from '../auth/types'
import { PUSH_EVENTS, type PushEvent } from '../push/store'
import { needs } from '../auth/scopes'
import { plainTextErrors } from './edge'

const SubscriptionSchema = t.Object({
  id: t.String(),
  endpoint: t.String(),
  events: t.Array(t.String()),
  created_at: t.Integer({ description: 'unix ms' }),
})

const isLoopback = (host: string) => host === '127.0.0.1' || host === 'localhost' || host === '[::1]'

/** Why a PushSubscription is refused, or undefined. */
export function subscriptionProblem(s: { endpoint: string; keys: { p256dh: string; auth: string } }): string | undefined {
  let url: URL
  try {
    url = new URL(s.endpoint)
  } catch {
    return 'subscription.endpoint: not a URL'
  }
  // Push services are https; plain http only to this machine (a local stand-in).
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname))) return 'subscription.endpoint: must be https'
  const b64 = /^[A-Za-z0-9_-]+=*$/
  if (!b64.test(s.keys.p256dh) || Buffer.from(s.keys.p256dh, 'base64url').length !== 65) return 'subscription.keys.p256dh: not a P-256 public key'
  if (!b64.test(s.keys.auth) || Buffer.from(s.keys.auth, 'base64url').length !== 16) return 'subscription.keys.auth: not a 16-byte secret'
  return undefined
}

export function pushRoutes(ctx: Ctx) {
  const push = ctx.push
  const deviceOf = (p: Principal): string | undefined => (p.kind === 'device' ? p.deviceId : undefined)
  const NOT_CONFIGURED = 'push is not configured on this bridge'
  return new Elysia({ name: 'push' })
    .get('/push/vapid-public-key', ({ status }) => (push ? { key: push.publicKey } : status(503, NOT_CONFIGURED)), {
      response: {
        200: t.Object({ key: t.String({ description: 'the VAPID public key, base64url (applicationServerKey)' }) }),
        ...plainTextErrors(401, 503),
      },
      detail: needs('read', { summary: 'The VAPID public key a browser subscribes with', tags: ['push'] }),
    })
    .post(
      '/push/subscriptions',
      (c) => {
        const { body, status } = c
        if (!push) return status(503, NOT_CONFIGURED)
        const device = deviceOf((c as unknown as { principal: Principal }).principal)
        if (!device) return status(403, 'push subscriptions belong to a paired device: use a device token')
        const sub = body.subscription
        const problem = subscriptionProblem(sub)
        if (problem) return status(400, problem)
        const events = [...new Set(body.events ?? ['blocked', 'done'])] as PushEvent[]
        const id = push.store.add(device, sub.endpoint, { p256dh: sub.keys.p256dh, auth: sub.keys.auth }, events)
        push.changed()
        ctx.logger?.info('push subscribed', { device, events: events.join(',') })
        return { id }
      },
      {
        body: t.Object(
          {
            subscription: t.Object({
              endpoint: t.String({ minLength: 1, maxLength: 2048 }),
              expirationTime: t.Optional(t.Union([t.Number(), t.Null()])),
              keys: t.Object({ p256dh: t.String({ maxLength: 200 }), auth: t.String({ maxLength: 100 }) }),
            }),
            events: t.Optional(t.Array(t.Union(PUSH_EVENTS.map((e) => t.Literal(e))), { minItems: 1, maxItems: PUSH_EVENTS.length })),
          },
          { error: 'want {"subscription": <PushSubscription JSON>, "events": ["blocked","done"]}' },
        ),
        response: { 200: t.Object({ id: t.String() }), ...plainTextErrors(400, 401, 403, 503) },
        detail: needs(
          'read',
          {
            summary: 'Subscribe this device to notifications',
            description:
              'One notification per pane per change of status into one of `events` (default blocked and done). Posting the same endpoint again replaces its events.',
            tags: ['push'],
          },
          'push.subscribe',
        ),
      },
    )
    .get(
      '/push/subscriptions',
      (c) => {
        if (!push) return c.status(503, NOT_CONFIGURED)
        const p = (c as unknown as { principal: Principal }).principal
        // the admin sees every device's
        return push.store.list(deviceOf(p)).map((s) => ({ id: s.id, endpoint: s.endpoint, events: s.events, created_at: s.created_at }))
      },
      {
        response: { 200: t.Array(SubscriptionSchema), ...plainTextErrors(401, 503) },
        detail: needs('read', { summary: "This device's push subscriptions", tags: ['push'] }),
      },
    )
    .delete(
      '/push/subscriptions/:id',
      (c) => {
        if (!push) return c.status(503, NOT_CONFIGURED)
        const p = (c as unknown as { principal: Principal }).principal
        if (!push.store.remove(c.params.id, deviceOf(p))) return c.status(404, 'no such subscription')
        push.changed()
        return { deleted: true }
      },
      {
        params: t.Object({ id: t.String() }),
        response: { 200: t.Object({ deleted: t.Boolean() }), ...plainTextErrors(401, 404, 503) },
        detail: needs('read', { summary: 'Unsubscribe', tags: ['push'] }, 'push.unsubscribe'),
      },
    )
}
