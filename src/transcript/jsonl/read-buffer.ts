// A page read's buffer, kept between reads. A fresh buffer for each read costs
// the first touch of every one of its pages, and that showed: a 150-entry page
// deep in a 100 MB session took 12.1 ms (median of 8 fresh processes) with
// fresh buffers, 7.4 ms with one kept (page faults are dear on a VM).

/** The most a kept buffer holds: larger reads get a buffer of their own. */
export const KEEP_BYTES = 1 << 20

/** One buffer lent to one read at a time; a read made while it is out, or larger than it may grow, gets a fresh one. */
export class ReadBuffer {
  private kept: Buffer | null = null

  constructor(private readonly keepBytes = KEEP_BYTES) {}

  /** A buffer of at least `length` bytes, the caller's until it gives it back. */
  borrow(length: number): Buffer {
    const k = this.kept
    if (k && k.length >= length) {
      this.kept = null
      return k
    }
    // Grown in powers of two up to the bound, so a few reads settle its size.
    return Buffer.allocUnsafe(length <= this.keepBytes ? Math.min(this.keepBytes, 2 ** Math.ceil(Math.log2(Math.max(length, 4096)))) : length)
  }

  /** Takes a borrowed buffer back; it is kept when it fits the bound and is the largest seen. */
  giveBack(buf: Buffer): void {
    if (buf.length <= this.keepBytes && (!this.kept || this.kept.length < buf.length)) this.kept = buf
  }

  /** Bytes kept now (for tests). */
  get keptBytes(): number {
    return this.kept?.length ?? 0
  }
}
