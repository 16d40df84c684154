// The subagent roster's parent facts as a LineFold: the JSONL index pass folds
// them from the same JSON.parse that counts the line's entries, so a first
// connect reads a session file once (not once to index, once more for the
// roster), and the on-disk index cache keeps them with the index.
import type { LineFold } from '../../jsonl/normalizer'
import { countClaudeLineTapped } from './normalize'
import { ParentFacts } from './roster-logic'

export const claudeRosterFold: LineFold<ParentFacts> = {
  id: 'claude-parent-facts/1',
  fresh: () => new ParentFacts(),
  countAndFold: (line, _offset, facts) => countClaudeLineTapped(line, (rec) => facts.addRecord(rec)),
  fold: (line, _offset, facts) => void facts.addLine(line),
  save: (facts) => facts.toJSON(),
  load: (saved) => ParentFacts.fromJSON(saved),
}
