// Pairing over HTTP (docs/bridge.md "Pairing"): the admin makes a one-time code, a
// phone redeems it for its own token, and devices can be listed and revoked.
import { Elysia, t } from 'elysia'
import type { Ctx } from '../ctx'
import type { Principal } from '../auth/types'
import { deviceNameProblem } from '../auth/store'

const TEXT = 'text/plain;charset=utf-8'
const PAIR_BODY_ERROR = 'want {"code","device_name"}'
const NAME_ERROR = 'device_name: 1..100 characters, no control characters'

const PlainText = t.String({ description: 'plain-text error' })

// Every field carries the message too: Elysia reports a nested failure with the field's own `error`.
const PairBody = t.Object(
  {
    code: t.String({ minLength: 1, maxLength: 64, examples: ['K7QX-2M9D'], error: PAIR_BODY_ERROR }),
    device_name: t.String({
      minLength: 1,
      maxLength: 100,
      pattern: '^[^\\u0000-\\u001f\\u007f-\\u009f]+$',
      examples: ['Pixel 9'],
      // a missing or non-string name is a malformed body; a string that breaks the rules is a bad name
      error: ({ found }: { found?: unknown }) => (typeof (found as { device_name?: unknown } | null)?.device_name === 'string' ? NAME_ERROR : PAIR_BODY_ERROR),
    }),
  },
  { error: PAIR_BODY_ERROR },
)

const PairResult = t.Object({
  device_id: t.String(),
  token: t.String({ description: 'the device token; shown once, stored only as a hash' }),
})

const PairCodeResult = t.Object({
  code: t.String({ examples: ['K7QX-2M9D'] }),
  expires_at: t.Number({ description: 'unix ms; single use, 10 minutes' }),
})

const DeviceRow = t.Object({
  device_id: t.String(),
  name: t.String(),
  created_at: t.Number({ description: 'unix ms' }),
  last_seen_at: t.Union([t.Number(), t.Null()], { description: 'unix ms, updated at most once a minute' }),
})

type Setter = { headers: Record<string, string | number> }

/** POST /pair: the one pairing route that needs no token. Mount before the auth guard. */
export function publicPairingRoutes(ctx: Ctx) {
  return new Elysia({ name: 'pairing-public' }).post(
    '/pair',
    ({ body, request, server, set, status }) => {
      set.headers['content-type'] = TEXT // for the error answers; JSON bodies set their own
      if (deviceNameProblem(body.device_name)) return status(400, NAME_ERROR)
      let address = 'unknown'
      try {
        address = server?.requestIP(request)?.address || 'unknown'
      } catch {
        // no socket behind this request (app.handle in tests)
      }
      const r = ctx.auth.redeem(body.code, body.device_name, address)
      if (r.ok) {
        ctx.logger?.info('device paired', { device: r.device_id, name: body.device_name, address })
        delete set.headers['content-type']
        return { device_id: r.device_id, token: r.token }
      }
      ctx.logger?.warn('pairing refused', { reason: r.reason, address })
      if (r.reason === 'rate_limited') return status(429, 'too many attempts')
      return status(403, 'invalid or expired code')
    },
    {
      body: PairBody,
      response: { 200: PairResult, 400: PlainText, 403: PlainText, 429: PlainText },
      detail: {
        summary: 'Redeem a one-time pairing code for a device token (no auth)',
        description:
          'Wrong, used or expired code: 403 `invalid or expired code`. Every wrong code counts against every live code, and a code dies after 5 of them (make a new one). After 5 failures from one address, or 30 from everyone, in 10 minutes, wrong codes get 429 `too many attempts` until the window passes; a live right code is always accepted. Counters are kept in the database, so a restart does not reset them.',
        tags: ['pairing'],
        security: [], // the one pairing route a phone calls before it has a token
      },
    },
  )
}

/**
 * POST /pair/code, GET /devices, DELETE /devices/:id. Mount after the auth
 * guard, which puts `principal` on the context. Without one they answer 401,
 * so a mounting mistake fails closed.
 */
export function pairingRoutes(ctx: Ctx) {
  const principalOf = (c: unknown) => (c as { principal?: Principal }).principal
  return new Elysia({ name: 'pairing' })
    .post(
      '/pair/code',
      (c) => {
        const p = principalOf(c)
        ;(c.set as Setter).headers['content-type'] = TEXT
        if (!p) return c.status(401, 'unauthorized')
        if (p.kind !== 'admin') return c.status(403, 'admin only')
        delete (c.set as Setter).headers['content-type']
        const code = ctx.auth.createPairCode()
        // the code itself is a secret until redeemed: only its expiry is logged
        ctx.logger?.info('pair code made', { expires_at: new Date(code.expires_at).toISOString() })
        return code
      },
      {
        response: { 200: PairCodeResult, 401: PlainText, 403: PlainText },
        detail: { summary: 'Make a one-time pairing code (admin)', tags: ['pairing'] },
      },
    )
    .get(
      '/devices',
      (c) => {
        if (!principalOf(c)) {
          ;(c.set as Setter).headers['content-type'] = TEXT
          return c.status(401, 'unauthorized')
        }
        return ctx.auth.listDevices()
      },
      {
        response: { 200: t.Array(DeviceRow), 401: PlainText },
        detail: { summary: 'List paired devices', tags: ['pairing'] },
      },
    )
    .delete(
      '/devices/:id',
      (c) => {
        const p = principalOf(c)
        ;(c.set as Setter).headers['content-type'] = TEXT
        if (!p) return c.status(401, 'unauthorized')
        if (p.kind !== 'admin') return c.status(403, 'admin only')
        if (!ctx.auth.revoke(c.params.id)) return c.status(404, 'no such device')
        delete (c.set as Setter).headers['content-type']
        return { revoked: true as const }
      },
      {
        params: t.Object({ id: t.String({ minLength: 1, maxLength: 200, error: 'want /devices/<device_id>' }) }),
        response: { 200: t.Object({ revoked: t.Literal(true) }), 401: PlainText, 403: PlainText, 404: PlainText },
        detail: {
          summary: 'Revoke a paired device (admin); its open sockets close',
          tags: ['pairing'],
        },
      },
    )
}
