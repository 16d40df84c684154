// The context figure of each pane's session for the rows of /snapshot and
// /events, without making a row wait for a transcript read: a row shows the
// figure last read, and asking starts a fresh read in the background (the index
// pass for a session nobody reads yet; a stat for one that is open). The hub's
// periodic re-diff (the roster poll) then carries a changed figure out as a
// `pane` event, so the row follows the session as it grows.
import type { AgentInfo } from '../herdr/types'
import type { Usage } from './tally'

interface Page {
  /** what the pane's session was last time (a new session starts with no figure) */
  session: string
  pct: number | undefined
  asked: number
  /** when the last read started: a pane is read at most once per `freshMs` */
  readAt: number
  reading: boolean
}

export class UsageBook {
  private readonly pages = new Map<string, Page>()
  private readonly inflight = new Set<Promise<void>>()

  constructor(
    /** the pane's usage, or undefined when it has none to read */
    private readonly read: (agent: AgentInfo) => Promise<Usage | undefined>,
    private readonly log: (m: string) => void,
    /**
     * a figure this fresh is not read again: every row build asks (the /events
     * hub's each roster poll, every /snapshot), and a read past the warm cache
     * of released indexes would load an index from disk each time
     */
    private readonly freshMs = 1500,
    private readonly now: () => number = Date.now,
    /** panes not asked about this long are forgotten */
    private readonly forgetMs = 10 * 60_000,
  ) {}

  /** The pane's last known context_pct (undefined when none is known yet); reads a fresh one behind. */
  contextPct(agent: AgentInfo): number | undefined {
    const key = agent.pane_id
    const session = `${agent.agent ?? ''}\0${agent.agent_session?.value ?? ''}\0${agent.cwd ?? ''}`
    let page = this.pages.get(key)
    if (!page || page.session !== session) {
      page = { session, pct: undefined, asked: 0, readAt: Number.NEGATIVE_INFINITY, reading: false }
      this.pages.set(key, page)
    }
    page.asked = this.now()
    if (!page.reading && page.asked - page.readAt >= this.freshMs) {
      page.reading = true
      page.readAt = page.asked
      const p = page
      const done = this.read(agent)
        .then((u) => {
          p.pct = u?.context?.pct
        })
        .catch((e) => this.log(`usage of ${key}: ${(e as Error).message}`))
        .finally(() => {
          p.reading = false
          this.inflight.delete(done)
        })
      this.inflight.add(done)
    }
    this.forget()
    return page.pct
  }

  /** Settles when the reads under way now have landed (tests; a shutdown that wants them done). */
  async settled(): Promise<void> {
    await Promise.all([...this.inflight])
  }

  /** Pages of panes nobody asked about lately (closed panes, a long-gone list). */
  private forget(): void {
    const limit = this.now() - this.forgetMs
    for (const [k, p] of this.pages) if (p.asked < limit && !p.reading) this.pages.delete(k)
  }
}
