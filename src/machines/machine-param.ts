// The routes that name a machine rather than a pane (docs/bridge.md "Several
// machines"): GET /projects, /dirs, /sessions and /search with `?machine=LABEL`,
// POST /agent-start with `"machine"`. Another machine's label: forwarded to its
// bridge without the field, every pane its answer names given as LABEL/PANE;
// `local` or none: this bridge.
import { Elysia } from 'elysia'
import type { Ctx } from '../server/ctx'
import { tokenOf } from '../routes/sockets'
import { hasScope } from '../auth/types'
import type { Scope } from '../auth/scopes'
import type { AuditContext } from '../audit/auditor'
import { forward, viaOf, type Forwarded } from './forward'
import { qualify } from './target'

/** the rows of an answer that name a live pane (`pane_id`), by route */
type RowsOf = (answer: Record<string, unknown>) => unknown

const ROUTES: Record<string, { method: string; scope: Scope; rows?: RowsOf }> = {
  '/projects': { method: 'GET', scope: 'read', rows: (a) => (Array.isArray(a.projects) ? a.projects.flatMap((p) => p?.sessions ?? []) : undefined) },
  '/dirs': { method: 'GET', scope: 'read' },
  '/sessions': { method: 'GET', scope: 'read', rows: (a) => a.sessions },
  '/search': { method: 'GET', scope: 'read', rows: (a) => a.results },
  '/agent-start': { method: 'POST', scope: 'start', rows: (a) => [a] },
}

/** Each row's `pane_id` (the remote's plain id) as this bridge names it: LABEL/PANE. */
function qualifyRows(rows: unknown, label: string): void {
  if (!Array.isArray(rows)) return
  for (const row of rows) {
    const r = row as { pane_id?: unknown } | null
    if (r && typeof r === 'object' && typeof r.pane_id === 'string') r.pane_id = qualify(label, r.pane_id)
  }
}

const text = (status: number, body: string) => new Response(body, { status, headers: { 'content-type': 'text/plain;charset=utf-8' } })

const asResponse = (f: Forwarded): Response =>
  f.body instanceof Uint8Array || typeof f.body === 'string'
    ? new Response(f.body as string, { status: f.status, headers: f.headers })
    : Response.json(f.body, { status: f.status, headers: f.headers })

export function machineParamRoutes(ctx: Ctx) {
  return new Elysia({ name: 'machine-param' }).onRequest(async ({ request }) => {
    const url = new URL(request.url)
    const r = ROUTES[url.pathname]
    if (!r || r.method !== request.method) return
    let label: unknown = url.searchParams.get('machine')
    let body: Record<string, unknown> | undefined
    if (request.method === 'POST') {
      // small JSON (the server caps bodies); read from a copy so the route can still parse the original
      try {
        const parsed = await request.clone().json()
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>
      } catch {}
      label = body?.machine
    }
    if (label === null || label === undefined || label === 'local') {
      // this machine's: the route answers (without a `machine` it does not take as a local one)
      return
    }
    const principal = ctx.auth.identify(
      tokenOf({ authorization: request.headers.get('authorization') ?? undefined }, { token: url.searchParams.get('token') ?? undefined }),
    )
    if (!principal) return text(401, 'unauthorized')
    if (!hasScope(principal, r.scope)) return text(403, `forbidden: needs scope ${r.scope}`)
    // merging no machine (none added, the last one removed) is knowing none: never this machine instead
    const m = typeof label === 'string' ? ctx.machines?.get(label) : undefined
    if (!m) return text(404, 'no such machine')
    url.searchParams.delete('machine')
    const forwarded = body ? (({ machine: _m, ...rest }) => rest)(body) : undefined
    const signal = AbortSignal.any([request.signal, AbortSignal.timeout(ctx.timing.requestDeadlineMs)])
    const f = await forward(m, '', new Request(url.href, { method: request.method }), forwarded, viaOf(ctx.auth, principal), signal)
    const answer = f.body as Record<string, unknown>
    if (f.status < 300 && r.rows && answer && typeof answer === 'object') qualifyRows(r.rows(answer), m.label)
    if (request.method === 'POST')
      ctx.audit.answered({ request, route: url.pathname, body, query: {}, principal } as AuditContext, f.status, f.status < 300 ? answer : undefined)
    return asResponse(f)
  })
}
