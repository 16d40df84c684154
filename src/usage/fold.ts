// Usage as a LineFold: the JSONL index pass folds a session's usage records from
// the same parse that counts the line's entries (no pass of its own), the tail
// folds each new line, and the on-disk index cache keeps the tally with the index.
import type { LineFold } from '../transcript/jsonl/normalizer'
import type { Obj } from '../transcript/tool-summary'
import { UsageTally } from './tally'

/** A kind's entry counter that also hands over the record it parsed (when the line is a JSON object). */
export type TappedCounter = (line: string, onRecord: (rec: Obj) => void) => number

/** The usage fold of a kind: its tapped counter and its record reader. */
export function usageFold(id: string, count: TappedCounter, add: (tally: UsageTally, rec: Obj) => void): LineFold<UsageTally> {
  return {
    id,
    fresh: () => new UsageTally(),
    countAndFold: (line, _offset, tally) => count(line, (rec) => add(tally, rec)),
    fold: (line, _offset, tally) => void count(line, (rec) => add(tally, rec)),
    save: (tally) => tally.toJSON(),
    load: (saved) => UsageTally.fromJSON(saved),
  }
}
