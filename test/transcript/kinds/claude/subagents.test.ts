// ?subagent= streams, traversal attempts, and the live roster of the real
// cc-subagents session (Claude Code 2.1.197): five agents — two parallel
// synchronous ones (ALPHA, BETA), one background agent completed by a
// task-notification (GAMMA), and a synchronous agent (DELTA) that spawned a
// depth-2 agent (EPSILON) from inside its own transcript.
import { afterEach, describe, expect, test } from 'bun:test'
import { appendFileSync, copyFileSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Value } from '@sinclair/typebox/value'
import type { Subagent } from '../../../../src/transcript/roster'
import { SubagentSchema } from '../../../../src/transcript/roster'
import { createClaudeSource, type ClaudeSource } from '../../../../src/transcript/kinds/claude/source'
import { RosterRegistry, newRosterCounters, type RosterCounters } from '../../../../src/transcript/kinds/claude/roster-watch'
import { JsonlFiles } from '../../../../src/transcript/jsonl/timeline'
/** the JSONL files of the sources these tests build: counters read from here */
const jsonl = new JsonlFiles()

// the contract's 404 body, spelled out: 'no transcript file for pane'
import { NO_TRANSCRIPT, type Resolved, type Unresolved } from '../../../../src/transcript/source'
import { FIXTURES, claudePane, expectedEntryIds, fileLines } from './sessions'
import { claudeHome, type ClaudeHome } from '../../../support/claude-home'

const SID = '31768c85-8856-4ba3-9323-9014ac9e2d13'
const CWD = '/home/me/cc-subagents/proj'
const ALPHA = 'a40c5c2a9babaf2e6'
const BETA = 'a5dac6f262406d731'
const GAMMA = 'ab787ad1b496b62b0'
const DELTA = 'a465d2df8f0764ced'
const EPSILON = 'a4160e85bd33f35ac'

const FIXTURE_PROJECT = join(FIXTURES, 'cc-subagents/projects/-home-me-cc-subagents-proj')
const FIXTURE_PARENT = join(FIXTURE_PROJECT, `${SID}.jsonl`)
const FIXTURE_SUBDIR = join(FIXTURE_PROJECT, SID, 'subagents')
const PARENT_LINES = fileLines(FIXTURE_PARENT)
const AGENT_IDS = readdirSync(FIXTURE_SUBDIR)
  .filter((n) => n.endsWith('.jsonl'))
  .map((n) => n.slice('agent-'.length, -'.jsonl'.length))
  .sort()

const homes: ClaudeHome[] = []
const held: Resolved[] = []
afterEach(() => {
  for (const r of held.splice(0)) r.timeline.release()
  for (const h of homes.splice(0)) h.cleanup()
})

interface Setup {
  h: ClaudeHome
  src: ClaudeSource
  parent: string
  subDir: string
  logs: string[]
  /** the source's roster counters: its own */
  roster: RosterCounters
}
function setup(): Setup {
  const h = claudeHome('cc-subagents')
  homes.push(h)
  const logs: string[] = []
  const roster = newRosterCounters()
  return {
    h,
    src: createClaudeSource(h.homes, { log: (m) => logs.push(m), pollMs: 60_000, jsonl, rosterCounters: roster }),
    parent: join(h.proj, `${SID}.jsonl`),
    subDir: join(h.proj, SID, 'subagents'),
    logs,
    roster,
  }
}
function ok(r: Resolved | Unresolved): Resolved {
  if (!r.ok) throw new Error(`expected a transcript, got ${r.status} ${r.body}`)
  held.push(r)
  return r
}
const pane = (sid: string | undefined = SID) => claudePane(CWD, sid)
const doneOf = (rows: Subagent[] | undefined) => Object.fromEntries((rows ?? []).map((r) => [r.agent_id, r.done]))

/**
 * The roster the fixture files say, derived here independently of
 * roster-logic.ts with the two rules this session exercises:
 *  - labels, join key and depth come from each agent-<id>.meta.json;
 *  - an agent is done when a <task-notification> with its <task-id> carries
 *    a status (GAMMA: its spawn result only says "async_launched"), or else
 *    when the parent holds its spawning call's tool_result with
 *    toolUseResult.status "completed" (ALPHA, BETA, DELTA: synchronous);
 *  - EPSILON's spawning call (toolu_mock000019) is inside DELTA's file, not
 *    the parent's: nothing in the parent completes it, so it reads as running
 *    (the contract's documented depth-2 residual).
 * last_activity_ts is the agent file's mtime, whole milliseconds.
 */
function expectedRoster(parentLines: string[], subDir: string): Subagent[] {
  const recs = parentLines.map((l) => JSON.parse(l) as Record<string, any>)
  const resultStatus = new Map<string, string | undefined>()
  const notified = new Map<string, string>()
  for (const r of recs) {
    const content = r.message?.content
    if (r.type === 'user' && Array.isArray(content)) {
      for (const b of content) if (b.type === 'tool_result') resultStatus.set(b.tool_use_id, r.toolUseResult?.status)
    }
    const text = r.type === 'queue-operation' ? r.content : r.type === 'user' && typeof content === 'string' ? content : undefined
    if (typeof text === 'string' && text.startsWith('<task-notification>')) {
      const id = /<task-id>([^<]+)<\/task-id>/.exec(text)?.[1]
      const status = /<status>([^<]+)<\/status>/.exec(text)?.[1]
      if (id && status) notified.set(id, status)
    }
  }
  const rows: Subagent[] = []
  for (const name of readdirSync(subDir).filter((n) => n.endsWith('.jsonl'))) {
    const id = name.slice('agent-'.length, -'.jsonl'.length)
    const meta = JSON.parse(readFileSync(join(subDir, `agent-${id}.meta.json`), 'utf8'))
    const status = notified.get(id)
    rows.push({
      agent_id: id,
      tool_use_id: meta.toolUseId,
      agent_type: meta.agentType,
      description: meta.description,
      spawn_depth: meta.spawnDepth,
      done: status !== undefined ? status !== 'running' : resultStatus.get(meta.toolUseId) === 'completed',
      last_activity_ts: Math.floor(statSync(join(subDir, name)).mtimeMs),
    })
  }
  return rows.sort((a, b) => a.spawn_depth - b.spawn_depth || (a.agent_id < b.agent_id ? -1 : 1))
}

describe('subagent streams', () => {
  test('every real agent id streams its own file, within the parent session', async () => {
    const { src, subDir } = setup()
    expect(AGENT_IDS).toEqual([ALPHA, EPSILON, DELTA, BETA, GAMMA].sort())
    for (const id of AGENT_IDS) {
      const r = ok(await src.resolve(pane(), { subagent: id }))
      expect(r.sessionId).toBe(SID)
      const want = expectedEntryIds(join(subDir, `agent-${id}.jsonl`))
      expect(want.length).toBeGreaterThan(0)
      expect(r.timeline.total()).toBe(want.length)
      expect((await r.timeline.read(1, want.length)).map((e) => e.id)).toEqual(want)
      // hello.subagents is the whole session's roster, on a subagent stream too
      expect((await r.roster!())!.map((row) => row.agent_id).sort()).toEqual(AGENT_IDS)
    }
  })

  test('traversal and other ids that were not discovered → 404, never a path', async () => {
    const { h, src } = setup()
    // things a path built from the value would reach
    writeFileSync(join(h.dir, 'secret.jsonl'), '{"type":"user","uuid":"s","message":{"role":"user","content":"secret"}}\n')
    writeFileSync(join(h.proj, SID, 'subagents', 'x.jsonl'), '{"type":"user","uuid":"x","message":{"role":"user","content":"x"}}\n')
    const attempts = [
      '../../secret',
      '../../../../secret',
      '../../../../../etc/passwd',
      '/etc/passwd',
      '%2e%2e',
      '%2e%2e%2f%2e%2e%2fsecret',
      '',
      'x'.repeat(100_000),
      `agent-${ALPHA}`,
      `${ALPHA}.jsonl`,
      `${ALPHA}/../${ALPHA}`,
      `./${ALPHA}`,
      ` ${ALPHA}`,
      ALPHA.toUpperCase(),
      `${ALPHA}\0`,
      '../x',
      'x',
      'acompact-0000', // no such internal file in this session
    ]
    expect(NO_TRANSCRIPT).toEqual({ ok: false, status: 404, body: 'no transcript file for pane' })
    for (const subagent of attempts) expect(await src.resolve(pane(), { subagent })).toEqual(NO_TRANSCRIPT)
    expect(src.rosterStats().held).toBe(0) // nothing acquired on a 404
  })

  test('a subagent of a session without subagents dir → 404', async () => {
    const h = claudeHome('cc-working')
    homes.push(h)
    const src = createClaudeSource(h.homes, { log: () => {} })
    expect(await src.resolve(claudePane('/home/me/cc-working/proj', 'ae22f811-9570-4ffe-b8a7-5db178f36de1'), { subagent: ALPHA })).toEqual(NO_TRANSCRIPT)
  })

  test('internal agents (compaction) are not in the roster but stream by their exact id', async () => {
    const { src, subDir } = setup()
    copyFileSync(join(subDir, `agent-${BETA}.jsonl`), join(subDir, 'agent-acompact-5f3e2a.jsonl'))
    const rows = await ok(await src.resolve(pane(), {})).roster!()
    expect(rows!.map((r) => r.agent_id)).not.toContain('acompact-5f3e2a')
    expect(rows!.length).toBe(5)
    const r = ok(await src.resolve(pane(), { subagent: 'acompact-5f3e2a' }))
    expect(r.timeline.total()).toBe(expectedEntryIds(join(subDir, `agent-${BETA}.jsonl`)).length)
  })
})

describe('roster', () => {
  test('the real session: rows equal what the fixture files say', async () => {
    const { src, parent, subDir } = setup()
    const r = ok(await src.resolve(pane(), {}))
    const rows = await r.roster!()
    const want = expectedRoster(fileLines(parent), subDir)
    expect(rows).toEqual(want)
    // sanity on the derivation itself: every depth-1 agent done, the depth-2 sync grandchild running
    expect(doneOf(rows)).toEqual({ [ALPHA]: true, [BETA]: true, [GAMMA]: true, [DELTA]: true, [EPSILON]: false })
    expect(PARENT_LINES.some((l) => l.includes('toolu_mock000019'))).toBe(false)
    expect(rows!.map((x) => [x.agent_id, x.spawn_depth])).toEqual([
      [ALPHA, 1],
      [DELTA, 1],
      [BETA, 1],
      [GAMMA, 1],
      [EPSILON, 2],
    ])
    for (const row of rows!) expect(Value.Check(SubagentSchema, row)).toBe(true)
  })

  test('live: spawn, sync completion, background notification, nested agents appear as files and lines arrive', async () => {
    const { src, parent, subDir } = setup()
    // Start from the parent cut after line 9 (the two parallel sync Agent calls, no results yet)
    // with only ALPHA's and BETA's files present.
    const stash = join(subDir, '..', 'stash')
    mkdirSync(stash)
    for (const id of [GAMMA, DELTA, EPSILON]) {
      for (const ext of ['.jsonl', '.meta.json']) renameSync(join(subDir, `agent-${id}${ext}`), join(stash, `agent-${id}${ext}`))
    }
    const upTo = (n: number) =>
      PARENT_LINES.slice(0, n)
        .map((l) => l + '\n')
        .join('')
    writeFileSync(parent, upTo(9))
    const bring = (id: string) => {
      for (const ext of ['.jsonl', '.meta.json']) renameSync(join(stash, `agent-${id}${ext}`), join(subDir, `agent-${id}${ext}`))
    }
    const appendLines = (from: number, to: number) =>
      appendFileSync(
        parent,
        PARENT_LINES.slice(from, to)
          .map((l) => l + '\n')
          .join(''),
      )

    const r = ok(await src.resolve(pane(), {}))
    expect(doneOf(await r.roster!())).toEqual({ [ALPHA]: false, [BETA]: false })
    expect(await src.subagentCounts(pane())).toEqual({ running: 2, total: 2 })

    // half of line 10 (BETA's result) is on disk: not folded yet
    const line10 = PARENT_LINES[9]! + '\n'
    appendFileSync(parent, line10.slice(0, 200))
    expect(doneOf(await r.roster!())).toEqual({ [ALPHA]: false, [BETA]: false })
    appendFileSync(parent, line10.slice(200))
    expect(doneOf(await r.roster!())).toEqual({ [ALPHA]: false, [BETA]: true })

    appendLines(10, 11) // ALPHA's result
    expect(doneOf(await r.roster!())).toEqual({ [ALPHA]: true, [BETA]: true })

    // background spawn (line 13) and its "async_launched" result (line 14); the agent file appears
    appendLines(11, 14)
    bring(GAMMA)
    expect(doneOf(await r.roster!())).toEqual({ [ALPHA]: true, [BETA]: true, [GAMMA]: false })
    expect(await src.subagentCounts(pane())).toEqual({ running: 1, total: 3 })

    appendLines(14, 16) // the turn ends while GAMMA runs
    expect(doneOf(await r.roster!())[GAMMA]).toBe(false)
    appendLines(16, 17) // the enqueued <task-notification> completes it
    expect(doneOf(await r.roster!())[GAMMA]).toBe(true)

    // second turn: DELTA spawned, which spawns EPSILON inside its own file
    appendLines(17, 25)
    bring(DELTA)
    bring(EPSILON)
    expect(doneOf(await r.roster!())).toEqual({ [ALPHA]: true, [BETA]: true, [GAMMA]: true, [DELTA]: false, [EPSILON]: false })
    appendLines(25, PARENT_LINES.length)
    expect(await r.roster!()).toEqual(expectedRoster(PARENT_LINES, subDir))
    expect(await src.subagentCounts(pane())).toEqual({ running: 1, total: 5 })
  })

  test('one pass: the index pass folds the roster; the roster reads nothing of the parent while a timeline holds it', async () => {
    const { src, parent, roster } = setup()
    const before = { ...roster }
    const scanned = jsonl.counters.bytesScanned
    const r = ok(await src.resolve(pane(), {}))
    expect(doneOf(await r.roster!())).toEqual({ [ALPHA]: true, [BETA]: true, [GAMMA]: true, [DELTA]: true, [EPSILON]: false })
    expect(jsonl.counters.bytesScanned - scanned).toBe(statSync(parent).size)
    expect(roster.parentBytesRead - before.parentBytesRead).toBe(0)
    expect(roster.parentRescans - before.parentRescans).toBe(0)
    r.timeline.release()
  })

  test('incremental: a second roster() after an append reads only the appended bytes, once', async () => {
    const { src, parent, roster } = setup()
    writeFileSync(
      parent,
      PARENT_LINES.slice(0, 9)
        .map((l) => l + '\n')
        .join(''),
    )
    const r = ok(await src.resolve(pane(), {}))
    await r.roster!()
    const before = { ...roster }
    await r.roster!() // nothing appended: nothing read, no meta re-read
    expect(roster.parentBytesRead - before.parentBytesRead).toBe(0)
    expect(roster.metaReads - before.metaReads).toBe(0)
    expect(roster.listings - before.listings).toBe(1)
    const appended = PARENT_LINES.slice(9, 11)
      .map((l) => l + '\n')
      .join('')
    appendFileSync(parent, appended)
    const mid = { ...roster }
    const midScanned = jsonl.counters.bytesScanned
    // all five files are present; only the two sync results were appended
    expect(doneOf(await r.roster!())).toEqual({ [ALPHA]: true, [BETA]: true, [GAMMA]: false, [DELTA]: false, [EPSILON]: false })
    // read once, by the timeline's index pass; the roster took its facts
    expect(jsonl.counters.bytesScanned - midScanned).toBe(Buffer.byteLength(appended))
    expect(roster.parentBytesRead - mid.parentBytesRead).toBe(0)
    expect(roster.parentRescans - mid.parentRescans).toBe(0)
    // the same watcher serves /snapshot counts: no rescan there either
    const beforeCounts = { ...roster }
    expect(await src.subagentCounts(pane())).toEqual({ running: 3, total: 5 })
    expect(roster.parentBytesRead - beforeCounts.parentBytesRead).toBe(0)
    expect(roster.parentRescans - beforeCounts.parentRescans).toBe(0)
    // the socket goes: /snapshot folds on its own, from where the index pass stopped
    r.timeline.release()
    const more = PARENT_LINES.slice(11)
      .map((l) => l + '\n')
      .join('')
    appendFileSync(parent, more)
    const afterRelease = { ...roster }
    expect(await src.subagentCounts(pane())).toEqual({ running: 1, total: 5 })
    expect(roster.parentBytesRead - afterRelease.parentBytesRead).toBe(Buffer.byteLength(more))
    expect(roster.parentRescans - afterRelease.parentRescans).toBe(0)
  })

  test('shrink and replacement start the fold over', async () => {
    const { src, parent } = setup()
    const r = ok(await src.resolve(pane(), {}))
    expect(doneOf(await r.roster!())[ALPHA]).toBe(true)
    const before = jsonl.counters.resets
    writeFileSync(
      parent,
      PARENT_LINES.slice(0, 9)
        .map((l) => l + '\n')
        .join(''),
    ) // truncated in place
    expect(doneOf(await r.roster!())[ALPHA]).toBe(false)
    expect(jsonl.counters.resets - before).toBe(1)
    // replaced by a new file (new inode) with the full content
    writeFileSync(parent + '.new', PARENT_LINES.map((l) => l + '\n').join(''))
    renameSync(parent + '.new', parent)
    expect(doneOf(await r.roster!())[ALPHA]).toBe(true)
    expect(jsonl.counters.resets - before).toBe(2)
    // rewritten in place, same inode, longer: the bytes before the indexed end changed
    const text = PARENT_LINES.slice(0, 9)
      .map((l) => l + '\n')
      .join('')
    writeFileSync(parent, 'x'.repeat(5) + text + 'y'.repeat(statSync(parent).size))
    expect(doneOf(await r.roster!())[ALPHA]).toBe(false)
    expect(jsonl.counters.resets - before).toBe(3)
    r.timeline.release()
  })

  test('without a timeline (a /snapshot row), the watcher folds the parent itself and starts over on shrink and replacement', async () => {
    const { src, parent, roster } = setup()
    const before = roster.parentRescans
    expect(await src.subagentCounts(pane())).toEqual({ running: 1, total: 5 })
    expect(roster.parentRescans - before).toBe(1)
    writeFileSync(
      parent,
      PARENT_LINES.slice(0, 9)
        .map((l) => l + '\n')
        .join(''),
    ) // truncated in place
    expect(await src.subagentCounts(pane())).toEqual({ running: 5, total: 5 })
    expect(roster.parentRescans - before).toBe(2)
    writeFileSync(parent + '.new', PARENT_LINES.map((l) => l + '\n').join(''))
    renameSync(parent + '.new', parent)
    expect(await src.subagentCounts(pane())).toEqual({ running: 1, total: 5 })
    expect(roster.parentRescans - before).toBe(3)
  })

  test('unreadable meta → labels from the spawning call; rewritten meta is re-read (only then)', async () => {
    const { src, subDir, roster } = setup()
    writeFileSync(join(subDir, `agent-${BETA}.meta.json`), '{"agentType": "Expl')
    writeFileSync(join(subDir, `agent-${GAMMA}.meta.json`), Buffer.from([0, 159, 146, 150, 255]))
    const r = ok(await src.resolve(pane(), {}))
    const rows = (await r.roster!())!
    const beta = rows.find((x) => x.agent_id === BETA)!
    // the join key comes from the parent's toolUseResult.agentId, the labels from that call's input, and its result still completes it
    expect(beta).toMatchObject({ agent_type: 'Explore', description: 'Find test conventions', tool_use_id: 'toolu_mock000003', spawn_depth: 1, done: true })
    expect(rows.find((x) => x.agent_id === GAMMA)).toMatchObject({
      agent_type: 'general-purpose',
      description: 'Long background audit',
      tool_use_id: 'toolu_mock000009',
      done: true,
    })
    expect(rows.length).toBe(5)
    const reads = roster.metaReads
    await r.roster!()
    expect(roster.metaReads).toBe(reads)
    writeFileSync(
      join(subDir, `agent-${BETA}.meta.json`),
      JSON.stringify({ agentType: 'Explore', description: 'Renamed in meta', toolUseId: 'toolu_mock000003', spawnDepth: 1 }),
    )
    const again = (await r.roster!())!.find((x) => x.agent_id === BETA)!
    expect(again).toMatchObject({ agent_type: 'Explore', description: 'Renamed in meta' })
    expect(roster.metaReads).toBe(reads + 1)
  })

  test('meta without a jsonl is dropped; a jsonl without meta still shows', async () => {
    const { src, subDir } = setup()
    rmSync(join(subDir, `agent-${ALPHA}.jsonl`))
    rmSync(join(subDir, `agent-${DELTA}.meta.json`))
    const rows = (await ok(await src.resolve(pane(), {})).roster!())!
    expect(rows.map((x) => x.agent_id)).not.toContain(ALPHA)
    expect(rows.find((x) => x.agent_id === DELTA)).toMatchObject({
      agent_type: 'general-purpose',
      description: 'Coordinate nested work',
      tool_use_id: 'toolu_mock000017',
      spawn_depth: 1,
      done: true,
    })
    expect(await src.resolve(pane(), { subagent: ALPHA })).toEqual(NO_TRANSCRIPT)
  })

  test('garbage in the parent and the subagents dir never breaks the roster', async () => {
    const { src, parent, subDir } = setup()
    const r = ok(await src.resolve(pane(), {}))
    const good = await r.roster!()
    appendFileSync(parent, 'not json\n\u0000\u0001\u0002\n{"type":"user","message":{"content":[{"type":"tool_result"\n[1,2,3]\nnull\n')
    appendFileSync(parent, Buffer.from([0xff, 0xfe, 0x0a, 0xc3, 0x28, 0x0a]))
    writeFileSync(join(subDir, 'agent-.jsonl'), '') // empty id? the regex needs one char: ignored
    writeFileSync(join(subDir, 'notes.txt'), 'x')
    mkdirSync(join(subDir, 'workflows'))
    expect(await r.roster!()).toEqual(good)
  })

  test('discovery failure is logged once and yields the last good roster', async () => {
    const { src, parent, logs } = setup()
    const r = ok(await src.resolve(pane(), {}))
    const good = await r.roster!()
    expect(good!.length).toBe(5)
    rmSync(parent)
    expect(await r.roster!()).toEqual(good)
    expect(await r.roster!()).toEqual(good)
    expect(logs.filter((l) => l.includes('subagent roster')).length).toBe(1)
  })

  test('one watcher per session, released with the timeline', async () => {
    const { src } = setup()
    const a = ok(await src.resolve(pane(), {}))
    const b = ok(await src.resolve(pane(), { subagent: BETA }))
    expect(src.rosterStats()).toEqual({ held: 1, idle: 0 })
    a.timeline.release()
    a.timeline.release() // idempotent: must not drop b's reference
    expect(src.rosterStats()).toEqual({ held: 1, idle: 0 })
    b.timeline.release()
    expect(src.rosterStats()).toEqual({ held: 0, idle: 1 })
    // a short-lived /snapshot acquire leaves it idle again
    expect(await src.subagentCounts(pane())).toEqual({ running: 1, total: 5 })
    expect(src.rosterStats()).toEqual({ held: 0, idle: 1 })
  })

  test('concurrent roster() calls share one refresh', async () => {
    const { src, roster } = setup()
    const r = ok(await src.resolve(pane(), {}))
    const before = roster.refreshes
    const [x, y, z] = await Promise.all([r.roster!(), r.roster!(), r.roster!()])
    expect(roster.refreshes - before).toBe(1)
    expect(x).toEqual(y)
    expect(y).toEqual(z)
  })

  test('idle watchers beyond the bound are forgotten, least recently used first', () => {
    const reg = new RosterRegistry({ maxIdle: 2, log: () => {} })
    const handles = ['/a.jsonl', '/b.jsonl', '/c.jsonl'].map((p) => reg.acquire(p))
    const first = handles[0]!.watcher
    for (const h of handles) h.release()
    expect(reg.stats()).toEqual({ held: 0, idle: 2 })
    expect(reg.acquire('/a.jsonl').watcher).not.toBe(first) // '/a' was the oldest: forgotten
    const c = reg.acquire('/c.jsonl')
    expect(reg.stats()).toEqual({ held: 2, idle: 1 })
    c.release()
  })

  test('subagentCounts: undefined when nothing was delegated or nothing resolves', async () => {
    const { src } = setup()
    expect(await src.subagentCounts(pane())).toEqual({ running: 1, total: 5 })
    expect(await src.subagentCounts(claudePane('/home/me/nowhere', undefined))).toBeUndefined()
    const h = claudeHome('cc-working')
    homes.push(h)
    const plain = createClaudeSource(h.homes, { log: () => {} })
    expect(await plain.subagentCounts(claudePane('/home/me/cc-working/proj', 'ae22f811-9570-4ffe-b8a7-5db178f36de1'))).toBeUndefined()
  })
})
