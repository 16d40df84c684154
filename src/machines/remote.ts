// One remote machine, as this (home) bridge holds it: the one WS /events to its
// bridge, whatever the number of phones, its rows qualified (`LABEL/PANE`,
// `machine: LABEL`), and its state: online, offline (rows kept, `stale: true`) or
// attention (the remote refused this bridge's token, or ssh cannot connect).
// Reconnects with backoff; every change reaches the hub through `publish`.
import { readCapped, textUpTo } from '../server/capped-body'
import type { EventRow, HubEvent, UnnumberedEvent } from '../events/hub'
import type { Fields } from '../server/log'
import { parseTarget, qualify } from './target'
import type { StoredMachine } from './store'
import { openTunnel, type TunnelOptions } from './ssh'

export type MachineState = 'online' | 'offline' | 'attention'

export interface MachineInfo {
  id: string
  label: string
  target?: string
  state: MachineState
  last_seen?: number
  error?: string
  version?: string
  panes: number
}

export interface RemoteOptions {
  publish: (e: UnnumberedEvent, before?: EventRow) => void
  log: (line: string, fields?: Fields) => void
  clock: () => number
  /** reconnect backoff: first wait, doubling to the last (spec: 1 s → 60 s) */
  backoffMs: { min: number; max: number }
  tunnel?: TunnelOptions
}

/** Who asks, for the remote's audit row: the phone's device name, through the home bridge. */
export const VIA_HEADER = 'x-gothalo-via'

export class RemoteMachine {
  state: MachineState = 'offline'
  error: string | undefined
  version: string | undefined
  lastSeen: number | undefined
  /** where the remote bridge answers now (the tunnel's local end for ssh); undefined while unreachable */
  base: string | undefined
  private readonly rowsById = new Map<string, EventRow>()
  private ws: WebSocket | undefined
  private since: { epoch: string; seq: number } | undefined
  private wait: number
  private timer: ReturnType<typeof setTimeout> | undefined
  private closeTunnel: (() => void) | undefined
  private closed = false
  /** sockets relayed to this machine (src/machines/relay.ts): closed with it */
  readonly relays = new Set<() => void>()

  constructor(
    readonly stored: StoredMachine,
    private readonly o: RemoteOptions,
  ) {
    this.wait = o.backoffMs.min
  }

  get label(): string {
    return this.stored.label
  }

  start(): void {
    void this.connect()
  }

  /** Stops for good: the socket, the tunnel, the retries. Its rows are the caller's to retract. */
  close(): void {
    this.closed = true
    for (const end of [...this.relays]) end()
    clearTimeout(this.timer)
    this.ws?.close(1000, 'machine removed')
    this.closeTunnel?.()
  }

  info(): MachineInfo {
    const i: MachineInfo = { id: this.label, label: this.label, target: this.stored.target, state: this.state, panes: this.rowsById.size }
    const seen = this.state === 'online' ? this.o.clock() : this.lastSeen
    if (seen !== undefined) i.last_seen = seen
    if (this.error) i.error = this.error
    if (this.version) i.version = this.version
    return i
  }

  rows(): EventRow[] {
    const rows = [...this.rowsById.values()]
    return this.state === 'online' ? rows : rows.map((r) => ({ ...r, stale: true }))
  }

  /** Every row's removal (the machine was removed from the store). */
  retract(): void {
    for (const [id, prev] of [...this.rowsById]) {
      this.rowsById.delete(id)
      this.o.publish({ type: 'pane_removed', pane_id: id }, prev)
    }
  }

  /** The headers a request to the remote carries: this bridge's token there, and who asked. */
  headers(via?: string): Record<string, string> {
    const h: Record<string, string> = { authorization: `Bearer ${this.stored.token}` }
    if (via) h[VIA_HEADER] = via
    return h
  }

  private setState(state: MachineState, error?: string): void {
    const was = this.state
    const wasError = this.error
    if (state !== 'online' && was === 'online') this.lastSeen = this.o.clock()
    this.state = state
    this.error = error
    if (state === 'online') this.wait = this.o.backoffMs.min
    if (was === state && wasError === error) return
    if (state !== 'online') this.o.log(`machine ${this.label}: ${state}${error ? `: ${error}` : ''}`, { machine: this.label, state, error })
    this.o.publish({ type: 'machine', machine: { ...this.info() } })
  }

  private retry(): void {
    if (this.closed) return
    clearTimeout(this.timer)
    this.timer = setTimeout(() => void this.connect(), this.wait)
    this.wait = Math.min(this.o.backoffMs.max, this.wait * 2)
  }

  private async open(): Promise<string | { attention: string }> {
    if (this.base) return this.base
    const t = parseTarget(this.stored.target)
    if ('error' in t) return { attention: t.error }
    if (t.kind === 'http') return t.url
    const tunnel = await openTunnel(t, this.o.tunnel)
    if (!tunnel.ok) return { attention: `ssh: ${tunnel.error}` }
    // closed (removed, the bridge stopping) while ssh was connecting: nothing else would end it
    if (this.closed) {
      tunnel.close()
      return { attention: 'machine removed' }
    }
    this.closeTunnel = tunnel.close
    void tunnel.exited.then((why) => {
      if (this.closeTunnel !== tunnel.close) return
      this.closeTunnel = undefined
      this.base = undefined
      if (!this.closed) this.setState('offline', `ssh: ${why}`)
    })
    return tunnel.base
  }

  private async connect(): Promise<void> {
    if (this.closed) return
    const base = await this.open()
    if (this.closed) return
    if (typeof base !== 'string') {
      this.setState('attention', base.attention)
      return this.retry()
    }
    this.base = base
    if (!this.version) await this.readVersion()
    if (this.closed) return
    const url = `${base.replace(/^http/, 'ws')}/events${this.since ? `?since=${this.since.epoch}:${this.since.seq}` : ''}`
    let opened = false
    const ws = new WebSocket(url, { headers: this.headers() } as unknown as string[])
    this.ws = ws
    ws.onopen = () => {
      opened = true
    }
    ws.onmessage = (m) => {
      if (this.ws !== ws) return
      try {
        this.onFrame(JSON.parse(String(m.data)))
      } catch (e) {
        this.o.log(`machine ${this.label}: bad frame: ${(e as Error).message}`)
        ws.close(1002, 'bad frame')
      }
    }
    ws.onclose = () => {
      if (this.ws !== ws || this.closed) return
      this.ws = undefined
      void (async () => {
        // Why: a socket that never opened was refused (a revoked token, a missing scope) or not reached.
        const why = opened ? undefined : await this.probe(base)
        if (why && 'attention' in why) this.setState('attention', why.attention)
        else this.setState('offline', why?.offline ?? 'connection closed')
        this.retry()
      })()
    }
  }

  /** Why the remote's socket did not open: its answer to an authenticated request, or the network's. */
  private async probe(base: string): Promise<{ attention: string } | { offline: string }> {
    try {
      const r = await fetch(`${base}/devices/me`, { headers: this.headers(), signal: AbortSignal.timeout(5000) })
      if (r.status === 401) return { attention: "the remote bridge refused this bridge's token (revoked there?): pair again with gothalo machines remove/add" }
      if (r.status === 403) return { attention: `the remote bridge refused: ${(await textUpTo(r, 200)).slice(0, 200)}` }
      if (r.ok && !(await grantsRead(r))) {
        // paired there with --scopes that leave out read: its /events refuses this bridge until paired again
        return { attention: 'the remote bridge did not grant this bridge the read scope: pair again with a code from gothalo pair --scopes read,…' }
      }
      await r.body?.cancel().catch(() => {})
      return { offline: `the remote's /events did not open (${r.status})` }
    } catch (e) {
      return { offline: `unreachable: ${(e as Error).message}` }
    }
  }

  private qualified(row: EventRow): EventRow {
    const { machine: _m, stale: _s, ...rest } = row as EventRow & { machine?: string; stale?: boolean }
    return { ...rest, pane_id: qualify(this.label, row.pane_id), machine: this.label }
  }

  private onFrame(f: HubEvent | { type: 'hello'; epoch: string; seq: number; resume: string; panes?: EventRow[] }): void {
    if (f.type === 'hello') {
      this.since = { epoch: f.epoch, seq: f.seq }
      this.setState('online')
      if (f.resume === 'ok' || !f.panes) return
      // the full list: what changed since the rows we kept (a reconnect), in the remote's order
      const next = new Map(f.panes.map((r) => [qualify(this.label, r.pane_id), this.qualified(r)]))
      for (const [id, prev] of [...this.rowsById]) {
        if (next.has(id)) continue
        this.rowsById.delete(id)
        this.o.publish({ type: 'pane_removed', pane_id: id }, prev)
      }
      const before = new Map(this.rowsById)
      this.rowsById.clear()
      for (const [id, row] of next) {
        this.rowsById.set(id, row)
        const prev = before.get(id)
        if (!prev || JSON.stringify(prev) !== JSON.stringify(row)) this.o.publish({ type: 'pane', pane: row }, prev)
      }
      return
    }
    if (typeof f.seq === 'number' && this.since) this.since = { epoch: this.since.epoch, seq: f.seq }
    if (f.type === 'pane') {
      const row = this.qualified(f.pane)
      const prev = this.rowsById.get(row.pane_id)
      this.rowsById.set(row.pane_id, row)
      this.o.publish({ type: 'pane', pane: row }, prev)
    } else if (f.type === 'pane_removed') {
      const id = qualify(this.label, f.pane_id)
      const prev = this.rowsById.get(id)
      if (!prev) return
      this.rowsById.delete(id)
      this.o.publish({ type: 'pane_removed', pane_id: id }, prev)
    }
    // a remote's own machine events are its business: machines are not chained
  }

  private async readVersion(): Promise<void> {
    try {
      const r = await fetch(`${this.base}/healthz`, { signal: AbortSignal.timeout(5000) })
      // a bridge's /healthz is a few hundred bytes: a remote sending more is not read on
      const body = await readCapped(r.body, r.headers.get('content-length'), 64 * 1024)
      if (!body) return
      const v = (JSON.parse(new TextDecoder().decode(body)) as { version?: unknown }).version
      if (typeof v === 'string') this.version = v.slice(0, 64)
    } catch {}
  }
}

/** Whether a remote's GET /devices/me answer lists the read scope (an answer that is not one: assumed, the probe says offline). */
async function grantsRead(r: Response): Promise<boolean> {
  try {
    const scopes = (JSON.parse(await textUpTo(r, 4096)) as { scopes?: unknown }).scopes
    return !Array.isArray(scopes) || scopes.includes('read')
  } catch {
    return true
  }
}
