// Every real session file in fixtures/ (Claude Code 2.1.39 / 2.1.197 / 2.1.332,
// pi 0.73.1, codex 0.171.0): the usage the index pass folds line by line equals
// what a plain whole-file reading of the records gives (written here the simple
// way: every record parsed, grouped, the last one taken). The hand-checked
// figures of particular sessions are in usage-e2e.test.ts.
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { countClaudeLine } from '../../src/transcript/kinds/claude/normalize'
import { claudeFileFold } from '../../src/transcript/kinds/claude/file-fold'
import { countCodexLineTapped } from '../../src/transcript/kinds/codex/normalize'
import { countPiLineTapped } from '../../src/transcript/kinds/pi/normalize'
import { usageFold } from '../../src/usage/fold'
import { addCodexUsage } from '../../src/usage/kinds/codex'
import { addPiUsage } from '../../src/usage/kinds/pi'
import type { Usage } from '../../src/usage/tally'
import { jsonlFiles, linesOf } from '../support/fuzz'

const FIX = join(import.meta.dir, '../../fixtures')
const HEAD = { pane_id: 'p', agent_kind: 'k', session_id: 's' }
// the answer's time, as_of when no record was read
const NOW = '2030-01-01T00:00:00.000Z'
const sessions = (dir: string) => jsonlFiles(join(FIX, dir)).filter((f) => !f.includes('/subagents/'))
const records = (file: string): any[] =>
  linesOf(file).flatMap(({ line }) => {
    try {
      const r = JSON.parse(line)
      return r && typeof r === 'object' && !Array.isArray(r) ? [r] : []
    } catch {
      return []
    }
  })
const n = (v: unknown) => (typeof v === 'number' && v > 0 ? v : 0)

function claudeByHand(file: string): Usage {
  const out: Usage = { ...HEAD, as_of: NOW }
  const byId = new Map<string, any>()
  let anon = 0
  let last: any
  for (const r of records(file)) {
    if (typeof r.timestamp === 'string' && r.timestamp) out.as_of = r.timestamp
    if (r.type === 'cost-state' && typeof r.totalCostUSD === 'number') out.cost_usd = r.totalCostUSD
    const m = r.type === 'assistant' ? r.message : undefined
    if (m && typeof m.model === 'string' && m.model !== '<synthetic>' && r.isSidechain !== true) out.model = m.model
    if (!m?.usage || m.model === '<synthetic>') continue
    byId.set(typeof m.id === 'string' ? m.id : `anon${anon++}`, m.usage)
    const u = m.usage
    if (r.isSidechain !== true && n(u.input_tokens) + n(u.output_tokens) + n(u.cache_read_input_tokens) + n(u.cache_creation_input_tokens) > 0) last = r
  }
  if (last) {
    const u = last.message.usage
    out.context = { used_tokens: n(u.input_tokens) + n(u.cache_read_input_tokens) + n(u.cache_creation_input_tokens) }
  }
  if (byId.size) {
    const us = [...byId.values()]
    const sum = (k: string) => us.reduce((a, u) => a + n(u[k]), 0)
    out.tokens = {
      input: sum('input_tokens'),
      output: sum('output_tokens'),
      cache_read: sum('cache_read_input_tokens'),
      cache_write: sum('cache_creation_input_tokens'),
    }
  }
  return out
}

function piByHand(file: string): Usage {
  const out: Usage = { ...HEAD, as_of: NOW }
  for (const r of records(file)) {
    if (typeof r.timestamp === 'string' && r.timestamp) out.as_of = r.timestamp
    if (r.type === 'message' && r.message?.role === 'assistant' && r.message.model) out.model = r.message.model
  }
  const msgs = records(file).filter((r) => r.type === 'message' && r.message?.role === 'assistant' && r.message.usage)
  if (!msgs.length) return out
  const sum = (k: string) => msgs.reduce((a, r) => a + n(r.message.usage[k]), 0)
  out.tokens = { input: sum('input'), output: sum('output'), cache_read: sum('cacheRead'), cache_write: sum('cacheWrite') }
  const lastAnswered = msgs
    .filter((r) => n(r.message.usage.input) + n(r.message.usage.output) + n(r.message.usage.cacheRead) + n(r.message.usage.cacheWrite) > 0)
    .pop()
  if (lastAnswered) {
    const u = lastAnswered.message.usage
    out.context = { used_tokens: n(u.input) + n(u.cacheRead) + n(u.cacheWrite) }
  }
  const costs = msgs.map((r) => r.message.usage.cost?.total).filter((c) => typeof c === 'number')
  if (costs.length) out.cost_usd = costs.reduce((a, b) => a + b, 0)
  return out
}

function codexByHand(file: string): Usage {
  const out: Usage = { ...HEAD, as_of: NOW }
  const recs = records(file)
  const stamped = recs.filter((r) => typeof r.timestamp === 'string' && r.timestamp).pop()
  if (stamped) out.as_of = stamped.timestamp
  const model = recs.filter((r) => r.type === 'turn_context').pop()?.payload?.model
  if (model) out.model = model
  const tc = recs.filter((r) => r.type === 'event_msg' && r.payload?.type === 'token_count' && r.payload.info).pop()
  if (tc) {
    const { last_token_usage: l, total_token_usage: t, model_context_window: w } = tc.payload.info
    out.context = { used_tokens: l.input_tokens, window_tokens: w, pct: Math.round((l.input_tokens / w) * 100) }
    out.tokens = {
      input: t.input_tokens - t.cached_input_tokens,
      output: t.output_tokens,
      cache_read: t.cached_input_tokens,
      cache_write: t.cache_write_input_tokens,
    }
  }
  return out
}

const folded = <F>(file: string, fold: { fresh(): F; countAndFold(l: string, o: number, f: F): number }, report: (f: F) => Usage) => {
  const facts = fold.fresh()
  for (const { line, offset } of linesOf(file)) if (line.trim()) fold.countAndFold(line, offset, facts)
  return report(facts)
}

const KINDS = [
  {
    kind: 'claude',
    files: [...sessions('claude'), ...sessions('screens').filter((f) => /\/cc/.test(f))],
    byHand: claudeByHand,
    fold: (f: string) => folded(f, claudeFileFold, (x) => x.usage.report(HEAD, NOW)),
  },
  {
    kind: 'pi',
    files: [...sessions('pi'), ...sessions('screens').filter((f) => /\/pi-/.test(f))],
    byHand: piByHand,
    fold: (f: string) => folded(f, usageFold('t', countPiLineTapped, addPiUsage), (x) => x.report(HEAD, NOW)),
  },
  {
    kind: 'codex',
    files: [...sessions('codex'), ...sessions('screens').filter((f) => /\/codex-/.test(f))],
    byHand: codexByHand,
    fold: (f: string) => folded(f, usageFold('t', countCodexLineTapped, addCodexUsage), (x) => x.report(HEAD, NOW)),
  },
]

for (const k of KINDS) {
  describe(`${k.kind}: every corpus session`, () => {
    test(`there are sessions with usage to compare (${k.files.length} files)`, () => {
      expect(k.files.filter((f) => k.byHand(f).context).length).toBeGreaterThan(1)
    })
    for (const f of k.files) test(f.slice(FIX.length + 1), () => expect(k.fold(f)).toEqual(k.byHand(f)))
  })
}

test('the Claude fold still counts like countClaudeLine on every file (usage rides on the same parse)', () => {
  for (const f of KINDS[0]!.files) {
    const facts = claudeFileFold.fresh()
    for (const { line, offset } of linesOf(f)) if (line.trim()) expect(claudeFileFold.countAndFold(line, offset, facts)).toBe(countClaudeLine(line, offset))
  }
})
