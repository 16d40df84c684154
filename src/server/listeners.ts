// Listeners that keep something running: it starts with the first use and
// stops after the last release (the herdr watcher, the event hub).
export class Listeners<L> {
  readonly all = new Set<L>()
  private users = 0

  constructor(
    private readonly start: () => void,
    private readonly stop: () => void,
  ) {}

  /** Counts a user (and adds its listener) until the returned function is called. */
  use(listener?: L): () => void {
    if (listener) this.all.add(listener)
    if (++this.users === 1) this.start()
    let released = false
    return () => {
      if (released) return
      released = true
      if (listener) this.all.delete(listener)
      if (--this.users === 0) this.stop()
    }
  }

  /** Forgets every user without calling stop (the owner is closing). */
  clear(): void {
    this.all.clear()
    this.users = 0
  }
}
