// The demo's pure parts: the live-tail templates and their re-stamping, the
// derived "running" screen, the initial state; bad input never throws.
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { DEMO_PANES, approveReactions, demoState, runningScreen } from '../../src/demo/data'
import { lastUuid, liveTemplates, restamp } from '../../src/demo/restamp'
import { buildCard } from '../../src/card/build'
import { ROOT } from '../support/harness'
import { fakeAgent } from '../support/agent'

const SAMPLES = join(ROOT, 'src/demo/samples')
const MIX = readFileSync(join(SAMPLES, 'claude/projects/-home-me-cc-tools-mix-proj/7444533a-645f-44b8-9f33-73e27f0ddc04.jsonl'), 'utf8')
const BASH_PROMPT = readFileSync(join(SAMPLES, 'screens/cc-tools-mix/01-bash-prompt.txt'), 'utf8')

const stamp = (over: Partial<Parameters<typeof restamp>[1]> = {}) => ({
  uuid: 'u-new',
  parentUuid: 'u-parent',
  timestamp: '2030-01-01T00:00:00.000Z',
  sessionId: 'sess-live',
  cwd: '/home/me/live',
  messageId: 'msg_demo7',
  toolId: 'toolu_demo2',
  toolUseUuid: 'u-use',
  ...over,
})

describe('liveTemplates', () => {
  test('each round is the Bash call, the text that led into it, and its result, from the real sample', () => {
    const rounds = liveTemplates(MIX)
    expect(rounds.length).toBe(3)
    for (const [text, use, result] of rounds) {
      expect(JSON.parse(text).message.content[0].type).toBe('text')
      const call = JSON.parse(use).message.content[0]
      expect(call.name).toBe('Bash')
      expect(JSON.parse(result).message.content[0].tool_use_id).toBe(call.id)
      for (const l of [text, use, result]) expect(l.length).toBeLessThanOrEqual(2000)
    }
    expect(JSON.parse(rounds[1][1]).message.content[0].input.command).toBe('grep -rn TODO .')
  })

  test('garbage, half lines, binary and sessions without Bash give no rounds and never throw', () => {
    const half = MIX.split('\n')
      .map((l) => l.slice(0, Math.floor(l.length / 2)))
      .join('\n')
    for (const bad of [
      '',
      '\n\n',
      'not json\n{"a":',
      half,
      '\u0000\u0001\uFFFD'.repeat(100),
      '[1,2]\nnull\n"x"\n',
      '{"type":"assistant","message":{"content":"str"}}',
    ])
      expect(liveTemplates(bad)).toEqual([])
    // a Bash call whose result never came is not a round
    const noResults = MIX.split('\n')
      .filter((l) => !l.includes('"tool_result"'))
      .join('\n')
    expect(liveTemplates(noResults)).toEqual([])
  })
})

describe('restamp', () => {
  const [text, use, result] = liveTemplates(MIX)[1]

  test('fresh ids, time, session and cwd; the content is the sample’s', () => {
    const r = JSON.parse(restamp(use, stamp()))
    const orig = JSON.parse(use)
    expect([r.uuid, r.parentUuid, r.timestamp, r.sessionId, r.cwd, r.message.id]).toEqual([
      'u-new',
      'u-parent',
      '2030-01-01T00:00:00.000Z',
      'sess-live',
      '/home/me/live',
      'msg_demo7',
    ])
    expect(r.message.content[0].id).toBe('toolu_demo2')
    expect(r.message.content[0].input).toEqual(orig.message.content[0].input)
    expect(JSON.parse(restamp(text, stamp())).message.content[0].text).toBe(JSON.parse(text).message.content[0].text)
  })

  test('a result points at the re-stamped call and its line; user lines keep their shape', () => {
    const r = JSON.parse(restamp(result, stamp()))
    expect(r.message.content[0].tool_use_id).toBe('toolu_demo2')
    expect(r.sourceToolAssistantUUID).toBe('u-use')
    expect(r.message.id).toBeUndefined()
    expect(r.promptId).toBeUndefined()
    expect(r.toolUseResult).toEqual(JSON.parse(result).toolUseResult)
  })
})

describe('lastUuid', () => {
  test('the last uuid, skipping a half-written last line and garbage', () => {
    const lines = MIX.trimEnd().split('\n')
    const lastWithUuid = [...lines]
      .reverse()
      .map((l) => JSON.parse(l))
      .find((r) => r.uuid)!.uuid
    expect(lastUuid(MIX)).toBe(lastWithUuid)
    expect(lastUuid(MIX + '{"uuid":"half')).toBe(lastWithUuid)
    expect(lastUuid('garbage\n\u0000\n')).toBeNull()
    expect(lastUuid('')).toBeNull()
  })
})

describe('runningScreen', () => {
  test('the prompt is gone: the card reads no dialog, the tool row says Running…', () => {
    const running = runningScreen(BASH_PROMPT)
    expect(running).not.toContain('Do you want to proceed?')
    expect(running).toContain('⎿  Running…')
    expect(running).not.toContain('Waiting…')
    const agent = (status: 'blocked' | 'working') => fakeAgent('claude', status)
    expect(buildCard(agent('blocked'), BASH_PROMPT).blocked?.question).toBe('Do you want to proceed?')
    const card = buildCard(agent('working'), running)
    expect(card.blocked).toBeUndefined()
    expect(card.headline).toBe('Let me start by checking the toolchain.')
  })

  test('odd screens (no dialog rule, empty, garbage) never throw', () => {
    for (const s of ['', 'just text', '\u0000\u001b[31m', '─'.repeat(30)]) expect(runningScreen(s)).toContain('Running…')
  })
})

describe('demoState', () => {
  test('five panes in one workspace, the reactions answer only the blocked pane at its seq', () => {
    const s = demoState('/x/pi/sessions/a/b.jsonl')
    expect(s.panes.map((p) => p.pane_id)).toEqual(Object.values(DEMO_PANES))
    expect(new Set(s.panes.map((p) => p.workspace_id))).toEqual(new Set(['w1']))
    const blocked = s.panes.find((p) => p.pane_id === DEMO_PANES.blocked)!
    expect(s.reactions).toEqual(
      approveReactions(
        DEMO_PANES.blocked,
        blocked.agent!.state_change_seq!,
        'screens/derived/cc-tools-mix-bash-running',
        'screens/derived/cc-tools-mix-bash-rejected',
      ),
    )
    expect(s.reactions!.map((r) => [r.on, r.match, r.set.agent?.agent_status])).toEqual([
      ['send-keys', 'enter', 'working'],
      ['send-text', '1', 'working'],
      ['send-text', '2', 'working'],
      ['send-text', '3', 'idle'], // "No": the turn stops
    ])
    expect(s.reactions![0].set.agent).toEqual({ agent: 'claude', agent_status: 'working', state_change_seq: blocked.agent!.state_change_seq! + 1 })
    expect(s.panes.find((p) => p.pane_id === DEMO_PANES.pi)!.agent!.agent_session!.value).toBe('/x/pi/sessions/a/b.jsonl')
  })
})
