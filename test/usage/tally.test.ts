// The usage readers over odd records: nothing throws, no NaN or negative figure
// reaches the wire, a field never stated stays absent, and the index cache's
// JSON round-trips or is refused.
import { expect, test } from 'bun:test'
import { Value } from '@sinclair/typebox/value'
import { addClaudeUsage } from '../../src/usage/kinds/claude'
import { addCodexUsage } from '../../src/usage/kinds/codex'
import { addOpencodeUsage } from '../../src/usage/kinds/opencode'
import { addPiUsage } from '../../src/usage/kinds/pi'
import { UsageSchema, UsageTally, windowInModelName } from '../../src/usage/tally'

const HEAD = { pane_id: 'w1:p1', agent_kind: 'x', session_id: 's' }
// the answer's time: as_of when no record was read
const NOW = '2030-01-01T00:00:00.000Z'
const ODD = [null, -5, Number.NaN, '12', Number.POSITIVE_INFINITY, 1e20, [], {}, { a: 1 }, true]

test('odd values in every field: no throw, no NaN, no negative count, schema-valid', () => {
  const readers = [addClaudeUsage, addPiUsage, addCodexUsage, addOpencodeUsage]
  const shapes = (v: unknown) => [
    {
      type: 'assistant',
      message: { id: v, model: v, usage: { input_tokens: v, output_tokens: v, cache_read_input_tokens: v, cache_creation_input_tokens: v } },
    },
    { type: 'cost-state', totalCostUSD: v },
    { type: 'message', message: { role: 'assistant', model: v, usage: { input: v, output: v, cacheRead: v, cacheWrite: v, cost: { total: v } } } },
    {
      type: 'event_msg',
      payload: {
        type: 'token_count',
        info: { last_token_usage: { input_tokens: v }, total_token_usage: { input_tokens: v, cached_input_tokens: v }, model_context_window: v },
        rate_limits: { primary: { used_percent: v, window_minutes: v, resets_at: v }, secondary: { used_percent: 1, resets_in_seconds: v } },
      },
    },
    { type: 'turn_context', payload: { model: v } },
    { info: { role: 'assistant', tokens: { input: v, output: v, cache: v }, cost: v, modelID: v, time: v } },
    { type: 'assistant', message: v },
    { type: 'event_msg', payload: v },
  ]
  for (const read of readers) {
    const t = new UsageTally()
    for (const v of ODD) for (const rec of shapes(v)) read(t, rec as any)
    const r = t.report(HEAD, NOW)
    expect(Value.Errors(UsageSchema, r).First()).toBeUndefined()
    expect(JSON.stringify({ ...r, as_of: undefined })).not.toMatch(/null|NaN|-\d/)
    expect(Number.isNaN(Date.parse(r.as_of))).toBe(false)
  }
})

test('nothing recorded: only the head', () => {
  const t = new UsageTally()
  addClaudeUsage(t, { type: 'user', message: { content: 'hi' } })
  addClaudeUsage(t, { type: 'assistant', message: { model: '<synthetic>', usage: { input_tokens: 0, output_tokens: 0 } } })
  expect(t.report(HEAD, NOW)).toEqual({ ...HEAD, as_of: NOW })
})

test('a repeated message id replaces its figures (the later block has the final output), a new id adds', () => {
  const t = new UsageTally()
  const rec = (id: string, out: number) => ({ type: 'assistant', message: { id, model: 'm', usage: { input_tokens: 5, output_tokens: out } } })
  addClaudeUsage(t, rec('a', 1))
  addClaudeUsage(t, rec('a', 30))
  addClaudeUsage(t, rec('b', 2))
  expect(t.report(HEAD, NOW).tokens).toEqual({ input: 10, output: 32, cache_read: 0, cache_write: 0 })
})

test('the window only where the model name states it', () => {
  expect([
    windowInModelName('claude-sonnet-4-5[1m]'),
    windowInModelName('x[200k]'),
    windowInModelName('claude-opus-4-6'),
    windowInModelName(undefined),
  ]).toEqual([1_000_000, 200_000, undefined, undefined])
})

test('toJSON → JSON text → fromJSON keeps the tally; anything else is refused', () => {
  const t = new UsageTally()
  addPiUsage(t, {
    type: 'message',
    timestamp: 't1',
    message: { role: 'assistant', model: 'm', usage: { input: 3, output: 4, cacheRead: 5, cacheWrite: 6, cost: { total: 0.5 } } },
  })
  const back = UsageTally.fromJSON(JSON.parse(JSON.stringify(t.toJSON())))
  expect(back!.report(HEAD, NOW)).toEqual(t.report(HEAD, NOW))
  for (const bad of [null, 3, 'x', {}, { ...t.toJSON(), extra: 1 }]) expect(UsageTally.fromJSON(bad)).toBeUndefined()
})
