// The route edge's auth, in one place (docs/bridge.md "Conventions" and "Devices
// with scopes"): the token (header or ?token=), then the scope the route declares.
// A refused request's body is never read and no herdr call is made for it.
import { Elysia } from 'elysia'
import type { Ctx } from '../server/ctx'
import { tokenOf } from '../routes/sockets'
import type { AuditAction } from '../audit/actions'
import { auditOf, needOf, type RouteNeed } from './scopes'
import { hasScope, type Principal } from './types'
import { jsonObjectOf } from '../server/json-body'

/** The token of a request, from the raw Request (before Elysia has parsed anything). */
function tokenOfRequest(request: Request): string | undefined {
  const url = new URL(request.url)
  return tokenOf({ authorization: request.headers.get('authorization') ?? undefined }, { token: url.searchParams.get('token') ?? undefined })
}

/** Stands in for a body that was never read: its request was refused. */
const UNREAD_BODY = Object.freeze({ unread: true })

/** What stops a request at the edge: no token (401), or a token without the route's scope (403). */
export function refusalOf(principal: Principal | undefined, need: RouteNeed | undefined): { status: 401 | 403; text: string } | undefined {
  if (!principal) return { status: 401, text: 'unauthorized' }
  // a route that declares nothing is refused, so one added later cannot forget its scope
  if (need === undefined) return { status: 403, text: 'forbidden: this route declares no scope' }
  if (need === 'public' || need === 'token' || hasScope(principal, need)) return undefined
  return { status: 403, text: `forbidden: needs scope ${need}` }
}

/**
 * The shared auth guard: header or ?token=, then the route's scope (its declared
 * `security`, read through `needOf`). Elysia parses a body before any transform,
 * so the parse hook checks first and leaves the body of a refused request unread;
 * the transform then answers 401/403 before schema validation can answer 400, and
 * before any route's macro calls herdr. A socket is checked at its upgrade.
 * A write's body that is let through is read here once: kept for the audit (the
 * digest of one that fails validation), and taken only as a JSON object sent as
 * JSON. A refusal is audited: a row for a token without the scope, a count for
 * no valid token.
 */
export function authGuard(ctx: Ctx, declared: (request: Request, route: string) => Declared | undefined) {
  const needOfRoute = (request: Request, route: string) => declared(request, route)?.need
  return new Elysia({ name: 'auth-guard' })
    .onParse({ as: 'scoped' }, async ({ request, route }, contentType: string) => {
      const d = declared(request, route)
      // refused, or a route that reads its own body (an upload): nothing is parsed
      if (refusalOf(ctx.auth.identify(tokenOfRequest(request)), d?.need) || d?.rawBody) return UNREAD_BODY
      if (!d?.audit || !request.body) return
      // a write's body, as it came (at most 64 KiB): one that fails validation is audited as its digest
      const raw = new Uint8Array(await request.clone().arrayBuffer())
      ctx.audit?.received(request, raw)
      if (raw.length > 0) return jsonObjectOf(raw, contentType)
    })
    .derive({ as: 'scoped' }, ({ headers, query, status, set, request, route }) => {
      const principal = ctx.auth.identify(tokenOf(headers, query as Record<string, unknown>))
      const refused = refusalOf(principal, needOfRoute(request, route))
      if (refused) {
        set.headers['content-type'] = 'text/plain;charset=utf-8'
        ctx.audit?.refused(request, route, principal, refused.status)
        return status(refused.status, refused.text)
      }
      return { principal: principal as Principal }
    })
}

/** What a route declares: the scope it needs, and the audit action of a write. */
export interface Declared {
  need: RouteNeed | undefined
  audit: AuditAction | undefined
  /** the route reads its body itself, capped (POST /attachments) */
  rawBody: boolean
}

/** The OpenAPI extension a route sets when it reads its own body. */
export const RAW_BODY_KEY = 'x-gothalo-raw-body'

type RouteLike = { method: string; path: string; hooks?: { detail?: unknown } }

/**
 * Looks up what the route a request reached declares, from the app's routes (read
 * once, at the first request, when every route is mounted). A WebSocket upgrade
 * arrives as GET on a route Elysia lists as WS.
 */
export function declarations(routes: () => RouteLike[]): (request: Request, route: string) => Declared | undefined {
  let table: Map<string, Declared> | undefined
  return (request, route) => {
    table ??= new Map(
      routes().map((r) => [
        `${r.method} ${r.path}`,
        {
          need: needOf(r.hooks?.detail),
          audit: auditOf(r.hooks?.detail),
          rawBody: (r.hooks?.detail as Record<string, unknown> | undefined)?.[RAW_BODY_KEY] === true,
        },
      ]),
    )
    const method = request.method === 'HEAD' ? 'GET' : request.method
    return table.get(`${method} ${route}`) ?? (method === 'GET' ? table.get(`WS ${route}`) : undefined)
  }
}
