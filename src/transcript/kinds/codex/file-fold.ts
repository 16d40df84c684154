// What the JSONL index pass gathers about a codex rollout besides its entry count, from
// the same JSON.parse: the session's usage and the calls aborted so far (call id → offset
// of the "aborted by user" output), which turn a later result of such a call to ok:false
// (normalize.ts afterAbort). The on-disk index cache keeps both with the index, so a page
// read from the middle of the file knows the aborts before it.
import type { LineFold } from '../../jsonl/normalizer'
import { addCodexUsage } from '../../../usage/kinds/codex'
import { UsageTally } from '../../../usage/tally'
import type { Obj } from '../../tool-summary'
import { abortedCallOf, afterAbort, countCodexLineTapped } from './normalize'

export interface CodexFileFacts {
  usage: UsageTally
  /** call id → byte offset of the line that reported it aborted (the first such line) */
  abortedAt: Map<string, number>
}

function foldRecord(f: CodexFileFacts, rec: Obj, offset: number): void {
  addCodexUsage(f.usage, rec)
  const aborted = abortedCallOf(rec)
  if (aborted !== undefined && !f.abortedAt.has(aborted)) f.abortedAt.set(aborted, offset)
}

const countAndFold = (line: string, offset: number, f: CodexFileFacts): number => countCodexLineTapped(line, (rec) => foldRecord(f, rec, offset))

export const codexFileFold: LineFold<CodexFileFacts> = {
  id: 'codex-file-facts/1',
  fresh: () => ({ usage: new UsageTally(), abortedAt: new Map() }),
  countAndFold,
  fold: (line, offset, facts) => void countAndFold(line, offset, facts),
  amend: (drafts, offset, facts) => afterAbort(drafts, offset, facts.abortedAt),
  save: (facts) => ({ usage: facts.usage.toJSON(), aborted: [...facts.abortedAt] }),
  load: (saved) => {
    if (typeof saved !== 'object' || saved === null) return undefined
    const s = saved as Record<string, unknown>
    const usage = UsageTally.fromJSON(s.usage)
    if (!usage || !Array.isArray(s.aborted)) return undefined
    const abortedAt = new Map<string, number>()
    for (const pair of s.aborted) {
      if (!Array.isArray(pair) || typeof pair[0] !== 'string' || !Number.isSafeInteger(pair[1])) return undefined
      abortedAt.set(pair[0], pair[1])
    }
    return { usage, abortedAt }
  },
}
