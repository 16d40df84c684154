// The only place a file-backed kind's record format is known: one complete
// JSONL line → zero or more entry drafts. Pure and deterministic, so a line's
// entries (and therefore every seq) are the same on every read.
import type { Draft } from '../entry'

export type LineNormalizer = (
  /** one complete line, without its trailing newline */
  line: string,
  /** byte offset of the line in its file: the id of a line that has no uuid of its own */
  offset: number,
) => Draft[]

/** The entry for a line that could not be placed: passed through, never dropped. */
export function unplaced(line: string, offset: number, idPrefix = 'line'): Draft {
  const text = line.length > 2000 ? line.slice(0, 2000) + '…' : line
  return { id: `${idPrefix}@${offset}#0`, role: 'system', kind: 'message', text, parsed: false }
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
