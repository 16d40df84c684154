// The warm-up sample runs the code a first connect runs only if the grammar
// reads it as modelled records: a record that falls back to parsed:false, or a
// tool call without its summary, would warm the fallback instead.
import { expect, test } from 'bun:test'
import { jsonlWarmUp } from '../../../../src/transcript/jsonl/warm-up'
import { countClaudeLine, normalizeClaudeLine } from '../../../../src/transcript/kinds/claude/normalize'
import { claudeFileFold } from '../../../../src/transcript/kinds/claude/file-fold'
import { CLAUDE_WARM_UP_LINES } from '../../../../src/transcript/kinds/claude/warm-up'

const drafts = CLAUDE_WARM_UP_LINES.flatMap((l, i) => normalizeClaudeLine(l, i))

test('every record of the sample is read as modelled: no parsed:false entry, every count equal to its drafts', () => {
  expect(drafts.filter((d) => d.parsed === false)).toEqual([])
  expect(CLAUDE_WARM_UP_LINES.map((l) => countClaudeLine(l, 0))).toEqual(CLAUDE_WARM_UP_LINES.map((l) => normalizeClaudeLine(l, 0).length))
})

test('the sample reaches the builders a session uses: each tool kind, diffs, thinking, results, system text', () => {
  const shapes = new Set(drafts.map((d) => `${d.kind}:${d.role}${d.tool ? `:${d.tool.name}` : ''}`))
  for (const s of ['message:user', 'message:assistant', 'thinking:assistant', 'message:system', 'tool_result:user']) expect(shapes).toContain(s)
  for (const tool of ['Bash', 'Read', 'Edit', 'Write', 'Grep', 'Agent']) expect(shapes).toContain(`tool_call:assistant:${tool}`)
  expect(drafts.filter((d) => d.tool?.diff !== undefined).map((d) => d.tool!.name)).toEqual(['Edit', 'Write'])
})

test('the sample is as long as a session: its loops over long text run long enough to be compiled', () => {
  expect(CLAUDE_WARM_UP_LINES.join('\n').length).toBeGreaterThan(64 * 1024)
  const write = drafts.find((d) => d.kind === 'tool_call' && d.tool?.name === 'Write')
  expect(write?.tool?.diff_truncated).toBe(true) // long enough to meet the diff cap
  // the tool results' own text, before any cap: the test run's output, the file read
  const results = CLAUDE_WARM_UP_LINES.map((l) => JSON.parse(l)).flatMap((r) =>
    Array.isArray(r.message?.content) ? r.message.content.filter((b: { type?: string }) => b.type === 'tool_result') : [],
  )
  const lineCounts = results.map((b: { content: unknown }) => JSON.stringify(b.content).split('\\n').length).sort((a: number, b: number) => b - a)
  expect(lineCounts[0]).toBeGreaterThan(300)
  expect(lineCounts[1]).toBeGreaterThan(100)
})

test("the roster fold learns the sample's spawn, its result and the notice", () => {
  const facts = claudeFileFold.fresh()
  for (const l of CLAUDE_WARM_UP_LINES) claudeFileFold.countAndFold(l, 0, facts)
  expect([...facts.parent.spawns.keys()]).toEqual(['toolu_agent'])
  expect(facts.parent.results.get('toolu_agent')).toMatchObject({ agentId: 'a0000000000000001' })
  expect([...facts.parent.lastStatus]).toEqual([['b0000001', 'completed']])
})

test('a warm-up round runs the whole sample through the index pass and the page read', () => {
  const grammar = { normalize: normalizeClaudeLine, count: countClaudeLine, fold: claudeFileFold }
  expect(jsonlWarmUp(CLAUDE_WARM_UP_LINES, grammar)()).toEqual({ indexed: drafts.length, read: drafts.length })
  expect(drafts.length).toBeGreaterThan(15)
})
