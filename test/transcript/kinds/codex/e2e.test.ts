// codex panes through the real app and the fake herdr: WS /agent-transcript over codex
// rollouts copied from the corpus (fixtures/codex), end to end — resolution by thread id
// and by cwd (newest by last record), rotation, live tail, late results, paging.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Value } from '@sinclair/typebox/value'
import type { FakePane } from '../../../../src/demo/fake-herdr'
import { EntrySchema } from '../../../../src/transcript/entry'
import { countCodexLine } from '../../../../src/transcript/kinds/codex/normalize'
import { startBridge, tempDir, type Bridge, type FrameQueue } from '../../../support/harness'
import { agentPane, connect, expectContiguous, FAST, pageToStart, readOpening, upgradeStatus, expectAwaiting } from '../../../support/transcript-socket'
import { codexCorpusFiles, FIX } from './fuzz'

const PANE = 'w1:p2'
const DAY = join('2026', '12', '02')
const RESUME_CWD = '/home/me/codex-resume/proj'
const A = '01a23781-7033-79c3-a160-6aea19af3c18' // resumed: its older file got the last turn
const B = '01a23781-9dc3-72c0-a1ce-ace7a4ebd902'
const INTERRUPT = '01a2377e-2dfd-73d1-9063-8d3d1c533372'

let root: string
let codexDir: string
const bridges: Bridge[] = []
const sockets: FrameQueue[] = []

/** A fresh CODEX_HOME per test holding every fixture rollout (tests append and add files). */
function freshCodexDir(): string {
  codexDir = mkdtempSync(join(root, 'codex-'))
  for (const f of codexCorpusFiles()) {
    const rel = f.slice(f.indexOf('/sessions/') + 1)
    cpSync(f, join(codexDir, rel))
  }
  return codexDir
}
const rollout = (id: string) => codexCorpusFiles().find((f) => f.endsWith(`${id}.jsonl`))!
const inHome = (id: string) => join(codexDir, 'sessions', DAY, rollout(id).split('/').pop()!)

const codexPane = (cwd: string, threadId?: string) => agentPane('codex', cwd, threadId ? { kind: 'id', value: threadId } : undefined)

async function bridgeWith(pane: FakePane): Promise<Bridge> {
  const b = await startBridge({ state: { panes: [pane] }, homes: { codexDir }, timing: FAST })
  bridges.push(b)
  return b
}
async function open(b: Bridge): Promise<FrameQueue> {
  const q = await connect(b, PANE)
  sockets.push(q)
  return q
}
const cwdOf = (file: string) => JSON.parse(readFileSync(file, 'utf8').split('\n')[0]).payload.cwd as string
const totalOf = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .reduce((n, l) => n + countCodexLine(l, 0), 0)

beforeAll(() => {
  root = tempDir('codex-src-root-')
})
afterEach(async () => {
  for (const q of sockets.splice(0)) q.close()
  for (const b of bridges.splice(0)) await b.stop()
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('every corpus rollout through the socket', () => {
  for (const file of codexCorpusFiles()) {
    const id = file.match(/([0-9a-f-]{36})\.jsonl$/)![1]
    test(`${file.slice(FIX.length + 1)}`, async () => {
      freshCodexDir()
      const b = await bridgeWith(codexPane(cwdOf(file), id))
      const q = await open(b)
      const { hello, entries, complete } = await readOpening(q)
      const total = totalOf(file)
      expect(hello).toMatchObject({ pane: PANE, agent_kind: 'codex', session_id: id, total, backlog_count: total, has_more: false })
      expect('subagents' in hello).toBe(false)
      expect(complete).toEqual({ type: 'backlog_complete', count: total, has_more: false })
      expectContiguous(
        entries.map((e) => e.seq),
        total,
      )
      for (const e of entries) expect(Value.Check(EntrySchema, e)).toBe(true)
      expect(entries.filter((e) => !e.parsed)).toEqual([])
      // every result answers a call of the same session
      const calls = new Set(entries.filter((e) => e.kind === 'tool_call').map((e) => e.tool.id))
      for (const r of entries.filter((e) => e.kind === 'tool_result')) expect(calls.has(r.result.for_id)).toBe(true)
    })
  }
})

describe('finding the session', () => {
  test('by herdr\'s thread id (agent_session kind "id")', async () => {
    freshCodexDir()
    const b = await bridgeWith(codexPane(RESUME_CWD, B))
    const { hello, entries } = await readOpening(await open(b))
    expect(hello.session_id).toBe(B)
    expect(entries[0].text).toBe('what is 6 times 7?')
  })

  test('without the integration: the newest session of the cwd by its LAST record, not by name or mtime', async () => {
    freshCodexDir()
    // B has the newer name and (here) the newer mtime; A was resumed and written last
    const now = Date.now() / 1000
    utimesSync(inHome(A), now - 60, now - 60)
    utimesSync(inHome(B), now, now)
    const b = await bridgeWith(codexPane(RESUME_CWD))
    const { hello, entries } = await readOpening(await open(b))
    expect(hello.session_id).toBe(A)
    expect(entries[entries.length - 1].text).toBe('You asked me to remember 42.')
  })

  test('an unknown thread id falls back to the cwd; an unknown cwd opens empty (no session written yet)', async () => {
    freshCodexDir()
    const b = await bridgeWith(codexPane(RESUME_CWD, '01a29999-0000-7000-8000-000000000000'))
    const { hello } = await readOpening(await open(b))
    expect(hello.session_id).toBe(A)
    await expectAwaiting(await bridgeWith(codexPane('/nowhere')), PANE)
  })

  test('hostile session values are no session, never a path; ?subagent= is "no transcript"', async () => {
    freshCodexDir()
    for (const value of ['../../etc/passwd', '/etc/passwd', `${A}/../../x`, 'rollout-*', '']) {
      const b = await bridgeWith(codexPane('/nowhere', value))
      await expectAwaiting(b, PANE)
    }
    const b = await bridgeWith(codexPane(RESUME_CWD, A))
    expect(await upgradeStatus(b, PANE, '&subagent=x')).toEqual({ status: 404, body: 'no transcript file for pane' })
  })

  test('a rollout that is a symlink leaving CODEX_HOME: 500 read transcript failed, nothing of it sent', async () => {
    freshCodexDir()
    const outside = join(tempDir(), 'secret.jsonl')
    writeFileSync(outside, readFileSync(inHome(B), 'utf8').replace(/6 × 7 = 42/g, 'SECRET'))
    rmSync(inHome(B))
    symlinkSync(outside, inHome(B))
    const b = await bridgeWith(codexPane(RESUME_CWD, B))
    expect(await upgradeStatus(b, PANE)).toEqual({ status: 500, body: 'read transcript failed' })
    expect(b.logs.join('\n')).toContain('outside')
  })

  test('a rollout that is not JSONL at all is still served: one parsed:false entry per line', async () => {
    freshCodexDir()
    writeFileSync(inHome(B), 'garbage\n{"type":"session_meta"\n')
    const b = await bridgeWith(codexPane(RESUME_CWD, B))
    const { hello, entries } = await readOpening(await open(b))
    expect(hello.total).toBe(2)
    expect(entries.map((e) => e.parsed)).toEqual([false, false])
  })
})

describe('a bridge restart', () => {
  test('the rollout’s index is saved in the data dir and loaded by the next bridge: no index pass, the same opening', async () => {
    freshCodexDir()
    const dataDir = tempDir('codex-data-')
    const life = async () => {
      const b = await startBridge({
        state: { panes: [codexPane(cwdOf(rollout(A)), A)] },
        homes: { codexDir },
        timing: FAST,
        deps: { indexCacheDir: join(dataDir, 'index-cache') },
      })
      let opening
      try {
        opening = await readOpening(await open(b))
      } finally {
        for (const q of sockets.splice(0)) q.close()
        await b.stop()
      }
      await b.app.decorator.indexCache.flush(5000)
      const { jsonl, indexCache } = b.app.decorator.counters
      return { opening, built: jsonl.indexBuilds, loaded: indexCache.loads }
    }
    const first = await life()
    expect(first).toMatchObject({ built: 1, loaded: 0 })
    const again = await life()
    expect(again).toMatchObject({ built: 0, loaded: 1 })
    expect(again.opening.entries).toEqual(first.opening.entries)
    rmSync(dataDir, { recursive: true, force: true })
  })
})

describe('live', () => {
  test('appended records stream live; a late command result arrives under the old call id, failed: it was aborted', async () => {
    freshCodexDir()
    const path = inHome(INTERRUPT)
    const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean)
    const last = lines.pop()! // the background command's late CommandExecution
    writeFileSync(path, lines.join('\n') + '\n')
    const b = await bridgeWith(codexPane('/home/me/codex-interrupt/proj', INTERRUPT))
    const q = await open(b)
    const { hello } = await readOpening(q)
    expect(hello.total).toBe(16)
    appendFileSync(path, last + '\n')
    const f = await q.next(5000)
    expect(f).toMatchObject({
      type: 'entry',
      live: true,
      entry: { seq: 17, kind: 'tool_result', result: { for_id: 'call_mock000010', ok: false, output_summary: 'Finished after it was aborted:\njob-done' } },
    })
    // a reader from the start sees the same entry
    const again = await readOpening(await open(b))
    expect(again.entries.at(-1)).toEqual((f as { entry: unknown }).entry)
  })

  test('rotation: herdr reports another thread → session_changed, then its hello and backlog', async () => {
    freshCodexDir()
    const b = await bridgeWith(codexPane(RESUME_CWD, B))
    const q = await open(b)
    await readOpening(q)
    b.updatePane(PANE, (p) => {
      p.agent!.agent_session = { agent: 'codex', kind: 'id', source: 'herdr:codex', value: A } as any
    })
    const changed = await q.next(5000)
    expect(changed).toMatchObject({ type: 'session_changed' })
    const { hello } = await readOpening(q)
    expect(hello.session_id).toBe(A)
  })

  test('a long rollout pages: newest 150 first, load_older back to the start without gaps', async () => {
    freshCodexDir()
    const path = inHome(INTERRUPT)
    const body = readFileSync(path, 'utf8').split('\n').filter(Boolean)
    const out = [body[0]]
    for (let k = 0; k < 12; k++) out.push(...body.slice(1))
    writeFileSync(path, out.join('\n') + '\n')
    const total = totalOf(path)
    expect(total).toBe(12 * 17)
    const b = await bridgeWith(codexPane('/home/me/codex-interrupt/proj', INTERRUPT))
    const q = await open(b)
    const { hello, entries } = await readOpening(q)
    expect(hello).toMatchObject({ total, backlog_count: 150, has_older: true })
    const older = await pageToStart(q, hello.oldest_loaded_seq, 100)
    const all = [...older, ...entries].sort((a, b) => a.seq - b.seq)
    expectContiguous(
      all.map((e) => e.seq),
      total,
    )
    expect(new Set(all.map((e) => e.id)).size).toBe(total)
    // every copy's late result of the interrupted command is failed, whichever page read it:
    // the newest page's lines know the aborts before them (the index pass's facts)
    const late = all.filter((e) => e.kind === 'tool_result' && e.result.for_id === 'call_mock000010')
    expect(late).toHaveLength(24)
    expect(late.map((e) => [e.result.ok, e.result.output_summary])).toEqual(
      Array.from({ length: 12 }, () => [
        [false, 'aborted by user'],
        [false, 'Finished after it was aborted:\njob-done'],
      ]).flat(),
    )
    expect(entries.some((e) => e.kind === 'tool_result' && e.result.output_summary === 'Finished after it was aborted:\njob-done')).toBe(true)
    expect(entries.some((e) => e.kind === 'tool_result' && e.result.output_summary === 'aborted by user')).toBe(true)
  })
})
