// pi panes through the real app and the fake herdr: WS /agent-transcript over
// pi session files copied from the corpus (fixtures/pi), end to end.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test'
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { startBridge, tempDir, type Bridge, type FrameQueue } from '../../../support/harness'
import { EntrySchema } from '../../../../src/transcript/entry'
import { Value } from '@sinclair/typebox/value'
import { isInsideSessions } from '../../../../src/transcript/kinds/pi/source'
import {
  agentPane,
  connect,
  expectContiguous,
  FAST,
  pageToStart,
  readOpening,
  setSession,
  upgradeStatus,
  expectAwaiting,
} from '../../../support/transcript-socket'

const FIX = join(import.meta.dir, '../../../../fixtures/pi')
const BASIC_DIR = '--home-me-pi-basic-proj--'
const BASIC_NAME = '2026-12-02T10-04-19-969Z_01a23636-547f-7174-a957-02ede8b4c7f6.jsonl'
const BASIC_ID = '01a23636-547f-7174-a957-02ede8b4c7f6'
const BASIC_CWD = '/home/me/pi-basic/proj'
const NEW_DIR = '--home-me-pi-new-session-proj--'
const FIRST_NAME = '2026-12-02T10-04-59-955Z_01a23636-f0b2-71d1-aba5-56ab17ea111e.jsonl'
const SECOND_NAME = '2026-12-02T10-05-09-801Z_01a23637-1729-7472-bfca-95c4ddd27dd4.jsonl'
const NEW_CWD = '/home/me/pi-new-session/proj'
const PANE = 'w1:p2'

let root: string
let piDir: string
let sessions: string
const bridges: Bridge[] = []
const sockets: FrameQueue[] = []

/** A fresh pi dir per test: the fixtures copied in (tests append to and add files). */
function freshPiDir(): string {
  piDir = join(mkdtempSync(join(root, 'case-')), 'agent')
  sessions = join(piDir, 'sessions')
  for (const [scenario, dir, names] of [
    ['pi-basic', BASIC_DIR, [BASIC_NAME]],
    ['pi-new-session', NEW_DIR, [FIRST_NAME, SECOND_NAME]],
  ] as const) {
    mkdirSync(join(sessions, dir), { recursive: true })
    for (const n of names) copyFileSync(join(FIX, scenario, 'sessions', dir, n), join(sessions, dir, n))
  }
  return piDir
}

async function bridgeWith(pane = agentPane('pi', BASIC_CWD, { kind: 'path', value: join(sessions, BASIC_DIR, BASIC_NAME) })): Promise<Bridge> {
  const b = await startBridge({ state: { panes: [pane] }, homes: { piDir }, timing: FAST })
  bridges.push(b)
  return b
}

async function open(b: Bridge, extra = ''): Promise<FrameQueue> {
  const q = await connect(b, PANE, extra)
  sockets.push(q)
  return q
}

beforeAll(() => {
  root = tempDir('pi-src-root-')
})
afterEach(async () => {
  for (const q of sockets.splice(0)) q.close()
  for (const b of bridges.splice(0)) await b.stop()
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** pi-basic's message lines repeated with fresh ids, after its header: a long session. */
function longSession(copies: number): string {
  const lines = readFileSync(join(FIX, 'pi-basic/sessions', BASIC_DIR, BASIC_NAME), 'utf8')
    .split('\n')
    .filter(Boolean)
  const out = [lines[0]]
  for (let k = 0; k < copies; k++) {
    for (const l of lines.slice(1)) out.push(l.replace(/"(id|parentId|toolCallId)":"([^"]+)"/g, `"$1":"$2-${k}"`))
  }
  return out.join('\n') + '\n'
}

describe('pi: opening sequence', () => {
  test('hello, the whole short session oldest first, backlog_complete', async () => {
    freshPiDir()
    const b = await bridgeWith()
    const q = await open(b)
    const { hello, entries, complete } = await readOpening(q)
    expect(hello).toMatchObject({
      pane: PANE,
      agent_kind: 'pi',
      session_id: BASIC_ID,
      total: 17,
      backlog_count: 17,
      has_more: false,
      has_older: false,
      oldest_loaded_seq: 1,
    })
    expect('subagents' in hello).toBe(false)
    expect(complete).toEqual({ type: 'backlog_complete', count: 17, has_more: false })
    expectContiguous(
      entries.map((e) => e.seq),
      17,
    )
    for (const e of entries) expect(Value.Check(EntrySchema, e)).toBe(true)
    expect(entries[0]).toMatchObject({ role: 'user', kind: 'message', text: 'Give me a quick tour' })
    expect(entries[1].kind).toBe('thinking')
    const failing = entries.find((e) => e.kind === 'tool_result' && e.result.for_id === 'toolu_mock000004')
    expect(failing.result.ok).toBe(false)
    const call = entries.find((e) => e.kind === 'tool_call' && e.tool.id === 'toolu_mock000004')
    expect(call.tool.name).toBe('bash')
  })

  test('a long session: newest 150, then load_older pages to the start without gap or duplicate', async () => {
    freshPiDir()
    const path = join(sessions, BASIC_DIR, BASIC_NAME)
    writeFileSync(path, longSession(20)) // 20 × 17 = 340 entries
    const b = await bridgeWith()
    const q = await open(b)
    const { hello, entries, complete } = await readOpening(q)
    expect(hello).toMatchObject({ total: 340, backlog_count: 150, has_more: true, has_older: true, oldest_loaded_seq: 191 })
    expect(complete).toMatchObject({ count: 150, has_more: true })
    expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: 150 }, (_, i) => 191 + i))
    const older = await pageToStart(q, 191, 100)
    const all = [...older, ...entries].sort((a, b) => a.seq - b.seq)
    expectContiguous(
      all.map((e) => e.seq),
      340,
    )
    expect(new Set(all.map((e) => e.id)).size).toBe(340)
    expect(all[0].text).toBe('Give me a quick tour')
  })
})

describe('pi: live', () => {
  test('lines pi appends stream live, seq continuing past the backlog', async () => {
    freshPiDir()
    const path = join(sessions, NEW_DIR, FIRST_NAME)
    const b = await bridgeWith(agentPane('pi', NEW_CWD, { kind: 'path', value: path }))
    const q = await open(b)
    const { hello } = await readOpening(q)
    expect(hello.total).toBe(5)
    // Two lines from the other session of this scenario: a user prompt and an answer.
    const extra = readFileSync(join(FIX, 'pi-new-session/sessions', NEW_DIR, SECOND_NAME), 'utf8')
      .split('\n')
      .filter(Boolean)
      .slice(3)
    appendFileSync(path, extra[0] + '\n')
    const first = await q.next()
    expect(first).toMatchObject({ type: 'entry', live: true, entry: { seq: 6, role: 'user', text: 'Hello again' } })
    // A half-written line is not an entry until its newline lands.
    const half = Math.floor(extra[1].length / 2)
    appendFileSync(path, extra[1].slice(0, half))
    appendFileSync(path, extra[1].slice(half) + '\n')
    const second = await q.next()
    expect(second).toMatchObject({ type: 'entry', live: true, entry: { seq: 7, role: 'assistant' } })
    expect(second.entry.text).toStartWith('Second session answer')
    // Garbage and binary lines pass through as unplaced entries; the stream goes on.
    appendFileSync(path, '{not json\n' + Buffer.from([0xff, 0xfe, 0x00, 0x01]).toString('latin1') + '\n')
    const g1 = await q.next()
    const g2 = await q.next()
    expect([g1.entry.seq, g1.entry.parsed, g2.entry.seq, g2.entry.parsed]).toEqual([8, false, 9, false])
  })

  test('/new: herdr reports the second file → session_changed, then a fresh hello and backlog', async () => {
    freshPiDir()
    const first = join(sessions, NEW_DIR, FIRST_NAME)
    const b = await bridgeWith(agentPane('pi', NEW_CWD, { kind: 'path', value: first }))
    const q = await open(b)
    const a = await readOpening(q)
    expect(a.hello.session_id).toBe('01a23636-f0b2-71d1-aba5-56ab17ea111e')
    setSession(b, PANE, { kind: 'path', value: join(sessions, NEW_DIR, SECOND_NAME) })
    const changed = await q.next()
    expect(changed).toEqual({ type: 'session_changed', pane: PANE, from: '01a23636-f0b2-71d1-aba5-56ab17ea111e', to: '01a23637-1729-7472-bfca-95c4ddd27dd4' })
    const c = await readOpening(q)
    expect(c.hello).toMatchObject({ session_id: '01a23637-1729-7472-bfca-95c4ddd27dd4', total: 2, backlog_count: 2, agent_kind: 'pi' })
    expect(c.entries.map((e) => [e.seq, e.text.slice(0, 11)])).toEqual([
      [1, 'Hello again'],
      [2, 'Second sess'],
    ])
  })

  test('a session file pi has not written yet is served empty and streams in when it appears', async () => {
    freshPiDir()
    const later = join(sessions, NEW_DIR, '2026-12-02T11-00-00-000Z_0badc0de-0000-7000-8000-000000000001.jsonl')
    const b = await bridgeWith(agentPane('pi', NEW_CWD, { kind: 'path', value: later }))
    const q = await open(b)
    const { hello, entries, complete } = await readOpening(q)
    expect(hello).toMatchObject({ session_id: '0badc0de-0000-7000-8000-000000000001', total: 0, backlog_count: 0, has_older: false, oldest_loaded_seq: 0 })
    expect(entries).toEqual([])
    expect(complete.count).toBe(0)
    // pi writes the header and the buffered entries at once, on the first reply.
    writeFileSync(later, readFileSync(join(FIX, 'pi-new-session/sessions', NEW_DIR, SECOND_NAME)))
    const e1 = await q.next()
    const e2 = await q.next()
    expect([e1.live, e1.entry.seq, e1.entry.text, e2.entry.seq]).toEqual([true, 1, 'Hello again', 2])
  })

  test('/new onto a pending file: session_changed to an empty session that fills when pi writes it', async () => {
    freshPiDir()
    const first = join(sessions, NEW_DIR, FIRST_NAME)
    const next = join(sessions, NEW_DIR, '2026-12-02T12-00-00-000Z_0badc0de-0000-7000-8000-000000000002.jsonl')
    const b = await bridgeWith(agentPane('pi', NEW_CWD, { kind: 'path', value: first }))
    const q = await open(b)
    await readOpening(q)
    setSession(b, PANE, { kind: 'path', value: next })
    expect(await q.next()).toMatchObject({ type: 'session_changed', to: '0badc0de-0000-7000-8000-000000000002' })
    const { hello } = await readOpening(q)
    expect(hello.total).toBe(0)
    writeFileSync(next, readFileSync(join(FIX, 'pi-new-session/sessions', NEW_DIR, SECOND_NAME)))
    expect(await q.next()).toMatchObject({ type: 'entry', live: true, entry: { seq: 1, text: 'Hello again' } })
  })
})

describe('pi: resolution', () => {
  test('a bare session id is found by its file name in any project dir', async () => {
    freshPiDir()
    const b = await bridgeWith(agentPane('pi', '/somewhere/else', { kind: 'id', value: BASIC_ID }))
    const q = await open(b)
    const { hello } = await readOpening(q)
    expect([hello.session_id, hello.total]).toEqual([BASIC_ID, 17])
  })

  test('no session reported: the newest file in the cwd dir whose header records the cwd', async () => {
    freshPiDir()
    // A newer file in the same dir whose header is another cwd must not be picked.
    const foreign = join(sessions, NEW_DIR, '2026-12-02T13-00-00-000Z_0badc0de-0000-7000-8000-00000000000f.jsonl')
    writeFileSync(foreign, readFileSync(join(sessions, BASIC_DIR, BASIC_NAME)))
    const t0 = Date.now() / 1000
    utimesSync(join(sessions, NEW_DIR, FIRST_NAME), t0 - 100, t0 - 100)
    utimesSync(join(sessions, NEW_DIR, SECOND_NAME), t0 - 50, t0 - 50)
    const b = await bridgeWith(agentPane('pi', NEW_CWD))
    const q = await open(b)
    const { hello } = await readOpening(q)
    expect(hello.session_id).toBe('01a23637-1729-7472-bfca-95c4ddd27dd4')
  })

  test('an unknown session id falls back to the newest matching session', async () => {
    freshPiDir()
    const b = await bridgeWith(agentPane('pi', BASIC_CWD, { kind: 'id', value: 'ffffffff-no-such-session' }))
    const q = await open(b)
    expect((await readOpening(q)).hello.session_id).toBe(BASIC_ID)
  })

  test('a path outside the sessions dir is not trusted: it reads as an unknown session', async () => {
    freshPiDir()
    const outside = join(mkdtempSync(join(root, 'outside-')), '2026-12-02T10-00-00-000Z_0badc0de-0000-7000-8000-0000000000aa.jsonl')
    copyFileSync(join(sessions, NEW_DIR, FIRST_NAME), outside)
    const b = await bridgeWith(agentPane('pi', BASIC_CWD, { kind: 'path', value: outside }))
    const q = await open(b)
    expect((await readOpening(q)).hello.session_id).toBe(BASIC_ID) // the cwd's session, not the outside file
    // …and with no session for the cwd, it opens empty, never on the outside file.
    const b2 = await bridgeWith(agentPane('pi', '/no/sessions/here', { kind: 'path', value: outside }, 'w1:p3'))
    await expectAwaiting(b2, 'w1:p3')
    // A traversal that starts inside the dir is resolved before the check.
    const sneaky = join(sessions, NEW_DIR, '..', '..', '..', basename(outside))
    expect(isInsideSessions(sessions, sneaky)).toBe(false)
  })

  test('a symlink inside the sessions dir pointing out of it is not trusted', () => {
    freshPiDir()
    const outsideDir = mkdtempSync(join(root, 'link-target-'))
    const link = join(sessions, '--link--')
    symlinkSync(outsideDir, link)
    expect(isInsideSessions(sessions, join(link, 'x_0badc0de.jsonl'))).toBe(false)
    expect(isInsideSessions(sessions, join(sessions, BASIC_DIR, BASIC_NAME))).toBe(true)
    expect(isInsideSessions(sessions, join(sessions, 'new-dir', 'x_1.jsonl'))).toBe(true)
    expect(isInsideSessions(sessions, 'relative/x_1.jsonl')).toBe(false)
    expect(isInsideSessions(sessions, join(sessions, BASIC_DIR, 'notes.txt'))).toBe(false)
  })

  test('?subagent= on a pi pane is 404 no transcript file for pane', async () => {
    freshPiDir()
    const b = await bridgeWith()
    expect(await upgradeStatus(b, PANE, '&subagent=x')).toEqual({ status: 404, body: 'no transcript file for pane' })
    expect(await upgradeStatus(b, PANE, '&subagent=../../etc/passwd')).toEqual({ status: 404, body: 'no transcript file for pane' })
  })

  test('no session anywhere for the cwd: opens empty; a garbage session value is not a path', async () => {
    freshPiDir()
    const b = await bridgeWith(agentPane('pi', '/nothing/here', { kind: 'id', value: '../../../etc/passwd' }))
    await expectAwaiting(b, PANE)
  })
})
