// Writes the audit row of each write request at the route edge: when the
// handler answered (the app's afterHandle), when it failed (its onError), when
// the guard refused it (403), or when a check before the handler refused it (a
// malformed target). The route's declaration says which action it is. A request
// without a valid token is counted (AuditLog.count), never a row of its own; a
// body that failed validation is kept as its length and SHA-256.
import type { Principal } from '../auth/types'
import { plausibleTarget } from '../herdr/target'
import { AUDIT_ACTIONS, type AuditAction, type AuditInput, bodyDigest, paneOf } from './actions'
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
  /** each write's body as received (at most 64 KiB), for the digest of one that fails validation */
  private readonly bodies = new WeakMap<Request, Uint8Array>()

  constructor(
    readonly log: AuditLog,
    private readonly actionOf: (request: Request, route: string) => AuditAction | undefined,
    private readonly warn: (m: string) => void,
    /** the client's address, for counting requests without a valid token */
    private readonly addressOf: (request: Request) => string = () => 'unknown',
  ) {}

  /** A write's body as it arrived, before parsing (the auth guard's parse hook). */
  received(request: Request, raw: Uint8Array): void {
    this.bodies.set(request, raw)
  }

  /**
   * The request was answered with `status`; `response` is the handler's answer on
   * success. `invalid`: its body failed to parse or validate (kept as a digest).
   */
  answered(c: AuditContext, status: number, response?: unknown, invalid = false): void {
    const action = c.route ? this.actionOf(c.request, c.route) : undefined
    if (!action || this.done.has(c.request)) return
    this.done.add(c.request)
    // without a valid token (a failed pairing): counted, so a flood adds nothing but a count
    if (!c.principal && (status < 200 || status >= 300)) {
      this.count(c.request, action, status)
      return
    }
    const input: AuditInput = { body: asRecord(c.body), params: c.params ?? {}, query: asRecord(c.query), response, status }
    let device = whoIs(c.principal)
    if (invalid) {
      const target = paneOf(input)
      const raw = this.bodies.get(c.request) ?? (c.body === undefined ? '' : typeof c.body === 'string' ? c.body : JSON.stringify(c.body))
      this.write({
        device_id: device,
        action,
        pane: target !== null && plausibleTarget(target) ? target : null,
        detail: { invalid_body: bodyDigest(raw) },
        status,
      })
      return
    }
    // a pairing is the new device's own row
    if (action === 'pair' && status === 200 && response) device = String((response as { device_id?: unknown }).device_id)
    const via = viaOf(c.request, c.principal)
    const detail = AUDIT_ACTIONS[action](input)
    this.write({ device_id: device, action, pane: paneOf(input), detail: via ? { ...detail, via } : detail, status })
  }

  /** The guard refused the request (its body is unread: the row has no detail); without a valid token, it is counted. */
  refused(request: Request, route: string, principal: Principal | undefined, status: number): void {
    const action = this.actionOf(request, route)
    if (!action || this.done.has(request)) return
    this.done.add(request)
    if (!principal) {
      this.count(request, action, status)
      return
    }
    const url = new URL(request.url)
    this.write({ device_id: whoIs(principal), action, pane: url.searchParams.get('pane')?.slice(0, 64) ?? null, detail: {}, status })
  }

  /** Whether the request already has its row (or its count). */
  recorded(request: Request): boolean {
    return this.done.has(request)
  }

  /** A row written by a route itself (a terminal session, at its end). */
  write(row: NewAuditRow): void {
    this.safely(row.action, () => this.log.record(row))
  }

  private count(request: Request, action: AuditAction, status: number): void {
    this.safely(action, () => this.log.count({ address: this.addressOf(request), action, status }))
  }

  private safely(action: string, f: () => void): void {
    try {
      f()
    } catch (e) {
      // the action happened: a busy or broken database must not turn it into a failed request
      this.warn(`audit: could not record ${action}: ${(e as Error).message}`)
    }
  }
}
