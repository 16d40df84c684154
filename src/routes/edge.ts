// The route edge, handled once (docs/bridge.md, Conventions): the `paneTarget`
// macro checks a route's pane target and looks up its agent, and herdr failures
// become statuses in app.ts's one onError, through herdrFailure. A route names
// what it targets; its 404 text ('no such agent' / 'no such pane') follows.
import { Elysia, t } from 'elysia'
import type { Ctx } from '../server/ctx'
import { herdrFor, type HerdrClient, type HerdrError } from '../herdr/client'
import type { AgentInfo } from '../herdr/types'
import { plausibleTarget } from '../herdr/target'
import type { AuditContext } from '../audit/auditor'
import type { Principal } from '../auth/types'
import { remotePaneAnswer, type Forwarded } from '../machines/forward'

export interface Failure {
  code: 404 | 502
  body: string
}

/**
 * agent_not_found / pane_not_found → 404 with the route's `notFound`; any other
 * herdr failure → 502 with herdr's message. A route without a target (GET
 * /snapshot) has no 404: every failure is herdr's.
 */
export function herdrFailure(e: HerdrError, notFound: string | undefined): Failure {
  return e.kind === 'not_found' && notFound !== undefined ? { code: 404, body: notFound } : { code: 502, body: e.message }
}

/**
 * A route's refusals for its OpenAPI `response`: each status a plain-text body
 * (every error the bridge answers is text, docs/bridge.md Conventions).
 */
/**
 * `?machine=LABEL` on a route another machine can answer (src/machines/machine-param.ts forwards it
 * before the route runs): documented and bounded here, never read by the route itself.
 */
export const machineQuery = (answers = 'that machine answers') =>
  t.Optional(t.String({ maxLength: 32, description: `another machine (its label in GET /machines): ${answers}` }))

export function plainTextErrors<const Code extends number>(...codes: Code[]): Record<Code, ReturnType<typeof t.String>> {
  return Object.fromEntries(codes.map((code) => [code, t.String()])) as Record<Code, ReturnType<typeof t.String>>
}

export { plausibleTarget }

/**
 * A request's working life: aborted when the client goes away or when the
 * request's total deadline passes, whichever comes first. Pass it to herdrFor
 * so every herdr call of the request stops with it.
 */
export function requestSignal(request: Request, deadlineMs: number): AbortSignal {
  return AbortSignal.any([request.signal, AbortSignal.timeout(deadlineMs)])
}

/**
 * What kind of route a target belongs to. `true`: an HTTP request, its herdr calls
 * bound to the request's deadline. `'socket'`: a WebSocket upgrade, whose herdr is
 * the app's own (the socket outlives the request), and whose agent is the herdr
 * watcher's copy when it has one, or its read in flight when it just started
 * (opening more sockets, or reconnecting, costs no herdr call).
 */
export type TargetRoute = true | 'socket'

/** The target of a request: `?pane=`, or the body's `pane` (or `agent`, /approve's name for it). */
function targetOf(query: Record<string, unknown>, body: unknown): string {
  const b = (body ?? {}) as { pane?: unknown; agent?: unknown }
  const t = query.pane ?? b.pane ?? b.agent
  return typeof t === 'string' ? t : ''
}

/** A socket's upgrade has no deadline of its own. */
const NEVER = new AbortController().signal

/**
 * The 404 text of each request whose route names a target, for the onError (herdrFailure).
 * Module-level but not shared: keyed by the request, which belongs to one app, and weak.
 */
const notFoundOf = new WeakMap<Request, string>()

/** The 404 text of the route `request` went to, or undefined for a route without a target. */
export function notFoundFor(request: Request): string | undefined {
  return notFoundOf.get(request)
}

/** The forwarded answer when the target is another machine's pane. */
function remoteOf(ctx: Ctx, target: string, request: Request, body: unknown, c: object): Promise<Forwarded> | undefined {
  if (!ctx.machines) return undefined
  const principal = (c as { principal?: Principal }).principal
  return remotePaneAnswer(ctx.machines, ctx.auth, target, request, body, principal, requestSignal(request, ctx.timing.requestDeadlineMs))
}

/** A forwarded answer as the route's own early answer, with this bridge's audit row for it (an early answer skips the app's afterHandle). */
function answered(
  ctx: Ctx,
  f: Forwarded,
  c: { request: Request; query: unknown; body: unknown },
  set: { headers: Record<string, unknown> },
  status: (code: number, body: unknown) => unknown,
): never {
  ctx.audit.answered(c as AuditContext, f.status, f.status >= 200 && f.status < 300 ? f.body : undefined)
  Object.assign(set.headers, f.headers)
  return status(f.status, f.body) as never
}

/**
 * `agentTarget: 'socket'` as a function, for a socket whose pane is one of two
 * ways to name what it opens (WS /agent-transcript's ?pane= or ?session=): the
 * same 404 text for herdr's not-found, the watcher's copy first.
 */
export async function socketAgent(ctx: Ctx, request: Request, target: string): Promise<AgentInfo | undefined> {
  if (!plausibleTarget(target)) return undefined
  notFoundOf.set(request, 'no such agent')
  return (await ctx.watch.agentSoon(target)) ?? (await ctx.herdr.agentGet(target))
}

/**
 * The two macros. `paneTarget` (a pane: /send, /attach) checks the target;
 * `agentTarget` (an agent: every other route) also looks its agent up. Both name
 * the 404 text before any herdr call, so a herdr failure from the lookup or the
 * handler maps with it. A route's macros resolve in the order its options name
 * them: a check that must come before the target (/answer's text) is a macro
 * named first.
 */
export function paneTargets(ctx: Ctx) {
  const start = (request: Request, route: TargetRoute, notFound: string): { signal: AbortSignal; herdr: HerdrClient } => {
    notFoundOf.set(request, notFound)
    if (route === 'socket') return { signal: NEVER, herdr: ctx.herdr }
    const signal = requestSignal(request, ctx.timing.requestDeadlineMs)
    return { signal, herdr: herdrFor(ctx.herdr, signal) }
  }
  // a malformed target is refused before any herdr call, and a write's refusal is still its audit row
  const malformed = (c: unknown) => ctx.audit?.answered(c as AuditContext, 404)
  return new Elysia({ name: 'pane-target' }).macro({
    paneTarget: (route: TargetRoute) => ({
      async resolve({ query, body, request, status, set, ...c }) {
        const target = targetOf(query, body)
        // another machine's pane (`LABEL/PANE`): its bridge answers (src/machines/forward.ts)
        const remote = route === true ? remoteOf(ctx, target, request, body, c) : undefined
        if (remote) return answered(ctx, await remote, { request, query, body, ...c }, set, status)
        if (!plausibleTarget(target)) {
          malformed({ request, query, body, ...c })
          return status(404, 'no such pane')
        }
        return { target, ...start(request, route, 'no such pane') }
      },
    }),
    agentTarget: (route: TargetRoute) => ({
      async resolve({ query, body, request, status, set, ...c }) {
        const target = targetOf(query, body)
        const remote = route === true ? remoteOf(ctx, target, request, body, c) : undefined
        if (remote) return answered(ctx, await remote, { request, query, body, ...c }, set, status)
        if (!plausibleTarget(target)) {
          malformed({ request, query, body, ...c })
          return status(404, 'no such agent')
        }
        const { signal, herdr } = start(request, route, 'no such agent')
        const agent: AgentInfo = (route === 'socket' ? await ctx.watch.agentSoon(target) : undefined) ?? (await herdr.agentGet(target))
        return { target, agent, signal, herdr }
      },
    }),
  })
}
