// The only place a file-backed kind's record format is known: one complete
// JSONL line → zero or more entry drafts. Pure and deterministic, so a line's
// entries (and therefore every seq) are the same on every read.
import type { Draft } from '../entry'
import { isObj, type Obj } from '../tool-summary'

export type LineNormalizer = ((
  /** one complete line, without its trailing newline */
  line: string,
  /** byte offset of the line in its file: the id of a line that has no uuid of its own */
  offset: number,
) => Draft[]) & {
  /**
   * Optional: the same drafts for a line a page read parsed as one JSON value
   * straight from its bytes (normalizeBytes): no string of the line is made,
   * and a page's line strings were a fifth of its cost. undefined when the text
   * must decide (a value the kind cannot place is one parsed:false entry, which
   * carries the line's text). Must equal normalize(line, offset) on every line
   * whose bytes hold that one value.
   */
  fromJson?: (value: unknown, offset: number) => Draft[] | undefined
}

/** The entry for a line that could not be placed: passed through, never dropped. */
export function unplaced(line: string, offset: number, idPrefix = 'line'): Draft {
  const text = line.length > 2000 ? line.slice(0, 2000) + '…' : line
  return { id: `${idPrefix}@${offset}#0`, role: 'system', kind: 'message', text, parsed: false }
}

/** A blank line yields nothing. (trim only when the line starts blank: a copy of every line otherwise) */
export const isBlankLine = (line: string): boolean => line.length === 0 || (line.charCodeAt(0) <= 0x20 && line.trim() === '')

/**
 * The one decision a kind's normalizer and its LineCounter share: a line's record
 * and the slots (entries decided, not built) `planRecord` gives it. undefined ⇒
 * the line is one parsed:false entry: not JSON, not an object, or a record
 * `planRecord` cannot place (undefined) or throws on (a shape no branch foresaw
 * must not break the stream).
 */
export function planJsonLine<S>(line: string, planRecord: (rec: Obj) => S[] | undefined): { rec: Obj; slots: S[] } | undefined {
  let rec: unknown
  try {
    rec = JSON.parse(line)
  } catch {
    return undefined
  }
  return planJsonValue(rec, planRecord)
}

/** planJsonLine for a line already parsed as one JSON value (a page read parses a line's bytes: LineNormalizer.fromJson). */
export function planJsonValue<S>(rec: unknown, planRecord: (rec: Obj) => S[] | undefined): { rec: Obj; slots: S[] } | undefined {
  if (!isObj(rec)) return undefined
  try {
    const slots = planRecord(rec)
    return slots && { rec, slots }
  } catch {
    return undefined
  }
}

/**
 * A kind's LineCounter that also hands the record it parsed (when the line is a
 * JSON object) to `onRecord`: the index pass folds facts (usage, the roster) from
 * the same parse. Counts as planJsonLine does: a line that is not JSON is one entry.
 */
export function countJsonLineTapped<S>(line: string, planRecord: (rec: Obj) => S[] | undefined, onRecord: (rec: Obj) => void): number {
  let rec: unknown
  try {
    rec = JSON.parse(line)
  } catch {
    return 1
  }
  return countJsonValueTapped(rec, planRecord, onRecord)
}

/** countJsonLineTapped for a non-blank line already parsed as one JSON value. */
export function countJsonValueTapped<S>(rec: unknown, planRecord: (rec: Obj) => S[] | undefined, onRecord: (rec: Obj) => void): number {
  if (isObj(rec)) onRecord(rec)
  return planJsonValue(rec, planRecord)?.slots.length ?? 1
}

/**
 * The entry for a line too large to read (it is skipped, never held in memory):
 * it keeps its place in the seq order and says so, instead of vanishing.
 */
export function tooLarge(offset: number, bytes: number): Draft {
  return {
    id: `line@${offset}#0`,
    role: 'system',
    kind: 'message',
    text: `[transcript line too large to show: ${bytes} bytes]`,
    parsed: false,
  }
}

/**
 * Optional companion of a LineNormalizer: how many drafts it returns for a line,
 * without building them. The index build only counts, so a kind whose drafts
 * are costly (diffs, summaries) can supply one. It must equal
 * normalize(line, offset).length for every line; the engine checks at read time
 * and falls back to the normalizer for a file where it did not.
 */
export type LineCounter = (
  /** one complete line, without its trailing newline */
  line: string,
  /** byte offset of the line in its file */
  offset: number,
) => number

/**
 * Optional: facts a kind keeps about a whole file (Claude: what the subagent
 * roster needs from the parent transcript), gathered by the index scan in the
 * same pass and the same parse as the count, so a first connect reads the file
 * once. The facts live with the index: a re-index starts them fresh, and the
 * on-disk index cache saves and restores them with it.
 */
export interface LineFold<F = unknown> {
  /** names what is gathered, for the on-disk cache key; change it when the facts' meaning changes */
  readonly id: string
  fresh(): F
  /**
   * Counts the line's entries (must equal normalize(line, offset).length, like a
   * LineCounter) and folds its facts into `facts`, parsing the line once.
   */
  countAndFold(line: string, offset: number, facts: F): number
  /**
   * Optional: countAndFold for a non-blank line already parsed as one JSON value
   * (a pass whose values a LineTap takes too parses each line once, not twice).
   */
  countAndFoldValue?(value: unknown, offset: number, facts: F): number
  /** Folds a line that was normalized instead of counted (the live tail). */
  fold(line: string, offset: number, facts: F): void
  /**
   * Optional: a line's drafts as the lines before it change them (codex: the late result of a
   * command aborted earlier is not a success). Keeps the count; decides only from facts about
   * offsets below `offset`, so a page read (the facts cover the whole indexed file) and the
   * live tail (they cover the file up to this line) give a line the same drafts.
   */
  amend?(drafts: Draft[], offset: number, facts: F): Draft[]
  /** The facts as plain JSON, for the cache. */
  save(facts: F): unknown
  /** Facts back from save()'s JSON; undefined when it is not theirs (then the file is re-indexed). */
  load(saved: unknown): F | undefined
}
