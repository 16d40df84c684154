// Claude Code's usage records (docs/reference/claude-code.md §2, §3.1): each assistant
// message's `usage` (repeated on every record of one message: counted once, by
// message.id) and the `cost-state` record with the session's cost so far.
import { isObj, type Obj } from '../../transcript/tool-summary'
import { count, isCost, type UsageTally } from '../tally'

/** Folds one Claude Code record into the tally. Never throws on an odd shape. */
export function addClaudeUsage(tally: UsageTally, rec: Obj): void {
  // every record read moves as_of, usage or not: the figures hold as of the newest record
  tally.seen(rec.timestamp)
  if (rec.type === 'cost-state') {
    // written when a session ends or is resumed: the cost of the whole session as Claude counts it
    if (isCost(rec.totalCostUSD)) tally.costUsd = rec.totalCostUSD
    return
  }
  if (rec.type !== 'assistant') return
  const msg = rec.message
  if (!isObj(msg)) return
  const model = typeof msg.model === 'string' ? msg.model : undefined
  if (model === '<synthetic>') return // written by the CLI itself (errors, interrupts): no request behind it
  // the model of the last turn, whenever a record of it names one (with usage or not)
  if (model && rec.isSidechain !== true) tally.model = model
  if (!isObj(msg.usage)) return
  const u = msg.usage
  const input = count(u.input_tokens)
  const output = count(u.output_tokens)
  const cacheRead = count(u.cache_read_input_tokens)
  const cacheWrite = count(u.cache_creation_input_tokens)
  tally.cacheRead = tally.cacheWrite = true
  tally.addTurn(typeof msg.id === 'string' ? msg.id : undefined, input, output, cacheRead, cacheWrite)
  // a subagent's turns (older versions keep them in the parent, isSidechain) cost tokens, not context
  if (rec.isSidechain === true) return
  const prompt = input + cacheRead + cacheWrite
  if (prompt + output === 0) return // a record with empty usage says nothing about the context
  tally.setContext(prompt)
}
