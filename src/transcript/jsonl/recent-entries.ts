// The entries of a file normalized lately, by seq: a phone reconnecting gets
// its newest page, a socket gets a page another socket just read, and a reader
// scrolling up gets the page read ahead of it (JsonlFile.prefetch), without
// reading and normalizing those lines again. Valid for one index generation:
// a re-index (rewrite, truncation, rotation) drops them all.
import type { Entry } from '../entry'

export class RecentEntries {
  private readonly bySeq = new Map<number, Entry>()
  private generation = -1

  /** `max` entries at most, least recently used dropped first (by default three pages: the newest, the one a reader has, the one above it). */
  constructor(private readonly max = 450) {}

  /** Entries from..to of `generation`, when every one of them is held; undefined otherwise. */
  get(generation: number, from: number, to: number): Entry[] | undefined {
    if (generation !== this.generation || to < from || to - from + 1 > this.max) return undefined
    const out: Entry[] = []
    for (let seq = from; seq <= to; seq++) {
      const e = this.bySeq.get(seq)
      if (!e) return undefined
      out.push(e)
    }
    for (const e of out) this.touch(e)
    return out
  }

  /** Keeps entries of `generation` (entries of an older generation are dropped first). */
  put(generation: number, entries: readonly Entry[]): void {
    if (generation !== this.generation) {
      this.bySeq.clear()
      this.generation = generation
    }
    for (const e of entries) this.touch(e)
    for (const seq of this.bySeq.keys()) {
      if (this.bySeq.size <= this.max) break
      this.bySeq.delete(seq)
    }
  }

  get size(): number {
    return this.bySeq.size
  }

  private touch(e: Entry): void {
    this.bySeq.delete(e.seq)
    this.bySeq.set(e.seq, e)
  }
}
