// The roster's parent facts come from the index pass (claudeFileFold): one
// JSON.parse per line both counts the line's entries and folds its facts. So
// the fold must count exactly what countClaudeLine counts and gather exactly the
// facts ParentFacts.addLine gathers, on every real line, bad input and fuzzed
// lines; and its facts must survive the on-disk cache's save/load unchanged.
import { expect, test } from 'bun:test'
import { countClaudeLine } from '../../../../src/transcript/kinds/claude/normalize'
import { claudeFileFold } from '../../../../src/transcript/kinds/claude/file-fold'
import { ParentFacts } from '../../../../src/transcript/kinds/claude/roster-logic'
import { mutateBytes, mutateStructure, rng } from '../../../support/fuzz'
import { corpusFiles, linesOf } from './corpus'

/** Folds lines through the fold (as the index pass does) and through addLine (as the watcher does). */
function bothWays(lines: string[]) {
  const viaFold = claudeFileFold.fresh()
  const viaLines = new ParentFacts()
  const wrongCounts: string[] = []
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue // the index pass never hands over a blank line
    const n = claudeFileFold.countAndFold(line, i, viaFold)
    if (n !== countClaudeLine(line, i)) wrongCounts.push(line.slice(0, 200))
    viaLines.addLine(line)
  }
  return { viaFold, viaLines, wrongCounts }
}

const files = corpusFiles().map((f) => linesOf(f).map((l) => l.line))

test('every corpus file: the fold counts like countClaudeLine and gathers the facts addLine gathers', () => {
  let spawns = 0
  for (const lines of files) {
    const { viaFold, viaLines, wrongCounts } = bothWays(lines)
    expect(wrongCounts).toEqual([])
    expect(viaFold.parent.toJSON()).toEqual(viaLines.toJSON())
    spawns += viaFold.parent.spawns.size
  }
  // the corpus delegates: the equality is about real facts, not empty maps
  expect(spawns).toBeGreaterThan(3)
})

test('fuzz: 4000 mutated real lines fold to the same facts and counts either way', () => {
  const rand = rng(1202)
  const pool = [
    'Agent',
    'Task',
    'tool_use',
    'tool_result',
    'queue-operation',
    'enqueue',
    'attachment',
    'queued_command',
    'user',
    'assistant',
    '<task-notification>\n<task-id>a1</task-id>\n<status>completed</status>\n</task-notification>',
    { run_in_background: true },
    { status: 'async_launched', isAsync: true, agentId: 'a1' },
    'progress',
    'agent_progress',
    { type: 'agent_progress', agentId: 'a9' },
    null,
    3,
    '',
  ]
  const steer = {
    pool,
    bias: 0.7,
    recordish: '"type":"assistant",',
    keys: /^(type|operation|content|name|id|input|tool_use_id|toolUseResult|attachment|prompt|origin|is_error|data|agentId|parentToolUseID)$/,
  }
  const all = files.flat().filter((l) => l.trim() !== '')
  const lines: string[] = []
  for (let i = 0; i < 4000; i++) {
    const original = all[Math.floor(rand() * all.length)]!
    lines.push(rand() < 0.8 ? mutateStructure(original, rand, steer) : mutateBytes(original, rand, steer))
  }
  const { viaFold, viaLines, wrongCounts } = bothWays(lines)
  expect(wrongCounts).toEqual([])
  expect(viaFold.parent.toJSON()).toEqual(viaLines.toJSON())
  expect(viaFold.parent.spawns.size + viaFold.parent.lastStatus.size).toBeGreaterThan(0)
})

test('facts survive save → JSON text → load; anything else is refused', () => {
  const { viaFold } = bothWays(files.flat())
  const back = claudeFileFold.load(JSON.parse(JSON.stringify(claudeFileFold.save(viaFold))))
  expect(back!.parent).toBeInstanceOf(ParentFacts)
  expect(back!.parent.toJSON()).toEqual(viaFold.parent.toJSON())
  expect(back!.usage.report(HEAD, '2030-01-01T00:00:00.000Z')).toEqual(viaFold.usage.report(HEAD, '2030-01-01T00:00:00.000Z'))
  expect(viaFold.usage.report(HEAD, '2030-01-01T00:00:00.000Z').tokens!.output).toBeGreaterThan(0)
  const saved = claudeFileFold.save(viaFold) as { parent: Record<string, unknown>; usage: Record<string, unknown> }
  for (const bad of [
    null,
    7,
    'x',
    [],
    {},
    { parent: saved.parent },
    { usage: saved.usage },
    { ...saved, parent: { ...saved.parent, extra: [] } },
    { ...saved, parent: { ...saved.parent, spawns: 'no' } },
    { ...saved, parent: { ...saved.parent, spawns: [[1, 2]] } },
    { ...saved, parent: { ...saved.parent, spawns: [['a']] } },
    { ...saved, usage: { ...saved.usage, extra: 1 } },
    { ...saved, usage: 'no' },
  ]) {
    expect(claudeFileFold.load(bad)).toBeUndefined()
  }
  const { spawns: _dropped, ...missing } = saved.parent
  expect(claudeFileFold.load({ ...saved, parent: missing })).toBeUndefined()
})

const HEAD = { pane_id: 'p', agent_kind: 'claude', session_id: 's' }
