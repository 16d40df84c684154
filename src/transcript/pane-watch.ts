// Rotation checks for transcript sockets (contract: every 2 s per pane). The
// agent comes from the bridge's one herdr watcher, so a check costs no herdr
// call: herdr calls grow with panes, not with sockets. One timer per pane,
// shared by every socket on it; each socket decides whether its session changed.
import type { AgentInfo } from '../herdr/types'
import type { HerdrWatch } from '../herdr/watch'

type Listener = (agent: AgentInfo) => void

interface Watch {
  timer: ReturnType<typeof setInterval>
  listeners: Set<Listener>
  release: () => void
}

export class PaneWatches {
  private watches = new Map<string, Watch>()

  constructor(
    private readonly herdr: HerdrWatch,
    private readonly everyMs: number,
    private readonly log: (m: string) => void,
  ) {}

  subscribe(pane: string, listener: Listener): () => void {
    let w = this.watches.get(pane)
    if (!w) {
      const watch: Watch = {
        listeners: new Set(),
        // keeps the herdr watcher running while a socket needs it
        release: this.herdr.use(),
        timer: setInterval(() => this.tick(pane, watch), this.everyMs),
      }
      this.watches.set(pane, (w = watch))
    }
    w.listeners.add(listener)
    const watch = w
    return () => {
      watch.listeners.delete(listener)
      if (watch.listeners.size === 0 && this.watches.get(pane) === watch) {
        clearInterval(watch.timer)
        watch.release()
        this.watches.delete(pane)
      }
    }
  }

  /** Panes watched now. */
  active(): number {
    return this.watches.size
  }

  private tick(pane: string, w: Watch): void {
    // Not in herdr's last report (herdr down, agent gone): keep streaming what we have.
    const agent = this.herdr.agent(pane)
    if (!agent) return
    for (const l of w.listeners) {
      try {
        l(agent)
      } catch (e) {
        this.log(`pane watch ${pane}: ${(e as Error).message}`)
      }
    }
  }
}
