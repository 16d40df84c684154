// A session's usage as its own records state it: the last turn's prompt size
// (context), token totals, cost and the plan's limits. Pure and serialisable:
// the JSONL index pass folds it (src/usage/folds.ts) beside the entry count, the
// on-disk index cache keeps it, and GET /usage reads it (docs/bridge.md, "Usage").
// A figure the agent does not record stays undefined: nothing here estimates.
import { t, type Static } from 'elysia'

export const UsageLimitSchema = t.Object({
  name: t.String({ description: 'the limit as the agent names it (codex: its window, "5h" or "weekly")' }),
  used_pct: t.Number(),
  resets_at: t.Optional(t.String({ description: 'ISO 8601' })),
})
export type UsageLimit = Static<typeof UsageLimitSchema>

export const UsageSchema = t.Object({
  pane_id: t.String(),
  agent_kind: t.String(),
  session_id: t.String(),
  model: t.Optional(t.String({ description: 'the model of the last turn, as recorded' })),
  context: t.Optional(
    t.Object(
      {
        used_tokens: t.Integer({ description: "the last turn's prompt: input plus cache reads and writes" }),
        window_tokens: t.Optional(t.Integer({ description: 'as the agent records it (codex), or as the model name states it' })),
        pct: t.Optional(t.Integer({ description: 'used_tokens / window_tokens, in percent (rounded)' })),
      },
      { description: 'absent when the session records no usage' },
    ),
  ),
  tokens: t.Optional(
    t.Object(
      {
        input: t.Integer({ description: 'input tokens not read from or written to the cache' }),
        output: t.Integer(),
        cache_read: t.Optional(t.Integer()),
        cache_write: t.Optional(t.Integer()),
      },
      { description: 'the whole session so far' },
    ),
  ),
  cost_usd: t.Optional(t.Number({ description: 'only where the agent records cost' })),
  limits: t.Optional(t.Array(UsageLimitSchema, { description: "the plan's rate limits, where the agent reports them (codex)" })),
  as_of: t.String({ description: 'ISO 8601 time of the newest record read (usage or not); the time of the answer when none was read yet' }),
})
export type Usage = Static<typeof UsageSchema>

interface Tokens {
  input: number
  output: number
  cacheRead: number
  cacheWrite: number
}
const zero = (): Tokens => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 })

/** One API response's usage, as recorded. */
export interface TurnUsage extends Tokens {
  /** the response's id, where records repeat one response's usage (Claude: one record per block) */
  id?: string
}

/** The folded usage of one session. Mutable accumulator; toJSON/fromJSON for the index cache. */
export class UsageTally {
  model: string | undefined = undefined
  contextUsed: number | undefined = undefined
  window: number | undefined = undefined
  /** token totals of responses done with (a repeated id is still open) */
  private done: Tokens = zero()
  private open: TurnUsage | undefined = undefined
  /** false until a record stated tokens: then `tokens` is reported */
  hasTokens = false
  /** whether the kind records cache reads / writes at all */
  cacheRead = false
  cacheWrite = false
  costUsd: number | undefined = undefined
  limits: UsageLimit[] | undefined = undefined
  asOf: string | undefined = undefined

  /**
   * Adds one response's usage to the totals. A response recorded again under
   * the same id (Claude writes one record per content block, each with the
   * usage so far) replaces the earlier figures instead of adding to them. The
   * index pass calls this for every response of a long session: no allocation
   * but the first.
   */
  addTurn(id: string | undefined, input: number, output: number, cacheRead: number, cacheWrite: number): void {
    this.hasTokens = true
    let o = this.open
    if (o && !(id !== undefined && o.id === id)) this.commit(o)
    if (!o) o = this.open = { id, input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }
    o.id = id
    o.input = input
    o.output = output
    o.cacheRead = cacheRead
    o.cacheWrite = cacheWrite
  }

  /** Totals stated whole by the agent (codex's total_token_usage): they replace what was added. */
  setTotals(t: Tokens): void {
    this.hasTokens = true
    this.open = undefined
    this.done = { ...t }
  }

  /** The prompt of the newest turn, and the context window when stated with it. */
  setContext(used: number, window?: number): void {
    this.contextUsed = used
    if (window !== undefined) this.window = window
  }

  addCost(usd: number): void {
    this.costUsd = (this.costUsd ?? 0) + usd
  }

  seen(timestamp: unknown): void {
    if (typeof timestamp === 'string' && timestamp) this.asOf = timestamp
    else if (typeof timestamp === 'number' && Math.abs(timestamp) <= 8.64e15) this.asOf = new Date(timestamp).toISOString()
  }

  totals(): Tokens {
    const t = { ...this.done }
    if (this.open) {
      t.input += this.open.input
      t.output += this.open.output
      t.cacheRead += this.open.cacheRead
      t.cacheWrite += this.open.cacheWrite
    }
    return t
  }

  private commit(u: Tokens): void {
    this.done.input += u.input
    this.done.output += u.output
    this.done.cacheRead += u.cacheRead
    this.done.cacheWrite += u.cacheWrite
  }

  /** The wire shape for a pane's session; `now` is its as_of when no record was read yet. */
  report(head: { pane_id: string; agent_kind: string; session_id: string }, now: string): Usage {
    // (a record's time is kept as written; one that is no time does not make as_of)
    const out: Usage = { ...head, as_of: this.asOf !== undefined && !Number.isNaN(Date.parse(this.asOf)) ? this.asOf : now }
    if (this.model !== undefined) out.model = this.model
    const window = this.window ?? windowInModelName(this.model)
    if (this.contextUsed !== undefined) {
      out.context = { used_tokens: this.contextUsed }
      if (window !== undefined && window > 0) {
        out.context.window_tokens = window
        out.context.pct = Math.round((this.contextUsed / window) * 100)
      }
    }
    if (this.hasTokens) {
      const t = this.totals()
      out.tokens = { input: t.input, output: t.output }
      if (this.cacheRead) out.tokens.cache_read = t.cacheRead
      if (this.cacheWrite) out.tokens.cache_write = t.cacheWrite
    }
    if (this.costUsd !== undefined) out.cost_usd = Math.round(this.costUsd * 1e6) / 1e6
    if (this.limits?.length) out.limits = this.limits
    return out
  }

  toJSON(): Record<string, unknown> {
    return { ...(this as object) } as Record<string, unknown>
  }

  /** A tally from toJSON's JSON; undefined when the shape is not this class's (the cache is then rebuilt). */
  static fromJSON(saved: unknown): UsageTally | undefined {
    if (typeof saved !== 'object' || saved === null) return undefined
    const fresh = new UsageTally()
    const known = new Set(Object.keys(fresh))
    // JSON drops the undefined fields; every other one must be there, and nothing else
    for (const k of Object.keys(saved)) if (!known.has(k)) return undefined
    for (const k of ['done', 'hasTokens', 'cacheRead', 'cacheWrite']) if (!(k in saved)) return undefined
    return Object.assign(fresh, structuredClone(saved))
  }
}

/**
 * The context window where the model's name states it (`claude-sonnet-4-5[1m]`,
 * `…[200k]`): the only way a window is known for an agent that does not record it.
 */
export function windowInModelName(model: string | undefined): number | undefined {
  const m = model && /\[(\d+(?:\.\d+)?)([km])\]$/i.exec(model)
  if (!m) return undefined
  return Math.round(Number(m[1]) * (m[2]!.toLowerCase() === 'm' ? 1_000_000 : 1_000))
}

/** A non-negative integer count, or 0 (a record with a hole counts what it states). */
export const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.round(v) : 0)

/** A recorded amount (dollars, percent): finite and not negative. */
export const isCost = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0
