// The one interface the socket protocol is written against (docs/ARCHITECTURE.md): an
// ordered, growing list of entries addressed by seq. Every agent kind's source
// produces one; the protocol cannot tell them apart.
import type { Entry } from './entry'

export interface Timeline {
  /** How many entries exist now; the newest entry's seq. */
  total(): number
  /** Entries with fromSeq <= seq <= toSeq, oldest first, reading only what they need. */
  read(fromSeq: number, toSeq: number): Promise<Entry[]>
  /**
   * Optional: reads fromSeq..toSeq ahead of a request that likely follows (the
   * page above the one a reader just got) and keeps them, so that request is
   * served from memory. Nothing waits for it, and it may be dropped.
   */
  prefetch?(fromSeq: number, toSeq: number): void
  /**
   * Called with the new entries (seq continuing past the previous total) when the
   * timeline grows. Returns an unsubscribe function.
   */
  onGrow(listener: (entries: Entry[]) => void): () => void
  /**
   * Called when the underlying data was replaced or shrank such that seqs before
   * `total()` changed (a truncated and rewritten file). The protocol replays the
   * opening sequence. Optional for sources that never reset.
   */
  onReset?(listener: () => void): () => void
  /** Releases this handle (shared resources are reference counted). */
  release(): void
}
