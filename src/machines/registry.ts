// The other machines a home bridge merges: the store file read again whenever it
// changes (`gothalo machines add|remove` on a running bridge takes effect within
// a poll), one RemoteMachine per entry, their rows merged into the event hub.
import type { EventHub, EventRow } from '../events/hub'
import { RemoteMachine, SILENCE_MS, type MachineInfo, type RemoteOptions } from './remote'
import { machinesStamp, readMachines, type StoredMachine } from './store'
import { labelProblem } from './target'

export interface MachinesOptions {
  dataDir: string
  hub: EventHub
  log: RemoteOptions['log']
  clock: () => number
  /** how often the store file is checked for a change */
  pollMs?: number
  backoffMs?: RemoteOptions['backoffMs']
  tunnel?: RemoteOptions['tunnel']
  /** how long a remote's /events may stay silent (no frame, no ping) before it counts as gone */
  silenceMs?: number
  /** this machine's line in GET /machines */
  local: () => { version: string; panes: number }
}

export class Machines {
  private readonly byLabel = new Map<string, RemoteMachine>()
  private stamp = ''
  private readonly timer: ReturnType<typeof setInterval>

  constructor(private readonly o: MachinesOptions) {
    o.hub.mergeRemote(this)
    this.reload()
    this.timer = setInterval(() => this.reload(), o.pollMs ?? 1000)
    ;(this.timer as { unref?: () => void }).unref?.()
  }

  /** Reads the store again if it changed: starts added machines, stops and retracts removed ones. */
  reload(): void {
    const stamp = machinesStamp(this.o.dataDir)
    if (stamp === this.stamp) return
    this.stamp = stamp
    let stored: StoredMachine[]
    try {
      stored = readMachines(this.o.dataDir)
    } catch (e) {
      this.o.log(`machines: ${(e as Error).message}`)
      return
    }
    stored = this.usable(stored)
    const want = new Map(stored.map((m) => [m.label, m]))
    for (const [label, m] of [...this.byLabel]) {
      const w = want.get(label)
      if (w && w.token === m.stored.token && w.target === m.stored.target) continue
      m.close()
      this.byLabel.delete(label)
      m.retract()
      this.o.hub.publish({ type: 'machine', machine: { id: label, label, removed: true } })
    }
    for (const m of stored) {
      if (this.byLabel.has(m.label)) continue
      const r = new RemoteMachine(m, {
        publish: (e, before) => this.o.hub.publish(e, before),
        log: this.o.log,
        clock: this.o.clock,
        backoffMs: this.o.backoffMs ?? { min: 1000, max: 60_000 },
        tunnel: this.o.tunnel,
        silenceMs: this.o.silenceMs ?? SILENCE_MS,
      })
      this.byLabel.set(m.label, r)
      r.start()
    }
  }

  /**
   * The entries a hand edit left usable: a label `machines add` would refuse (it names panes as
   * LABEL/PANE and `local` is this machine) or one already taken is skipped, with a line saying so.
   */
  private usable(stored: StoredMachine[]): StoredMachine[] {
    const seen = new Set<string>()
    return stored.filter((m) => {
      const bad = labelProblem(m.label) ?? (seen.has(m.label) ? `label taken: ${m.label} (its first entry is used)` : undefined)
      seen.add(m.label)
      if (bad) this.o.log(`machines.json: skipped an entry: ${bad}`)
      return !bad
    })
  }

  get(label: string): RemoteMachine | undefined {
    return this.byLabel.get(label)
  }

  get size(): number {
    return this.byLabel.size
  }

  /** Every other machine's rows, in the store's order. */
  rows(): EventRow[] {
    if (this.byLabel.size === 0) return []
    return [...this.byLabel.values()].flatMap((m) => m.rows())
  }

  /** GET /machines: this machine first (`local`), then each remote. */
  list(): MachineInfo[] {
    const local = this.o.local()
    return [
      { id: 'local', label: 'local', state: 'online', last_seen: this.o.clock(), version: local.version, panes: local.panes },
      ...[...this.byLabel.values()].map((m) => m.info()),
    ]
  }

  /** The list for an /events hello: only when there are other machines (a single machine's hello is unchanged). */
  listed(): MachineInfo[] | undefined {
    return this.byLabel.size ? this.list() : undefined
  }

  close(): void {
    clearInterval(this.timer)
    for (const m of this.byLabel.values()) m.close()
    this.byLabel.clear()
  }
}
