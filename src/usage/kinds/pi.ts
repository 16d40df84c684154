// pi's usage (docs/reference/pi-opencode-codex.md §A.5): each assistant message carries
// `usage {input, output, cacheRead, cacheWrite, totalTokens, cost{total}}`.
import { isObj, type Obj } from '../../transcript/tool-summary'
import { count, isCost, type UsageTally } from '../tally'

/** Folds one pi session record into the tally. Never throws on an odd shape. */
export function addPiUsage(tally: UsageTally, rec: Obj): void {
  // every record read moves as_of, usage or not: the figures hold as of the newest record
  tally.seen(rec.timestamp)
  if (rec.type !== 'message') return
  const msg = rec.message
  if (!isObj(msg) || msg.role !== 'assistant') return
  // the model of the last turn, whenever a record names it (with usage or not)
  if (typeof msg.model === 'string' && msg.model) tally.model = msg.model
  if (!isObj(msg.usage)) return
  const u = msg.usage
  const turn = { input: count(u.input), output: count(u.output), cacheRead: count(u.cacheRead), cacheWrite: count(u.cacheWrite) }
  tally.cacheRead = tally.cacheWrite = true
  tally.addTurn(undefined, turn.input, turn.output, turn.cacheRead, turn.cacheWrite)
  if (isObj(u.cost) && isCost(u.cost.total)) tally.addCost(u.cost.total)
  const prompt = turn.input + turn.cacheRead + turn.cacheWrite
  // an aborted or failed request records zeros: it says nothing about the context
  if (prompt + turn.output === 0) return
  tally.setContext(prompt)
}
