// The duplicate guard shared by POST /approve and POST /answer. Keyed on the pane id
// herdr resolved (a pane named by id and by agent name is one pane), it runs one action
// per pane at a time and remembers the actions that succeeded: a second tap waits for
// the first, and is a duplicate only if the first succeeded — a failed first attempt
// leaves the way open for the retry.

export class PaneGuard {
  private tails = new Map<string, Promise<unknown>>()
  private done = new Set<string>()
  constructor(private readonly max = 10_000) {}

  /** Runs `f` after every earlier action on this pane has finished. */
  exclusive<T>(pane: string, f: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(pane) ?? Promise.resolve()
    const run = prev.then(f, f)
    const tail = run.then(
      () => undefined,
      () => undefined,
    )
    this.tails.set(pane, tail)
    // forget an idle pane so the map does not grow with every pane ever seen
    void tail.then(() => {
      if (this.tails.get(pane) === tail) this.tails.delete(pane)
    })
    return run
  }

  private key(pane: string, parts: readonly (string | number)[]) {
    return [pane, ...parts].join('\u0000')
  }
  succeeded(pane: string, ...parts: (string | number)[]): boolean {
    return this.done.has(this.key(pane, parts))
  }
  /** Bounded, oldest forgotten first: a seq is only meaningful for a while anyway. */
  recordSuccess(pane: string, ...parts: (string | number)[]) {
    this.done.add(this.key(pane, parts))
    if (this.done.size > this.max) this.done.delete(this.done.values().next().value!)
  }
}
