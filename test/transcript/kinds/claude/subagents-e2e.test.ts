// Claude panes through the real app and the fake herdr: WS /agent-transcript
// and /snapshot over the fixture CLAUDE_CONFIG_DIRs, end to end — hello with the
// roster, ?subagent= streams and their 404s, the live subagents frame, /clear
// rotation and the /snapshot subagent counts.
import { afterEach, describe, expect, test } from 'bun:test'
import { appendFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FakePane } from '../../../../src/demo/fake-herdr'
import { startBridge, type Bridge, type FrameQueue } from '../../../support/harness'
import { agentPane, connect, FAST, readOpening, upgradeStatus } from '../../../support/transcript-socket'
import { expectedEntryIds, fileLines } from './sessions'
import { claudeHome, type ClaudeHome } from '../../../support/claude-home'

const PANE = 'w1:p2'
const SID = '31768c85-8856-4ba3-9323-9014ac9e2d13'
const CWD = '/home/me/cc-subagents/proj'
const ALPHA = 'a40c5c2a9babaf2e6'
const GAMMA = 'ab787ad1b496b62b0'
const CLEAR_OLD = 'a229ad4a-0ede-46ed-be43-0650f48e0bd1'
const CLEAR_NEW = 'a608b35b-2d46-4cc4-aae3-7403f541c80c'
const CLEAR_CWD = '/home/me/cc-clear/proj'

const bridges: Bridge[] = []
const sockets: FrameQueue[] = []
const homes: ClaudeHome[] = []
afterEach(async () => {
  for (const q of sockets.splice(0)) q.close()
  for (const b of bridges.splice(0)) await b.stop()
  for (const h of homes.splice(0)) h.cleanup()
})

const pane = (cwd: string, sid?: string) => agentPane('claude', cwd, sid ? { kind: 'id', value: sid } : undefined, PANE)

async function bridgeOn(scenario: string, p: FakePane): Promise<{ b: Bridge; h: ClaudeHome }> {
  const h = claudeHome(scenario)
  homes.push(h)
  const b = await startBridge({ state: { panes: [p] }, homes: { claudeDir: h.dir }, timing: FAST })
  bridges.push(b)
  return { b, h }
}

async function open(b: Bridge, extra = ''): Promise<FrameQueue> {
  const q = await connect(b, PANE, extra)
  sockets.push(q)
  return q
}

describe('claude end to end', () => {
  test('hello carries the session id and the five-agent roster; the backlog is the parent file', async () => {
    const { b, h } = await bridgeOn('cc-subagents', pane(CWD, SID))
    const { hello, entries } = await readOpening(await open(b))
    expect(hello).toMatchObject({ agent_kind: 'claude', session_id: SID, pane: PANE })
    expect(hello.subagent).toBeUndefined()
    expect(hello.subagents.map((r: any) => [r.agent_id, r.done])).toEqual([
      ['a40c5c2a9babaf2e6', true],
      ['a465d2df8f0764ced', true],
      ['a5dac6f262406d731', true],
      ['ab787ad1b496b62b0', true],
      ['a4160e85bd33f35ac', false],
    ])
    expect(entries.map((e) => e.id)).toEqual(expectedEntryIds(join(h.proj, `${SID}.jsonl`)))
  })

  test('?subagent= streams that agent; unknown or hostile values are 404 before the upgrade', async () => {
    const { b, h } = await bridgeOn('cc-subagents', pane(CWD, SID))
    const { hello, entries } = await readOpening(await open(b, `&subagent=${ALPHA}`))
    expect(hello).toMatchObject({ session_id: SID, subagent: ALPHA })
    expect(hello.subagents.length).toBe(5)
    expect(entries.map((e) => e.id)).toEqual(expectedEntryIds(join(h.proj, SID, 'subagents', `agent-${ALPHA}.jsonl`)))
    for (const bad of ['../../secret', '%2e%2e%2f%2e%2e%2fetc%2fpasswd', '%2Fetc%2Fpasswd', '', `agent-${ALPHA}`]) {
      expect(await upgradeStatus(b, PANE, `&subagent=${bad}`)).toEqual({ status: 404, body: 'no transcript file for pane' })
    }
  })

  test('the roster is live: a background agent notified while the socket is open → subagents frame', async () => {
    const { b, h } = await bridgeOn('cc-subagents', pane(CWD, SID))
    const parent = join(h.proj, `${SID}.jsonl`)
    const lines = fileLines(parent)
    // cut after GAMMA's async launch (line 14): GAMMA running; DELTA/EPSILON's files exist already
    writeFileSync(
      parent,
      lines
        .slice(0, 16)
        .map((l) => l + '\n')
        .join(''),
    )
    const q = await open(b)
    const { hello } = await readOpening(q)
    expect(hello.subagents.find((r: any) => r.agent_id === GAMMA).done).toBe(false)
    appendFileSync(parent, lines[16] + '\n') // the enqueued <task-notification>
    const frames = await q.until((f) => f.type === 'subagents')
    const roster = frames.pop()
    expect(roster.subagents.find((r: any) => r.agent_id === GAMMA).done).toBe(true)
    expect(roster.subagents.length).toBe(5)
  })

  test('/snapshot row carries the subagent counts', async () => {
    const { b } = await bridgeOn('cc-subagents', pane(CWD, SID))
    const snap = (await (await b.get('/snapshot')).json()) as { panes: any[] }
    expect(snap.panes.find((p) => p.pane_id === PANE).subagents).toEqual({ running: 1, total: 5 })
  })

  test('/clear: herdr reports the new session id → session_changed, then the new session', async () => {
    const { b, h } = await bridgeOn('cc-clear', pane(CLEAR_CWD, CLEAR_OLD))
    const q = await open(b)
    const first = await readOpening(q)
    expect(first.hello.session_id).toBe(CLEAR_OLD)
    expect(first.hello.subagents).toBeUndefined()
    b.updatePane(PANE, (p) => {
      p.agent!.agent_session = { agent: 'claude', kind: 'id', source: 'herdr:claude', value: CLEAR_NEW }
    })
    const frames = await q.until((f) => f.type === 'session_changed')
    expect(frames.pop()).toMatchObject({ from: CLEAR_OLD, to: CLEAR_NEW })
    const second = await readOpening(q)
    expect(second.hello.session_id).toBe(CLEAR_NEW)
    expect(second.entries.map((e) => e.id)).toEqual(expectedEntryIds(join(h.proj, `${CLEAR_NEW}.jsonl`)))
    expect(second.entries.map((e) => e.seq)).toEqual(second.entries.map((_, i) => i + 1))
  })
})
