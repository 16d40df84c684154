// opencode's usage (docs/reference/pi-opencode-codex.md §B.3): each assistant message
// states its tokens {input, output, reasoning, cache{read, write}} and cost, in
// the 1.x shape ({info, parts}) and the 2.x projected one ({type, model, tokens}).
import { isObj } from '../../transcript/tool-summary'
import { count, isCost, type UsageTally } from '../tally'

/** Folds one raw opencode message (as the service or the store gives it) into the tally. */
export function addOpencodeUsage(tally: UsageTally, raw: unknown): void {
  if (!isObj(raw)) return
  const m = isObj(raw.info) ? raw.info : raw
  // every message read moves as_of; an assistant's names the model (with tokens or not)
  const time = isObj(m.time) ? (m.time.completed ?? m.time.created) : undefined
  tally.seen(time)
  if ((m.role ?? m.type) !== 'assistant') return
  const model = typeof m.modelID === 'string' ? m.modelID : isObj(m.model) && typeof m.model.id === 'string' ? m.model.id : undefined
  if (model) tally.model = model
  if (!isObj(m.tokens)) return
  const tk = m.tokens
  const cache = isObj(tk.cache) ? tk.cache : {}
  const turn = { input: count(tk.input), output: count(tk.output), cacheRead: count(cache.read), cacheWrite: count(cache.write) }
  tally.cacheRead = tally.cacheWrite = true
  tally.addTurn(undefined, turn.input, turn.output, turn.cacheRead, turn.cacheWrite)
  if (isCost(m.cost)) tally.addCost(m.cost)
  const prompt = turn.input + turn.cacheRead + turn.cacheWrite
  if (prompt + turn.output === 0) return // still streaming, or failed before an answer
  tally.setContext(prompt)
}
