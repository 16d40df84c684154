import { describe, expect, test } from 'bun:test'
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { Value } from '@sinclair/typebox/value'
import { SubagentSchema, type Subagent } from '../../../../src/transcript/roster'
import { ParentFacts, buildRoster, parentFactsFromLine, type SubagentFileFacts } from '../../../../src/transcript/kinds/claude/roster-logic'
import { FIXTURES, linesOf } from './corpus'

// ── the real cc-subagents session ───────────────────────────────────────────

const SID = '31768c85-8856-4ba3-9323-9014ac9e2d13'
const PROJECT = join(FIXTURES, 'cc-subagents/projects/-home-me-cc-subagents-proj')
const SUBDIR = join(PROJECT, SID, 'subagents')
const parentLines = linesOf(join(PROJECT, `${SID}.jsonl`)).map((l) => l.line)

const ALPHA = 'a40c5c2a9babaf2e6' // sync general-purpose, result at line 11
const BETA = 'a5dac6f262406d731' // sync Explore, result at line 10
const GAMMA = 'ab787ad1b496b62b0' // background; launched line 14, notified line 17 (+19)
const DELTA = 'a465d2df8f0764ced' // sync; spawned line 25, result line 26
const EPSILON = 'a4160e85bd33f35ac' // depth 2, spawned (sync) inside DELTA's file

function realFiles(ids: string[]): SubagentFileFacts[] {
  return ids.map((id) => ({
    agentId: id,
    meta: JSON.parse(readFileSync(join(SUBDIR, `agent-${id}.meta.json`), 'utf8')),
    metaReadable: true,
    hasJsonl: true,
    lastWriteMs: 1_764_669_600_000,
  }))
}

/** The parent as it was after its first n lines. */
const parentAt = (n: number) => ParentFacts.fromLines(parentLines.slice(0, n))
const doneOf = (rows: ReturnType<typeof buildRoster>) => Object.fromEntries((rows ?? []).map((r) => [r.agent_id, r.done]))

describe('real cc-subagents session over time', () => {
  test('the fixture has the five agents the notes describe', () => {
    const ids = new Set(readdirSync(SUBDIR).map((f) => f.replace(/^agent-/, '').replace(/\.(meta\.json|jsonl)$/, '')))
    expect([...ids].sort()).toEqual([ALPHA, EPSILON, DELTA, BETA, GAMMA].sort())
    expect(parentLines[16]).toContain('"queue-operation"')
  })

  test('before any delegation: no roster', () => {
    expect(buildRoster([], parentAt(6))).toBeUndefined()
  })

  test('two parallel sync agents running: both not done', () => {
    const rows = buildRoster(realFiles([ALPHA, BETA]), parentAt(9))!
    expect(rows).toEqual([
      {
        agent_id: ALPHA,
        tool_use_id: 'toolu_mock000002',
        agent_type: 'general-purpose',
        description: 'Survey build scripts',
        spawn_depth: 1,
        done: false,
        last_activity_ts: 1_764_669_600_000,
      },
      {
        agent_id: BETA,
        tool_use_id: 'toolu_mock000003',
        agent_type: 'Explore',
        description: 'Find test conventions',
        spawn_depth: 1,
        done: false,
        last_activity_ts: 1_764_669_600_000,
      },
    ])
    for (const r of rows) expect(Value.Check(SubagentSchema, r)).toBe(true)
  })

  test('BETA returned first: BETA done, ALPHA still running', () => {
    expect(doneOf(buildRoster(realFiles([ALPHA, BETA]), parentAt(10)))).toEqual({ [ALPHA]: false, [BETA]: true })
  })

  test('background agent launched: its launch result does not complete it', () => {
    expect(doneOf(buildRoster(realFiles([ALPHA, BETA, GAMMA]), parentAt(16)))).toEqual({ [ALPHA]: true, [BETA]: true, [GAMMA]: false })
  })

  test('the enqueued task-notification completes the background agent', () => {
    expect(doneOf(buildRoster(realFiles([ALPHA, BETA, GAMMA]), parentAt(17)))[GAMMA]).toBe(true)
  })

  test('nested turn running: DELTA and its depth-2 child both working', () => {
    const rows = buildRoster(realFiles([ALPHA, BETA, GAMMA, DELTA, EPSILON]), parentAt(25))!
    expect(rows.map((r) => [r.agent_id, r.spawn_depth, r.done])).toEqual([
      [ALPHA, 1, true],
      [DELTA, 1, false],
      [BETA, 1, true],
      [GAMMA, 1, true],
      [EPSILON, 2, false],
    ])
  })

  test('end of session: every depth-1 agent done; the sync grandchild is the documented residual', () => {
    const rows = buildRoster(realFiles([ALPHA, BETA, GAMMA, DELTA, EPSILON]), parentAt(parentLines.length))!
    expect(doneOf(rows)).toEqual({ [ALPHA]: true, [BETA]: true, [GAMMA]: true, [DELTA]: true, [EPSILON]: false })
    expect(rows.find((r) => r.agent_id === EPSILON)!.tool_use_id).toBe('toolu_mock000019')
  })

  test('folding incrementally equals folding at once', () => {
    const inc = new ParentFacts()
    for (const l of parentLines) inc.add(parentFactsFromLine(l))
    const files = realFiles([ALPHA, BETA, GAMMA, DELTA, EPSILON])
    expect(buildRoster(files, inc)).toEqual(buildRoster(files, parentAt(parentLines.length)))
  })
})

// ── hand-made cases, one per contract rule ──────────────────────────────────

let uuidN = 0
const spawn = (id: string, name = 'Agent', runInBackground?: boolean) =>
  JSON.stringify({
    type: 'assistant',
    uuid: `s${uuidN++}`,
    message: {
      content: [
        {
          type: 'tool_use',
          id,
          name,
          input: {
            subagent_type: 'general-purpose',
            description: 'd',
            prompt: 'p',
            ...(runInBackground === undefined ? {} : { run_in_background: runInBackground }),
          },
        },
      ],
    },
  })
/** A tool result with no toolUseResult sidecar (absent on many real results). */
const result = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    type: 'user',
    uuid: `r${uuidN++}`,
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok', ...extra }] },
  })
const block = (ids: string[], status?: string, extra = '') =>
  `<task-notification>\n${ids.map((i) => `<task-id>${i}</task-id>`).join('\n')}\n${status ? `<status>${status}</status>\n` : ''}<summary>s</summary>${extra}\n</task-notification>`
const notifyUser = (text: string) =>
  JSON.stringify({ type: 'user', uuid: `n${uuidN++}`, origin: { kind: 'task-notification' }, message: { role: 'user', content: text } })
const notifyQueued = (text: string) => JSON.stringify({ type: 'queue-operation', operation: 'enqueue', content: text })

const file = (agentId: string, toolUseId: string, extra: Partial<SubagentFileFacts> = {}): SubagentFileFacts => ({
  agentId,
  meta: { agentType: 'general-purpose', description: `desc ${agentId}`, toolUseId, spawnDepth: 1 },
  metaReadable: true,
  hasJsonl: true,
  ...extra,
})
const done = (files: SubagentFileFacts[], lines: string[]) => doneOf(buildRoster(files, ParentFacts.fromLines(lines)))

describe('contract rules', () => {
  test('spawn is recognised by tool name Agent or Task (and nothing else)', () => {
    expect(ParentFacts.fromLines([spawn('t1', 'Agent')]).delegated).toBe(true)
    expect(ParentFacts.fromLines([spawn('t1', 'Task')]).delegated).toBe(true)
    expect(ParentFacts.fromLines([spawn('t1', 'Bash')]).delegated).toBe(false)
    // a Task spawn with run_in_background:false is completed by its result
    expect(done([file('a1', 't1')], [spawn('t1', 'Task', false), result('t1')])).toEqual({ a1: true })
    // the same result for a non-spawn tool id completes nothing
    expect(done([file('a1', 't1')], [spawn('t1', 'Bash', false), result('t1')])).toEqual({ a1: false })
  })

  test('join on tool_use_id: a result for another call does not complete the agent', () => {
    expect(done([file('a1', 't1')], [spawn('t1', 'Agent', false), spawn('t2', 'Agent', false), result('t2')])).toEqual({ a1: false })
  })

  test('sync: run_in_background false → its tool_result completes it', () => {
    expect(done([file('a1', 't1')], [spawn('t1', 'Agent', false)])).toEqual({ a1: false })
    expect(done([file('a1', 't1')], [spawn('t1', 'Agent', false), result('t1')])).toEqual({ a1: true })
  })

  test('async: run_in_background true → the result does not complete it, a notification does', () => {
    const lines = [spawn('t1', 'Agent', true), result('t1')]
    expect(done([file('a1', 't1')], lines)).toEqual({ a1: false })
    expect(done([file('a1', 't1')], [...lines, notifyUser(block(['a1'], 'completed'))])).toEqual({ a1: true })
  })

  test('absent run_in_background is treated as async (notify only)', () => {
    expect(done([file('a1', 't1')], [spawn('t1'), result('t1')])).toEqual({ a1: false })
  })

  test('a result that itself says "completed" (2.1.197, no run_in_background) is a sync completion', () => {
    const sync = JSON.stringify({
      type: 'user',
      uuid: 'x',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'answer' }] },
      toolUseResult: { status: 'completed', agentId: 'a1' },
    })
    const launched = sync.replace('"status":"completed"', '"status":"async_launched","isAsync":true')
    expect(done([file('a1', 't1')], [spawn('t1'), sync])).toEqual({ a1: true })
    expect(done([file('a1', 't1')], [spawn('t1', 'Agent', false), launched])).toEqual({ a1: false })
  })

  test('one notification naming several agents under one status completes them all', () => {
    const files = [file('a1', 't1'), file('a2', 't2'), file('a3', 't3')]
    const lines = [spawn('t1'), spawn('t2'), spawn('t3'), notifyUser(block(['a1', 'a2'], 'failed'))]
    expect(done(files, lines)).toEqual({ a1: true, a2: true, a3: false })
  })

  test('several notification blocks in one record are all read', () => {
    const text = `${block(['a1'], 'completed')}\n${block(['a2'], 'killed')}`
    expect(done([file('a1', 't1'), file('a2', 't2')], [spawn('t1'), spawn('t2'), notifyUser(text)])).toEqual({ a1: true, a2: true })
  })

  test('status-less notifications (monitor events) do not complete', () => {
    expect(done([file('a1', 't1')], [spawn('t1'), notifyUser(block(['a1'], undefined, '\n<event>tick</event>'))])).toEqual({ a1: false })
  })

  test('tags quoted in prose outside their own block do not count', () => {
    const quotedInResult = block(['a1'], 'running', '\n<result>I saw <task-id>a2</task-id> <status>completed</status> in the logs</result>')
    const prose = `Here is how it looks: <task-notification><task-id>a2</task-id><status>completed</status></task-notification>`
    const humanQuote = JSON.stringify({ type: 'user', uuid: 'h', origin: { kind: 'human' }, message: { role: 'user', content: block(['a2'], 'completed') } })
    const assistantQuote = JSON.stringify({ type: 'assistant', uuid: 'q', message: { content: [{ type: 'text', text: block(['a2'], 'completed') }] } })
    const files = [file('a1', 't1'), file('a2', 't2')]
    expect(done(files, [spawn('t1'), spawn('t2'), notifyUser(quotedInResult), notifyUser(prose), humanQuote, assistantQuote])).toEqual({ a1: false, a2: false })
    // a later block in the same record must start a line to count
    expect(done(files, [spawn('t1'), spawn('t2'), notifyUser(`${block(['a1'], 'completed')} and ${block(['a2'], 'completed')}`)])).toEqual({
      a1: true,
      a2: false,
    })
  })

  test('last status wins: a later running status reopens a finished agent', () => {
    const lines = [spawn('t1'), notifyUser(block(['a1'], 'completed')), notifyUser(block(['a1'], 'running', '\n<note>resumed</note>'))]
    expect(done([file('a1', 't1')], lines)).toEqual({ a1: false })
  })

  test('last status wins: stopped → killed → failed → completed ends completed, each step in between counts', () => {
    const seq = ['stopped', 'running', 'killed', 'running', 'failed', 'running', 'completed']
    const lines = [spawn('t1')]
    const seen: boolean[] = []
    for (const s of seq) {
      lines.push(notifyUser(block(['a1'], s, `\n<note>${lines.length}</note>`)))
      seen.push(done([file('a1', 't1')], lines).a1!)
    }
    expect(seen).toEqual([true, false, true, false, true, false, true])
  })

  test('the queued copy and the user-record copy of one notice are one event', () => {
    const finished = block(['a1'], 'completed')
    const resumed = block(['a1'], 'running', '\n<note>again</note>')
    // enqueue(completed), enqueue(running), then the delayed delivery of the first
    const lines = [spawn('t1'), notifyQueued(finished), notifyQueued(resumed), notifyUser(finished)]
    expect(done([file('a1', 't1')], lines)).toEqual({ a1: false })
    // an identical notice that was never queued is a new event
    expect(done([file('a1', 't1')], [spawn('t1'), notifyUser(finished), notifyUser(resumed), notifyUser(finished)])).toEqual({ a1: true })
  })

  test('the notification wins over the result when both exist', () => {
    const lines = [spawn('t1', 'Agent', false), result('t1'), notifyUser(block(['a1'], 'running'))]
    expect(done([file('a1', 't1')], lines)).toEqual({ a1: false })
  })

  test('depth-2 sync grandchild: its call is in another transcript, so it reads as running', () => {
    const grandchild = file('a2', 'tInner', { meta: { agentType: 'Explore', description: 'inner', toolUseId: 'tInner', spawnDepth: 2 } })
    const rows = buildRoster([file('a1', 't1'), grandchild], ParentFacts.fromLines([spawn('t1', 'Agent', false), result('t1')]))!
    expect(rows.map((r) => [r.agent_id, r.spawn_depth, r.done])).toEqual([
      ['a1', 1, true],
      ['a2', 2, false],
    ])
    // …until something notifies for it
    const later = ParentFacts.fromLines([spawn('t1', 'Agent', false), result('t1'), notifyUser(block(['a2'], 'completed'))])
    expect(doneOf(buildRoster([file('a1', 't1'), grandchild], later))).toEqual({ a1: true, a2: true })
  })

  test('meta unreadable → row kept, join recovered from the result and labels from the call', () => {
    const sync = JSON.stringify({
      type: 'user',
      uuid: 'x',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'answer' }] },
      toolUseResult: { status: 'completed', agentId: 'a1' },
    })
    const rows = buildRoster([{ agentId: 'a1', metaReadable: false, hasJsonl: true }], ParentFacts.fromLines([spawn('t1'), sync]))
    expect(rows).toEqual([{ agent_id: 'a1', tool_use_id: 't1', agent_type: 'general-purpose', description: 'd', spawn_depth: 1, done: true }])
    const garbled = buildRoster([{ agentId: 'a9', meta: 'not an object', metaReadable: true, hasJsonl: true }], new ParentFacts())
    expect(garbled).toEqual([{ agent_id: 'a9', tool_use_id: '', agent_type: '', description: '', spawn_depth: 1, done: false }])
  })

  test('meta with no matching .jsonl → dropped', () => {
    const rows = buildRoster([file('a1', 't1', { hasJsonl: false }), file('a2', 't2')], ParentFacts.fromLines([spawn('t1'), spawn('t2')]))
    expect(rows!.map((r) => r.agent_id)).toEqual(['a2'])
    // the last file gone while the parent delegated: an empty roster, not "no roster"
    expect(buildRoster([file('a1', 't1', { hasJsonl: false })], ParentFacts.fromLines([spawn('t1')]))).toEqual([])
  })

  test('internal agent files (compaction, prompt suggestion, side question) are not roster rows', () => {
    const internal = ['acompact-1a2b3c', 'aprompt_suggestion-4d5e6f', 'aside_question-777'].map((id) => ({
      agentId: id,
      meta: { agentType: 'internal' },
      metaReadable: true,
      hasJsonl: true,
    }))
    expect(buildRoster(internal, new ParentFacts())).toBeUndefined()
    expect(buildRoster([...internal, file('a1', 't1')], ParentFacts.fromLines([spawn('t1')]))!.map((r) => r.agent_id)).toEqual(['a1'])
  })

  test('nothing delegated → undefined', () => {
    expect(buildRoster([], ParentFacts.fromLines([result('t1'), '{"type":"mode","mode":"normal"}']))).toBeUndefined()
  })

  test('ordering is spawn_depth then agent_id', () => {
    const f = (id: string, depth: number) => ({ ...file(id, `t-${id}`), meta: { agentType: 'x', description: 'y', toolUseId: `t-${id}`, spawnDepth: depth } })
    const rows = buildRoster([f('b', 2), f('c', 1), f('a', 2), f('B', 1)], new ParentFacts())!
    expect(rows.map((r) => `${r.spawn_depth}:${r.agent_id}`)).toEqual(['1:B', '1:c', '2:a', '2:b'])
  })

  test('last_activity_ts from lastWriteMs, omitted when undefined', () => {
    const rows = buildRoster([file('a1', 't1', { lastWriteMs: 1700000000123.7 }), file('a2', 't2')], new ParentFacts())!
    expect(rows[0]!.last_activity_ts).toBe(1700000000123)
    expect('last_activity_ts' in rows[1]!).toBe(false)
  })

  test('a failed spawn result (is_error) completes the agent', () => {
    expect(done([file('a1', 't1')], [spawn('t1'), result('t1', { is_error: true })])).toEqual({ a1: true })
  })

  test('garbage, half and binary parent lines contribute nothing and never throw', () => {
    for (const l of [
      '',
      'garbage',
      '{"type":"user","message":{"content":[{"type":"tool_result"',
      '\u0000\u00ff',
      'null',
      '[]',
      '{"type":"queue-operation","operation":"enqueue","content":42}',
      notifyUser('<task-notification>\n<task-id>a1'),
    ]) {
      expect(() => parentFactsFromLine(l)).not.toThrow()
      expect(parentFactsFromLine(l).spawns).toEqual([])
    }
    expect(done([file('a1', 't1')], [spawn('t1'), notifyUser('<task-notification>\n<task-id>a1</task-id>\n<status>compl')])).toEqual({ a1: false })
  })
})

// ── real 2.1.38/2.1.39 sessions: no meta.json, progress records ────────────

describe('cc-2139-real: rows labelled from the spawning call when no meta.json exists', () => {
  const REAL = join(FIXTURES, 'cc-2139-real/projects')
  const noMeta = (id: string): SubagentFileFacts => ({ agentId: id, metaReadable: false, hasJsonl: true })
  const session = (dir: string, sid: string) => linesOf(join(REAL, dir, `${sid}.jsonl`)).map((l) => l.line)

  test('every delegating session: agent_type and description from the Task input, tool_use_id joined', () => {
    const cases: [string, string, string, Partial<Subagent>][] = [
      [
        '-home-USER-projects-spotter-worktrees-spotter-dov',
        '4d5611e5-241a-462a-8d15-5122611a9569',
        'a2898e3',
        { tool_use_id: 'toolu_017pLRuPHYTX5t99EnLyV53m', agent_type: 'Explore', description: 'Explore transcript rendering codebase', done: true },
      ],
      [
        '-home-USER-projects-spotter-worktrees-spotter-gqc',
        '258c7280-ae70-4798-800f-63464d01a85d',
        'a881341',
        { tool_use_id: 'toolu_01VmaERAwhb19LGUwu9GenaK', agent_type: 'claude-code-guide', description: 'Research Claude hook output', done: true },
      ],
      // this Task call names no subagent_type: Claude Code ran general-purpose
      [
        '-home-USER-projects-spotter-worktrees-spotter-4te',
        'ae4a77f8-aedd-4bc1-888f-c94edc91af04',
        'aac57f5',
        { tool_use_id: 'toolu_01Hf8v1Za7y4af8VUwSR4CXU', agent_type: 'general-purpose', description: 'Check OTEL hex package versions', done: true },
      ],
    ]
    for (const [dir, sid, agent, want] of cases) {
      const rows = buildRoster([noMeta(agent), noMeta('acompact-0'), noMeta('acompact-e1f845')], ParentFacts.fromLines(session(dir, sid)))
      expect(rows).toEqual([{ agent_id: agent, spawn_depth: 1, ...want } as Subagent])
    }
  })

  test('while the agent still runs, agent_progress alone links it to its call (no result yet)', () => {
    const lines = session('-home-USER-projects-spotter-worktrees-spotter-dov', '4d5611e5-241a-462a-8d15-5122611a9569')
    const call = lines.findIndex((l) => l.includes('"name":"Task"'))
    const firstProgress = lines.findIndex((l) => l.includes('"agent_progress"'))
    const result = lines.findIndex((l, i) => i > call && l.includes('"tool_use_id":"toolu_017pLRuPHYTX5t99EnLyV53m"') && !l.includes('"progress"'))
    expect(call).toBeGreaterThan(0)
    expect(firstProgress).toBeGreaterThan(call)
    expect(result).toBeGreaterThan(firstProgress)
    // spawned, agent file written, nothing mirrored yet: the file cannot be tied to a call
    expect(buildRoster([noMeta('a2898e3')], ParentFacts.fromLines(lines.slice(0, call + 1)))).toEqual([
      { agent_id: 'a2898e3', tool_use_id: '', agent_type: '', description: '', spawn_depth: 1, done: false },
    ])
    // first mirrored message: linked and labelled, still running
    expect(buildRoster([noMeta('a2898e3')], ParentFacts.fromLines(lines.slice(0, firstProgress + 1)))).toEqual([
      {
        agent_id: 'a2898e3',
        tool_use_id: 'toolu_017pLRuPHYTX5t99EnLyV53m',
        agent_type: 'Explore',
        description: 'Explore transcript rendering codebase',
        spawn_depth: 1,
        done: false,
      },
    ])
    // the synchronous call's result ends it
    expect(buildRoster([noMeta('a2898e3')], ParentFacts.fromLines(lines.slice(0, result + 1)))![0]!.done).toBe(true)
  })

  test('meta labels win over the spawning call; an empty meta field falls back to it', () => {
    const spawnLine = JSON.stringify({
      type: 'assistant',
      uuid: 'u',
      message: { content: [{ type: 'tool_use', id: 'tX', name: 'Task', input: { subagent_type: 'Plan', description: 'from the call' } }] },
    })
    const progress = JSON.stringify({
      type: 'progress',
      uuid: 'p',
      parentToolUseID: 'tX',
      toolUseID: 'agent_msg_1',
      data: { type: 'agent_progress', agentId: 'aX', message: {} },
    })
    const p = ParentFacts.fromLines([spawnLine, progress])
    expect(
      buildRoster([{ agentId: 'aX', metaReadable: true, hasJsonl: true, meta: { agentType: 'Explore', description: 'from meta', toolUseId: 'tX' } }], p)![0],
    ).toMatchObject({ agent_type: 'Explore', description: 'from meta', tool_use_id: 'tX' })
    expect(buildRoster([{ agentId: 'aX', metaReadable: true, hasJsonl: true, meta: { agentType: 'Explore' } }], p)![0]).toMatchObject({
      agent_type: 'Explore',
      description: 'from the call',
      tool_use_id: 'tX',
    })
  })
})

// The accumulator skips lines that cannot change the roster without parsing them;
// that must give exactly the facts of folding every line.
describe('pre-filtered fold', () => {
  const { readdirSync, readFileSync, statSync } = require('node:fs') as typeof import('node:fs')
  const { join } = require('node:path') as typeof import('node:path')
  function jsonlFiles(dir: string): string[] {
    const out: string[] = []
    for (const n of readdirSync(dir)) {
      const p = join(dir, n)
      if (statSync(p).isDirectory()) out.push(...jsonlFiles(p))
      else if (n.endsWith('.jsonl')) out.push(p)
    }
    return out
  }
  function unfiltered(lines: string[]): ParentFacts {
    const p = new ParentFacts()
    for (const l of lines) p.add(parentFactsFromLine(l))
    return p
  }
  const snapshot = (p: ParentFacts) => JSON.stringify([[...p.spawns], [...p.results], [...p.lastStatus], [...p.toolUseOf]])
  test('equals folding every line, on every corpus file at every cut', () => {
    const files = jsonlFiles(join(import.meta.dir, '../../../../fixtures/claude'))
    expect(files.length).toBeGreaterThan(10)
    let delegatedCuts = 0
    for (const f of files) {
      const lines = readFileSync(f, 'utf8').split('\n').filter(Boolean)
      // Both folds advance together; compared at ~32 cuts (incremental, so one pass per file).
      const a = new ParentFacts()
      const b = new ParentFacts()
      const step = Math.max(1, lines.length >> 5)
      for (let i = 0; i <= lines.length; i++) {
        if (i % step === 0 || i === lines.length) {
          expect(snapshot(a)).toBe(snapshot(b))
          if (a.delegated) delegatedCuts++
        }
        if (i < lines.length) {
          a.addLine(lines[i]!)
          b.add(parentFactsFromLine(lines[i]!))
        }
      }
    }
    expect(delegatedCuts).toBeGreaterThan(0)
  })
  test('a spawn written with spaces, and a result that only names the spawn id, still count', () => {
    const spawn = JSON.stringify({
      type: 'assistant',
      uuid: 'u1',
      message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_X', name: 'Task', input: { description: 'd', run_in_background: false } }] },
    }).replace('"name":"Task"', '"name" : "Task"')
    const result = JSON.stringify({
      type: 'user',
      uuid: 'u2',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_X', content: 'ok' }] },
    })
    const p = ParentFacts.fromLines([spawn, result])
    expect(snapshot(p)).toBe(snapshot(unfiltered([spawn, result])))
    expect(p.spawns.has('toolu_X')).toBe(true)
    expect(p.results.has('toolu_X')).toBe(true)
  })
})
