// Writes the audit row of each write request at the route edge: when the
// handler answered (the app's afterHandle), when it failed (its onError), or when
// the guard refused it (403). The route's declaration says which action it is.
import type { Principal } from '../auth/types'
import { AUDIT_ACTIONS, type AuditAction, type AuditInput, paneOf } from './actions'
import type { AuditLog, NewAuditRow } from './log'

export interface AuditContext {
  request: Request
  route: string
  body?: unknown
  params?: Record<string, string | undefined>
  query?: Record<string, unknown>
  principal?: Principal
}

const whoIs = (p: Principal | undefined): string => (p ? (p.kind === 'admin' ? 'admin' : p.deviceId) : '-')
const asRecord = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {})

/**
 * A home bridge forwarding a phone's request (docs/bridge.md "Several machines") names the phone's device
 * in X-Gothalo-Via; the row keeps it beside the home bridge's own device id. Only a device token's, printable, cut.
 */
export function viaOf(request: Request | undefined, principal: Principal | undefined): string | undefined {
  const v = request?.headers.get('x-gothalo-via')
  if (!v || principal?.kind !== 'device') return undefined
  return v.replace(/[^\x20-\x7e]/g, '?').slice(0, 100)
}

export class Auditor {
  /** requests already recorded (a refusal, then its error answer, is one row) */
  private readonly done = new WeakSet<Request>()

  constructor(
    readonly log: AuditLog,
    private readonly actionOf: (request: Request, route: string) => AuditAction | undefined,
    private readonly warn: (m: string) => void,
  ) {}

  /** The request was answered with `status`; `response` is the handler's answer on success. */
  answered(c: AuditContext, status: number, response?: unknown): void {
    const action = c.route ? this.actionOf(c.request, c.route) : undefined
    if (!action || this.done.has(c.request)) return
    this.done.add(c.request)
    const input: AuditInput = { body: asRecord(c.body), params: c.params ?? {}, query: asRecord(c.query), response }
    let device = whoIs(c.principal)
    // a pairing is the new device's own row
    if (action === 'pair' && status === 200 && response) device = String((response as { device_id?: unknown }).device_id)
    const via = viaOf(c.request, c.principal)
    const detail = AUDIT_ACTIONS[action](input)
    this.write({ device_id: device, action, pane: paneOf(input), detail: via ? { ...detail, via } : detail, status })
  }

  /** The guard refused the request (its body is unread: the row has no detail). */
  refused(request: Request, route: string, principal: Principal): void {
    const action = this.actionOf(request, route)
    if (!action || this.done.has(request)) return
    this.done.add(request)
    const url = new URL(request.url)
    this.write({ device_id: whoIs(principal), action, pane: url.searchParams.get('pane')?.slice(0, 64) ?? null, detail: {}, status: 403 })
  }

  /** A row written by a route itself (a terminal session, at its end). */
  write(row: NewAuditRow): void {
    try {
      this.log.record(row)
    } catch (e) {
      // the action happened: a busy or broken database must not turn it into a failed request
      this.warn(`audit: could not record ${row.action}: ${(e as Error).message}`)
    }
  }
}
