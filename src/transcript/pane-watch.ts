// One session poller per pane, shared by every socket on it (contract: 2 s).
// Each tick asks herdr for the pane's agent once and tells the subscribers;
// each socket decides whether that means its session changed.
import type { HerdrClient } from '../herdr/client'
import type { AgentInfo } from '../herdr/types'

type Listener = (agent: AgentInfo) => void

interface Watch {
  timer: ReturnType<typeof setInterval>
  listeners: Set<Listener>
  busy: boolean
}

export class PaneWatches {
  private watches = new Map<string, Watch>()
  /** herdr calls made by the pollers (for tests: one per pane per tick, however many sockets) */
  polls = 0

  constructor(
    private readonly herdr: HerdrClient,
    private readonly everyMs: number,
    private readonly log: (m: string) => void,
  ) {}

  subscribe(pane: string, listener: Listener): () => void {
    let w = this.watches.get(pane)
    if (!w) {
      const watch: Watch = { listeners: new Set(), busy: false, timer: setInterval(() => void this.tick(pane, watch), this.everyMs) }
      this.watches.set(pane, (w = watch))
    }
    w.listeners.add(listener)
    const watch = w
    return () => {
      watch.listeners.delete(listener)
      if (watch.listeners.size === 0 && this.watches.get(pane) === watch) {
        clearInterval(watch.timer)
        this.watches.delete(pane)
      }
    }
  }

  /** Pollers running now. */
  active(): number {
    return this.watches.size
  }

  private async tick(pane: string, w: Watch): Promise<void> {
    if (w.busy) return // a slow herdr: skip the tick rather than pile up calls
    w.busy = true
    try {
      this.polls++
      const agent = await this.herdr.agentGet(pane)
      for (const l of w.listeners) {
        try {
          l(agent)
        } catch (e) {
          this.log(`pane watch ${pane}: ${(e as Error).message}`)
        }
      }
    } catch (e) {
      // A herdr hiccup or a vanished agent: keep streaming what we have.
      this.log(`pane watch ${pane}: ${(e as Error).message}`)
    } finally {
      w.busy = false
    }
  }
}
