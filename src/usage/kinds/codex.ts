// codex's usage (docs/reference/pi-opencode-codex.md §C.6): `token_count` events carry the
// last request's usage, the session's totals, the model's context window and
// the plan's rate limits; `turn_context` names the model.
import { isObj, type Obj } from '../../transcript/tool-summary'
import { count, isCost, type UsageLimit, type UsageTally } from '../tally'

/** Folds one codex rollout record into the tally. Never throws on an odd shape. */
export function addCodexUsage(tally: UsageTally, rec: Obj): void {
  // every record read moves as_of, usage or not: the figures hold as of the newest record
  tally.seen(rec.timestamp)
  const p = rec.payload
  if (!isObj(p)) return
  if (rec.type === 'turn_context') {
    if (typeof p.model === 'string' && p.model) tally.model = p.model
    return
  }
  if (rec.type !== 'event_msg') return
  if (p.type === 'task_started' || p.type === 'turn_started') {
    if (count(p.model_context_window) > 0) tally.window = count(p.model_context_window)
    return
  }
  if (p.type !== 'token_count') return
  const info = p.info
  if (isObj(info)) {
    const window = count(info.model_context_window) || undefined
    // OpenAI's input_tokens include the cached ones: the prompt is input_tokens
    const prompt = isObj(info.last_token_usage) ? count(info.last_token_usage.input_tokens) : 0
    if (prompt > 0) tally.setContext(prompt, window)
    else if (window !== undefined) tally.window = window
    const total = info.total_token_usage
    if (isObj(total)) {
      const cached = count(total.cached_input_tokens)
      tally.cacheRead = true
      tally.cacheWrite = 'cache_write_input_tokens' in total
      tally.setTotals({
        input: Math.max(0, count(total.input_tokens) - cached),
        output: count(total.output_tokens),
        cacheRead: cached,
        cacheWrite: count(total.cache_write_input_tokens),
      })
    }
  }
  const limits = limitsOf(p.rate_limits, rec.timestamp)
  if (limits) tally.limits = limits
}

/** codex's `rate_limits` {primary, secondary: {used_percent, window_minutes?, resets_at? (s) | resets_in_seconds?}}. */
function limitsOf(rl: unknown, timestamp: unknown): UsageLimit[] | undefined {
  if (!isObj(rl)) return undefined
  const out: UsageLimit[] = []
  for (const which of ['primary', 'secondary'] as const) {
    const w = rl[which]
    if (!isObj(w) || !isCost(w.used_percent)) continue
    const limit: UsageLimit = { name: windowName(w.window_minutes) ?? which, used_pct: w.used_percent }
    const at = resetsAt(w, timestamp)
    if (at) limit.resets_at = at
    out.push(limit)
  }
  return out.length ? out : undefined
}

/** 300 → "5h", 10080 → "weekly": how codex's own status line names its windows. */
function windowName(minutes: unknown): string | undefined {
  const m = count(minutes)
  if (!m) return undefined
  if (m === 10080) return 'weekly'
  if (m % 1440 === 0) return `${m / 1440}d`
  if (m % 60 === 0) return `${m / 60}h`
  return `${m}m`
}

function resetsAt(w: Obj, timestamp: unknown): string | undefined {
  if (count(w.resets_at) > 0) return isoOf(count(w.resets_at) * 1000)
  const base = typeof timestamp === 'string' ? Date.parse(timestamp) : Number.NaN
  if (count(w.resets_in_seconds) > 0 && Number.isFinite(base)) return isoOf(base + count(w.resets_in_seconds) * 1000)
  return undefined
}

/** An ISO time, or undefined for a figure no Date can hold. */
function isoOf(ms: number): string | undefined {
  const d = new Date(ms)
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString()
}
