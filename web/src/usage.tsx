// How full the agent's context is, what the session cost, and the plan's limits
// (GET /usage): a slim bar under the agent's header. Nothing is shown for a
// figure the agent does not record; the whole strip hides when there is none.
import { useEffect, useState } from 'preact/hooks'
import { api } from './api'
import type { PaneRow } from './pane-list'

export interface Usage {
  model?: string
  context?: { used_tokens: number; window_tokens?: number; pct?: number }
  tokens?: { input: number; output: number; cache_read?: number; cache_write?: number }
  cost_usd?: number
  limits?: { name: string; used_pct: number; resets_at?: string }[]
  as_of?: string
}

/** 1234 → "1.2k", 16553628 → "16.6M". */
export function tokensShort(n: number): string {
  if (n < 1000) return String(n)
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`
  return `${(n / 1_000_000).toFixed(1)}M`
}

const dollars = (usd: number) => (usd >= 1 ? `$${usd.toFixed(2)}` : `$${usd.toFixed(usd >= 0.01 ? 3 : 4)}`)
const clock = (iso: string) => new Date(iso).toLocaleString([], { weekday: 'short', hour: '2-digit', minute: '2-digit' })

/** The pane's usage, read again when its row says the session moved on. */
function useUsage(pane: string, row: PaneRow | undefined): Usage | null {
  const [usage, setUsage] = useState<Usage | null>(null)
  useEffect(() => {
    let live = true
    api
      .get(`/usage?pane=${encodeURIComponent(pane)}`)
      .then((u) => live && setUsage(u))
      .catch(() => live && setUsage(null))
    return () => {
      live = false
    }
  }, [pane, row?.agent_status, row?.state_change_seq, row?.context_pct])
  return usage
}

export function UsageStrip({ pane, row }: { pane: string; row: PaneRow | undefined }) {
  const u = useUsage(pane, row)
  if (!u || (!u.context && u.cost_usd === undefined && !u.limits && !u.tokens)) return null
  const ctx = u.context
  const pct = ctx?.pct
  const tokens = u.tokens
  return (
    <section class="usage" aria-label="usage">
      {ctx && (
        <div class="ctx">
          {pct !== undefined && (
            <div class={`ctx-bar${pct >= 80 ? ' ctx-full' : ''}`} aria-hidden="true">
              <div class="ctx-fill" style={{ width: `${Math.min(pct, 100)}%` }} />
            </div>
          )}
          <span class="ctx-text">
            {pct !== undefined
              ? `context ${pct}% · ${tokensShort(ctx.used_tokens)} of ${tokensShort(ctx.window_tokens!)}`
              : `context ${tokensShort(ctx.used_tokens)} tokens`}
          </span>
        </div>
      )}
      <div class="usage-facts">
        {u.cost_usd !== undefined && <span class="cost">{dollars(u.cost_usd)}</span>}
        {tokens && (
          <span class="tokens">
            {`in ${tokensShort(tokens.input)} · out ${tokensShort(tokens.output)}`}
            {tokens.cache_read ? ` · cache ${tokensShort(tokens.cache_read)}` : ''}
          </span>
        )}
        {u.model && <span class="model">{u.model}</span>}
      </div>
      {u.limits && (
        <ul class="limits">
          {u.limits.map((l) => (
            <li key={l.name}>
              {`${l.name} limit ${Math.round(l.used_pct)}%`}
              {l.resets_at ? ` · resets ${clock(l.resets_at)}` : ''}
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
