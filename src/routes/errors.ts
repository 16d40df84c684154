// Maps herdr failures to the bridge's statuses (bridge.md, Conventions).
import { HerdrError } from '../herdr/client'

/** A plain-text error response. */
export function text(status: number, body: string): Response {
  return new Response(body, { status, headers: { 'content-type': 'text/plain;charset=utf-8' } })
}

/** agent_not_found → 404 with `notFound`; any other herdr failure → 502 with herdr's message. */
export function herdrFailure(e: unknown, notFound = 'no such agent'): Response {
  if (e instanceof HerdrError) return e.kind === 'not_found' ? text(404, notFound) : text(502, e.message)
  throw e
}

/** Targets we pass to herdr: pane ids or agent names; nothing that could read as a flag. */
export function plausibleTarget(s: string): boolean {
  return s.length <= 64 && /^[A-Za-z0-9][A-Za-z0-9:_-]*$/.test(s)
}
