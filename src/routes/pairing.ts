// Pairing over HTTP (docs/bridge.md "Pairing"): the admin makes a one-time code, a
// phone redeems it for its own token, and devices can be listed and revoked.
import { Elysia, ParseError, t } from 'elysia'
import { BodyNotAJsonObject } from '../server/json-body'
import type { Ctx } from '../server/ctx'
import type { Principal } from '../auth/types'
import { deviceNameProblem } from '../auth/store'
import { DEFAULT_SCOPES, SCOPES, ScopeSchema, anyToken, needs, publicRoute } from '../auth/scopes'

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
  scopes: t.Array(ScopeSchema, { description: 'what this device may do (the code decided)' }),
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
  scopes: t.Array(ScopeSchema, { description: 'what the device may do' }),
})

const PAIR_CODE_BODY_ERROR = 'want {"scopes"?: ["read", …]}'

const PairCodeBody = t.Optional(
  t.Object(
    {
      scopes: t.Optional(
        t.Array(ScopeSchema, {
          minItems: 1,
          maxItems: SCOPES.length,
          uniqueItems: true,
          error: `scopes: a list of ${SCOPES.join(', ')}, at least one, no repeats`,
        }),
      ),
    },
    { error: PAIR_CODE_BODY_ERROR },
  ),
)

const Me = t.Object({
  device_id: t.Union([t.String(), t.Null()], { description: 'null for the admin token' }),
  name: t.String(),
  scopes: t.Array(ScopeSchema),
})

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
        return { device_id: r.device_id, token: r.token, scopes: ctx.auth.device(r.device_id)?.scopes ?? [] }
      }
      ctx.logger?.warn('pairing refused', { reason: r.reason, address })
      if (r.reason === 'rate_limited') return status(429, 'too many attempts')
      return status(403, 'invalid or expired code')
    },
    {
      body: PairBody,
      response: { 200: PairResult, 400: PlainText, 403: PlainText, 429: PlainText },
      detail: publicRoute(
        {
          summary: 'Redeem a one-time pairing code for a device token (no auth)',
          description:
            'Wrong, used or expired code: 403 `invalid or expired code`. Every wrong code counts against every live code, and a code dies after 5 of them (make a new one). After 5 failures from one address, or 30 from everyone, in 10 minutes, wrong codes get 429 `too many attempts` until the window passes; a live right code is always accepted. Counters are kept in the database, so a restart does not reset them.',
          tags: ['pairing'],
        },
        'pair',
      ), // the one pairing route a phone calls before it has a token
    },
  )
}

/**
 * POST /pair/code, GET /devices, GET /devices/me, DELETE /devices/:id. Mount
 * after the auth guard, which checks the token and each route's scope and puts
 * `principal` on the context.
 */
export function pairingRoutes(ctx: Ctx) {
  const principalOf = (c: unknown) => (c as { principal: Principal }).principal
  return new Elysia({ name: 'pairing' })
    .post(
      '/pair/code',
      (c) => {
        const scopes = c.body?.scopes ?? DEFAULT_SCOPES
        const code = ctx.auth.createPairCode(scopes)
        // the code itself is a secret until redeemed: only its expiry and scopes are logged
        ctx.logger?.info('pair code made', { expires_at: new Date(code.expires_at).toISOString(), scopes: scopes.join(',') })
        return { ...code, scopes: [...scopes] }
      },
      {
        // a misspelt key ("scope") is refused, never a code with the default scopes (checked before validation drops unknown keys)
        transform({ body }) {
          if (body && typeof body === 'object' && Object.keys(body).some((k) => k !== 'scopes'))
            throw new ParseError(new BodyNotAJsonObject(PAIR_CODE_BODY_ERROR))
        },
        body: PairCodeBody,
        response: { 200: t.Composite([PairCodeResult, t.Object({ scopes: t.Array(ScopeSchema) })]), 400: PlainText, 401: PlainText, 403: PlainText },
        detail: needs(
          'admin',
          {
            summary: 'Make a one-time pairing code',
            description: `The device that redeems it gets \`scopes\` (default: every scope but \`admin\`: ${DEFAULT_SCOPES.join(', ')}).`,
            tags: ['pairing'],
          },
          'pair.code',
        ),
      },
    )
    .get('/devices', () => ctx.auth.listDevices(), {
      response: { 200: t.Array(DeviceRow), 401: PlainText, 403: PlainText },
      detail: needs('admin', { summary: 'List paired devices, with their scopes', tags: ['pairing'] }),
    })
    .get(
      '/devices/me',
      (c) => {
        const p = principalOf(c)
        if (p.kind === 'admin') return { device_id: null, name: 'admin', scopes: [...SCOPES] }
        const d = ctx.auth.device(p.deviceId)
        return { device_id: p.deviceId, name: d?.name ?? '', scopes: p.scopes }
      },
      {
        response: { 200: Me, 401: PlainText },
        detail: anyToken({
          summary: 'The calling device and its scopes',
          description: 'Any token: a phone reads what it may do, and hides the rest.',
          tags: ['pairing'],
        }),
      },
    )
    .delete(
      '/devices/:id',
      (c) => {
        if (!ctx.auth.revoke(c.params.id)) return c.status(404, 'no such device')
        return { revoked: true as const }
      },
      {
        params: t.Object({ id: t.String({ minLength: 1, maxLength: 200, error: 'want /devices/<device_id>' }) }),
        response: { 200: t.Object({ revoked: t.Literal(true) }), 401: PlainText, 403: PlainText, 404: PlainText },
        detail: needs(
          'admin',
          {
            summary: 'Revoke a paired device; its open sockets close',
            tags: ['pairing'],
          },
          'device.revoke',
        ),
      },
    )
}
