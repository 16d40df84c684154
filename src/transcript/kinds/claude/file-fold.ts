// What the JSONL index pass gathers about a Claude session file besides its
// entry count, from the same JSON.parse: the subagent roster's parent facts and
// the session's usage. A first connect (or GET /usage) reads the file once, and
// the on-disk index cache keeps both with the index.
import type { LineFold } from '../../jsonl/normalizer'
import { addClaudeUsage } from '../../../usage/kinds/claude'
import { UsageTally } from '../../../usage/tally'
import { countClaudeLineTapped, countClaudeValueTapped } from './normalize'
import { ParentFacts } from './roster-logic'

export interface ClaudeFileFacts {
  parent: ParentFacts
  usage: UsageTally
}

const foldRecord = (f: ClaudeFileFacts) => (rec: Record<string, unknown>) => {
  f.parent.addRecord(rec)
  addClaudeUsage(f.usage, rec)
}
const countAndFold = (line: string, f: ClaudeFileFacts): number => countClaudeLineTapped(line, foldRecord(f))

export const claudeFileFold: LineFold<ClaudeFileFacts> = {
  id: 'claude-file-facts/3',
  fresh: () => ({ parent: new ParentFacts(), usage: new UsageTally() }),
  countAndFold: (line, _offset, facts) => countAndFold(line, facts),
  countAndFoldValue: (value, _offset, facts) => countClaudeValueTapped(value, foldRecord(facts)),
  fold: (line, _offset, facts) => void countAndFold(line, facts),
  save: (facts) => ({ parent: facts.parent.toJSON(), usage: facts.usage.toJSON() }),
  load: (saved) => {
    if (typeof saved !== 'object' || saved === null) return undefined
    const s = saved as Record<string, unknown>
    const parent = ParentFacts.fromJSON(s.parent)
    const usage = UsageTally.fromJSON(s.usage)
    return parent && usage && { parent, usage }
  },
}
