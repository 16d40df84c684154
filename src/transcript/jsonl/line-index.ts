// The index of one JSONL file: for every complete line that yields at least one
// entry, its byte range and the cumulative entry count through it. Lines that
// yield nothing take no row. Rows live in typed arrays that grow by doubling, so
// a 100 MB transcript (~30k lines) costs well under a megabyte and no entries
// are ever kept. Everything here is pure over bytes: no file, no clock.
import type { Draft } from '../entry'
import { unplaced, type LineCounter, type LineFold, type LineNormalizer } from './normalizer'

export class LineIndex {
  /** byte offset of the first byte of the row's line */
  starts: Float64Array<ArrayBufferLike> = new Float64Array(256)
  /** byte offset just past the row's line content (its '\n', or a trailing '\r', is not included) */
  ends: Float64Array<ArrayBufferLike> = new Float64Array(256)
  /** entries in this row's line and every row before it */
  cum: Float64Array<ArrayBufferLike> = new Float64Array(256)
  rows = 0
  /** byte offset just past the last complete line ('\n' included): where the next scan starts */
  scanned = 0
  /** the kind's LineFold facts over lines 0..scanned (undefined without a fold) */
  facts: unknown = undefined

  total(): number {
    return this.rows === 0 ? 0 : this.cum[this.rows - 1]
  }

  push(start: number, end: number, count: number): void {
    if (this.rows === this.starts.length) this.grow()
    const prev = this.total()
    this.starts[this.rows] = start
    this.ends[this.rows] = end
    this.cum[this.rows] = prev + count
    this.rows++
  }

  /** Entries before this row (the seq of its first entry is this + 1). */
  before(row: number): number {
    return row === 0 ? 0 : this.cum[row - 1]
  }

  /** The row holding entry `seq` (1-based): the first row whose cumulative count reaches it. */
  rowOf(seq: number): number {
    let lo = 0
    let hi = this.rows - 1
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.cum[mid] >= seq) hi = mid
      else lo = mid + 1
    }
    return lo
  }

  /**
   * An index over rows saved elsewhere (the on-disk cache), without copying
   * them: `rows` holds the n starts, then the n ends, then the n cumulative
   * counts. The columns stay views into its buffer until the first push outgrows
   * them (then they are copied once, as any growth is).
   */
  static adopt(rows: Float64Array, n: number, scanned: number, facts: unknown): LineIndex {
    const index = new LineIndex()
    index.starts = rows.subarray(0, n)
    index.ends = rows.subarray(n, n * 2)
    index.cum = rows.subarray(n * 2, n * 3)
    index.rows = n
    index.scanned = scanned
    index.facts = facts
    return index
  }

  /**
   * The first row out of shape, or -1: rows in file order, each a non-empty
   * line with at least one entry, all ending before `scanned`.
   */
  firstMisshapen(): number {
    const { starts, ends, cum, rows } = this
    let lastEnd = -1
    let lastCum = 0
    for (let r = 0; r < rows; r++) {
      const s = starts[r]
      const e = ends[r]
      const c = cum[r]
      if (!(s > lastEnd && e > s && c > lastCum && c <= Number.MAX_SAFE_INTEGER && c % 1 === 0)) return r
      lastEnd = e
      lastCum = c
    }
    return rows > 0 && lastEnd >= this.scanned ? rows - 1 : -1
  }

  /** Bytes held by the typed arrays (for measurements). */
  byteSize(): number {
    return this.starts.byteLength + this.ends.byteLength + this.cum.byteLength
  }

  private grow(): void {
    const n = Math.max(256, this.starts.length * 2)
    const s = new Float64Array(n)
    s.set(this.starts)
    const e = new Float64Array(n)
    e.set(this.ends)
    const c = new Float64Array(n)
    c.set(this.cum)
    this.starts = s
    this.ends = e
    this.cum = c
  }
}

/** What jsonOfBytes answers for bytes that are not exactly one JSON value. */
export const NOT_ONE_VALUE: unique symbol = Symbol('not one JSON value')

/**
 * The one JSON value a line's bytes hold, parsed by Bun's native JSONL parser
 * straight from the bytes (no UTF-8 decode into a string first, for ASCII
 * lines); NOT_ONE_VALUE when they hold anything else: no value, more than one,
 * trailing garbage, or a leading BOM (skipped by that parser, refused by
 * JSON.parse). Then the text path decides, so both paths always agree.
 */
export function jsonOfBytes(buf: Uint8Array, from: number, to: number): unknown {
  if (buf[from] === 0xef && buf[from + 1] === 0xbb && buf[from + 2] === 0xbf) return NOT_ONE_VALUE
  try {
    const r = Bun.JSONL.parseChunk(buf.subarray(from, to))
    return r.done && r.error === null && r.values.length === 1 ? r.values[0] : NOT_ONE_VALUE
  } catch {
    return NOT_ONE_VALUE
  }
}

/** A line of only spaces, tabs and '\r' yields nothing and never reaches the normalizer. */
export function isBlank(buf: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const b = buf[i]
    if (b !== 0x20 && b !== 0x09 && b !== 0x0d) return false
  }
  return true
}

/**
 * Runs the normalizer without letting it throw or return junk: a normalizer
 * that throws on a line gets the line passed through as unplaced. Deterministic,
 * so counting (index) and reading (page) agree.
 */
export function normalizeSafely(normalize: LineNormalizer, line: string, offset: number): Draft[] {
  try {
    const drafts = normalize(line, offset)
    return Array.isArray(drafts) ? drafts : []
  } catch {
    return [unplaced(line, offset)]
  }
}

/**
 * A line's drafts, read from its bytes (a page read): from the one JSON value
 * they hold when the normalizer takes a parsed value (LineNormalizer.fromJson),
 * else (not one value, declined, or thrown) from the line's text, as
 * normalizeSafely. Both paths give the same drafts.
 */
export function normalizeBytes(normalize: LineNormalizer, buf: Buffer, from: number, to: number, offset: number): Draft[] {
  if (normalize.fromJson) {
    const value = jsonOfBytes(buf, from, to)
    if (value !== NOT_ONE_VALUE) {
      try {
        const drafts = normalize.fromJson(value, offset)
        if (Array.isArray(drafts)) return drafts
      } catch {
        // the text path decides, and says so as the normalizer does
      }
    }
  }
  return normalizeSafely(normalize, buf.toString('utf8', from, to), offset)
}

/**
 * A line's entry count by the kind's counter; a counter that throws or answers
 * something other than a count is not believed: the normalizer decides that line.
 */
export function countSafely(count: LineCounter, normalize: LineNormalizer, line: string, offset: number): number {
  let n: unknown
  try {
    n = count(line, offset)
  } catch {
    n = undefined
  }
  return Number.isSafeInteger(n) && (n as number) >= 0 ? (n as number) : normalizeSafely(normalize, line, offset).length
}

/** countSafely through the fold's countAndFold (one parse for both); the facts are the fold's to keep sane. */
function countAndFoldSafely(fold: LineFold, facts: unknown, normalize: LineNormalizer, line: string, offset: number): number {
  let n: unknown
  try {
    n = fold.countAndFold(line, offset, facts)
  } catch {
    n = undefined
  }
  return Number.isSafeInteger(n) && (n as number) >= 0 ? (n as number) : normalizeSafely(normalize, line, offset).length
}

/** fold.amend's drafts for a line, when it gives as many as it got; else the line's own drafts. */
export function amendSafely(fold: LineFold | undefined, facts: unknown, drafts: Draft[], offset: number): Draft[] {
  if (!fold?.amend || facts === undefined || drafts.length === 0) return drafts
  try {
    const out = fold.amend(drafts, offset, facts)
    return Array.isArray(out) && out.length === drafts.length ? out : drafts
  } catch {
    return drafts
  }
}

/** countAndFoldSafely for a line parsed by the pass (its fold's countAndFoldValue). */
function countAndFoldValueSafely(fold: LineFold, facts: unknown, normalize: LineNormalizer, value: unknown, line: string, offset: number): number {
  let n: unknown
  try {
    n = fold.countAndFoldValue!(value, offset, facts)
  } catch {
    n = undefined
  }
  return Number.isSafeInteger(n) && (n as number) >= 0 ? (n as number) : normalizeSafely(normalize, line, offset).length
}

/** what a line that is not JSON leaves in `values` */
const NOT_JSON: unique symbol = Symbol('not JSON')

function foldSafely(fold: LineFold, facts: unknown, line: string, offset: number): void {
  try {
    fold.fold(line, offset, facts)
  } catch {
    // a fold that throws on a line learns nothing from it
  }
}

/**
 * Indexes every complete line in `buf` (whose byte 0 is file offset `base`),
 * counting each line's entries: with `count` when given (the cold build needs
 * only counts), else by normalizing. When `collect` is given the drafts are
 * needed (the live tail emits them): every line is normalized and its drafts
 * appended to it. Returns how many bytes were consumed: up to and including the
 * last '\n'. An incomplete last line is left for the next call, which is how a
 * half-written line (or a UTF-8 character split by a read) waits for the rest of its bytes.
 * With `fold`, every non-blank line (entries or not) is also folded into
 * index.facts, in the same pass: through countAndFold when counting.
 * With `values` (a LineTap takes the rows), each row pushed gets its line's
 * parsed JSON value there when the pass parsed it (a fold with
 * countAndFoldValue: one parse for the count, the facts and the tap), else undefined.
 */
export function indexLines(
  buf: Buffer,
  base: number,
  normalize: LineNormalizer,
  index: LineIndex,
  collect?: Draft[],
  count?: LineCounter,
  fold?: LineFold,
  values?: unknown[],
): number {
  let pos = 0
  const len = buf.length
  const counting = count !== undefined && collect === undefined
  const facts = index.facts
  while (pos < len) {
    const nl = buf.indexOf(0x0a, pos)
    if (nl === -1) break
    if (!isBlank(buf, pos, nl)) {
      const end = nl > pos && buf[nl - 1] === 0x0d ? nl - 1 : nl
      if (counting) {
        // From the line's text: JSON.parse of a decoded line outran Bun's
        // JSONL parser on the bytes (Bun.JSONL.parseChunk) by 5-13% over a
        // whole Claude file, in a fresh process and warm; a page read, which
        // meets fresh memory, is the other way round (normalizeBytes).
        const line = buf.toString('utf8', pos, end)
        if (values && fold?.countAndFoldValue) {
          let value: unknown = NOT_JSON
          try {
            value = JSON.parse(line)
          } catch {}
          const n =
            value === NOT_JSON
              ? countAndFoldSafely(fold, facts, normalize, line, base + pos)
              : countAndFoldValueSafely(fold, facts, normalize, value, line, base + pos)
          if (n > 0) {
            index.push(base + pos, base + end, n)
            values.push(value === NOT_JSON ? undefined : value)
          }
          pos = nl + 1
          continue
        }
        const n = fold ? countAndFoldSafely(fold, facts, normalize, line, base + pos) : countSafely(count, normalize, line, base + pos)
        if (n > 0) {
          index.push(base + pos, base + end, n)
          values?.push(undefined)
        }
      } else {
        const line = buf.toString('utf8', pos, end)
        if (fold) foldSafely(fold, facts, line, base + pos)
        const drafts = amendSafely(fold, facts, normalizeSafely(normalize, line, base + pos), base + pos)
        if (drafts.length > 0) {
          index.push(base + pos, base + end, drafts.length)
          values?.push(undefined)
          if (collect) for (const d of drafts) collect.push(d)
        }
      }
    }
    pos = nl + 1
  }
  index.scanned = base + pos
  return pos
}
