// The route edge, handled once (docs/bridge.md, Conventions): the `paneTarget`
// macro checks a route's pane target and looks up its agent, and herdr failures
// become statuses in app.ts's one onError, through herdrFailure. A route names
// what it targets; its 404 text ('no such agent' / 'no such pane') follows.
import { Elysia, t } from 'elysia'
import type { Ctx } from '../server/ctx'
import { herdrFor, type HerdrClient, type HerdrError } from '../herdr/client'
import type { AgentInfo } from '../herdr/types'

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
export function plainTextErrors<const Code extends number>(...codes: Code[]): Record<Code, ReturnType<typeof t.String>> {
  return Object.fromEntries(codes.map((code) => [code, t.String()])) as Record<Code, ReturnType<typeof t.String>>
}

/** Targets we pass to herdr: pane ids or agent names; nothing that could read as a flag. */
export function plausibleTarget(s: string): boolean {
  return s.length <= 64 && /^[A-Za-z0-9][A-Za-z0-9:_-]*$/.test(s)
}

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
  return new Elysia({ name: 'pane-target' }).macro({
    paneTarget: (route: TargetRoute) => ({
      resolve({ query, body, request, status }) {
        const target = targetOf(query, body)
        if (!plausibleTarget(target)) return status(404, 'no such pane')
        return { target, ...start(request, route, 'no such pane') }
      },
    }),
    agentTarget: (route: TargetRoute) => ({
      async resolve({ query, body, request, status }) {
        const target = targetOf(query, body)
        if (!plausibleTarget(target)) return status(404, 'no such agent')
        const { signal, herdr } = start(request, route, 'no such agent')
        const agent: AgentInfo = (route === 'socket' ? await ctx.watch.agentSoon(target) : undefined) ?? (await herdr.agentGet(target))
        return { target, agent, signal, herdr }
      },
    }),
  })
}
