// Maps herdr failures to the bridge's statuses (docs/bridge.md, Conventions).
import { HerdrError } from '../herdr/client'

export interface Failure {
  code: 404 | 502
  body: string
}

/** agent_not_found → 404 with `notFound`; any other herdr failure → 502 with herdr's message. */
export function herdrFailure(e: unknown, notFound = 'no such agent'): Failure {
  if (e instanceof HerdrError) return e.kind === 'not_found' ? { code: 404, body: notFound } : { code: 502, body: e.message }
  throw e
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
