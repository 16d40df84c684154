// One remote machine, as this (home) bridge holds it: the one WS /events to its
// bridge, whatever the number of phones, its rows qualified (`LABEL/PANE`,
// `machine: LABEL`), and its state: online, offline (rows kept, `stale: true`) or
// attention (the remote refused this bridge's token, or ssh cannot connect).
// Reconnects with backoff; every change reaches the hub through `publish`.
import { readCapped, textUpTo } from '../server/capped-body'
import { Value } from '@sinclair/typebox/value'
import type { EventRow, HubEvent, UnnumberedEvent } from '../events/hub'
import { SnapshotRowSchema } from '../events/rows'
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
  /** how long the socket may stay silent (no frame, no ping) before it counts as gone */
  silenceMs: number
}

/**
 * A remote bridge pings its /events sockets every 30 s (docs/bridge.md): two and a half of those
 * missed, and the connection is taken for gone. A laptop that sleeps or leaves the network drops
 * its TCP connection without a FIN; without this the home would show it online for hours.
 */
export const SILENCE_MS = 75_000

/**
 * What the home holds of one remote, well over any bridge's (a row is a few KiB with its card; herdr
 * panes number tens): a remote past these is refused, so that its rows cannot swell every phone's
 * hello past the 1 MiB a phone's socket may queue.
 */
export const REMOTE_LIMITS = { frameBytes: 1 << 20, rowBytes: 64 * 1024, rows: 500, totalBytes: 512 * 1024 }

/** A frame no bridge sends: the socket is closed, the machine offline saying why. */
class BadFrame extends Error {}

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
  /** each held row's JSON size, for REMOTE_LIMITS.totalBytes */
  private readonly rowBytes = new Map<string, number>()
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
    this.rowBytes.clear()
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
    let refused: string | undefined
    const ws = new WebSocket(url, { headers: this.headers() } as unknown as string[])
    this.ws = ws
    // heard: the last frame or ping (Bun answers the ping itself and then tells us)
    let heard = performance.now()
    let silent = false
    const hear = () => {
      heard = performance.now()
    }
    ws.addEventListener('ping', hear)
    const watch = setInterval(
      () => {
        if (this.ws !== ws || performance.now() - heard <= this.o.silenceMs) return
        silent = true
        clearInterval(watch)
        // no close handshake with a peer that is not there: the socket is dropped at once
        ;(ws as WebSocket & { terminate?: () => void }).terminate?.() ?? ws.close(1001, 'silent')
      },
      Math.max(10, Math.floor(this.o.silenceMs / 4)),
    )
    ;(watch as { unref?: () => void }).unref?.()
    ws.onopen = () => {
      opened = true
      hear()
    }
    ws.onmessage = (m) => {
      hear()
      if (this.ws !== ws || refused) return
      try {
        const data = String(m.data)
        if (data.length > REMOTE_LIMITS.frameBytes) throw new BadFrame(`a frame larger than ${REMOTE_LIMITS.frameBytes} bytes`)
        this.onFrame(JSON.parse(data))
      } catch (e) {
        refused = e instanceof BadFrame ? e.message : `a frame that is not JSON: ${(e as Error).message}`.slice(0, 200)
        this.o.log(`machine ${this.label}: bad frame: ${refused}`)
        ws.close(1002, 'bad frame')
      }
    }
    ws.onclose = () => {
      clearInterval(watch)
      if (this.ws !== ws || this.closed) return
      this.ws = undefined
      void (async () => {
        // Why: a socket that never opened was refused (a revoked token, a missing scope) or not reached.
        const why = opened ? undefined : await this.probe(base)
        if (why && 'attention' in why) this.setState('attention', why.attention)
        else
          this.setState(
            'offline',
            why?.offline ??
              (refused
                ? `it sent ${refused}`
                : silent
                  ? `silent for ${(this.o.silenceMs / 1000).toFixed(this.o.silenceMs % 1000 ? 1 : 0)} s (no frame, no ping): the connection is gone`
                  : 'connection closed'),
          )
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

  /** A remote's row, checked against what a bridge sends and REMOTE_LIMITS; its JSON size. */
  private checkedRow(r: unknown): { row: EventRow; bytes: number } {
    const row = r as EventRow
    if (!row || typeof row !== 'object' || Array.isArray(row) || typeof row.pane_id !== 'string' || !row.pane_id) throw new BadFrame('a row without a pane_id')
    const bytes = JSON.stringify(row).length
    if (bytes > REMOTE_LIMITS.rowBytes) throw new BadFrame(`a row larger than ${REMOTE_LIMITS.rowBytes} bytes`)
    // a row /snapshot's schema refuses would make every phone's /snapshot fail
    if (!Value.Check(SnapshotRowSchema, row))
      throw new BadFrame(`a row that is not a /snapshot row (${Value.Errors(SnapshotRowSchema, row).First()?.path || 'its shape'})`)
    return { row, bytes }
  }

  private overLimits(rows: number, bytes: number): void {
    if (rows > REMOTE_LIMITS.rows) throw new BadFrame(`more than ${REMOTE_LIMITS.rows} panes`)
    if (bytes > REMOTE_LIMITS.totalBytes) throw new BadFrame(`more than ${REMOTE_LIMITS.totalBytes} bytes of rows`)
  }

  private onFrame(f: HubEvent | { type: 'hello'; epoch: string; seq: number; resume: string; panes?: EventRow[] }): void {
    if (!f || typeof f !== 'object') throw new BadFrame('a frame that is not an object')
    if (f.type === 'hello') {
      if (typeof f.epoch !== 'string' || !/^[\w.:-]{1,100}$/.test(f.epoch) || !Number.isSafeInteger(f.seq) || f.seq < 0)
        throw new BadFrame('a hello without an epoch and seq')
      const full = f.resume !== 'ok' && f.panes !== undefined
      if (full && !Array.isArray(f.panes)) throw new BadFrame('a hello whose panes are not a list')
      // checked whole before anything is taken from it
      const checked = full ? (f.panes as unknown[]).map((r) => this.checkedRow(r)) : []
      if (full)
        this.overLimits(
          checked.length,
          checked.reduce((n, c) => n + c.bytes, 0),
        )
      // another epoch is the remote bridge restarted, perhaps upgraded: its version is read again
      const restarted = this.since !== undefined && this.since.epoch !== f.epoch
      this.since = { epoch: f.epoch, seq: f.seq }
      this.setState('online')
      if (restarted)
        void this.readVersion().then(
          (changed) => changed && !this.closed && this.state === 'online' && this.o.publish({ type: 'machine', machine: { ...this.info() } }),
        )
      if (!full) return
      // the full list: what changed since the rows we kept (a reconnect), in the remote's order
      const next = new Map(checked.map(({ row: r, bytes }) => [qualify(this.label, r.pane_id), { row: this.qualified(r), bytes }]))
      for (const [id, prev] of [...this.rowsById]) {
        if (next.has(id)) continue
        this.rowsById.delete(id)
        this.rowBytes.delete(id)
        this.o.publish({ type: 'pane_removed', pane_id: id }, prev)
      }
      const before = new Map(this.rowsById)
      this.rowsById.clear()
      this.rowBytes.clear()
      for (const [id, { row, bytes }] of next) {
        this.rowsById.set(id, row)
        this.rowBytes.set(id, bytes)
        const prev = before.get(id)
        if (!prev || JSON.stringify(prev) !== JSON.stringify(row)) this.o.publish({ type: 'pane', pane: row }, prev)
      }
      return
    }
    if (f.type === 'pane') {
      const { row: plain, bytes } = this.checkedRow(f.pane)
      const row = this.qualified(plain)
      const prev = this.rowsById.get(row.pane_id)
      let total = bytes - (this.rowBytes.get(row.pane_id) ?? 0)
      for (const n of this.rowBytes.values()) total += n
      this.overLimits(this.rowsById.size + (prev ? 0 : 1), total)
      this.rowsById.set(row.pane_id, row)
      this.rowBytes.set(row.pane_id, bytes)
      this.o.publish({ type: 'pane', pane: row }, prev)
    } else if (f.type === 'pane_removed') {
      if (typeof f.pane_id !== 'string') throw new BadFrame('a pane_removed without a pane_id')
      const id = qualify(this.label, f.pane_id)
      const prev = this.rowsById.get(id)
      if (prev) {
        this.rowsById.delete(id)
        this.rowBytes.delete(id)
        this.o.publish({ type: 'pane_removed', pane_id: id }, prev)
      }
    }
    // a remote's own machine events are its business: machines are not chained
    if (Number.isSafeInteger(f.seq) && this.since) this.since = { epoch: this.since.epoch, seq: f.seq }
  }

  /** Reads the remote's version from its /healthz; whether it changed. */
  private async readVersion(): Promise<boolean> {
    const was = this.version
    try {
      const r = await fetch(`${this.base}/healthz`, { signal: AbortSignal.timeout(5000) })
      // a bridge's /healthz is a few hundred bytes: a remote sending more is not read on
      const body = await readCapped(r.body, r.headers.get('content-length'), 64 * 1024)
      if (!body) return false
      const v = (JSON.parse(new TextDecoder().decode(body)) as { version?: unknown }).version
      if (typeof v === 'string') this.version = v.slice(0, 64)
    } catch {}
    return this.version !== was
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
