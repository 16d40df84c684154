// GET /agent-state end to end: every real corpus screen served by the fake
// herdr through the real app, checked against the scenario's expected.json;
// the error table; "a momentary read failure is non-fatal"; "parsing never 500s".
import { afterAll, beforeAll, describe as bunDescribe, expect, test } from 'bun:test'
// each describe runs against herdr 0.8.2 (protocol 20) and 0.9.3 (protocol 22), the corpus once
import { describe, eachHerdrPass } from '../support/herdr-modes'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Value } from '@sinclair/typebox/value'
import { ADMIN, ROOT, startBridge, type Bridge } from '../support/harness'
import { CardSchema } from '../../src/card/card'
import type { FakePane } from '../../src/demo/fake-herdr'
import { onCard } from '../support/blocked'

const SCREENS = join(ROOT, 'fixtures/screens')
const TITLE = 'Task title from herdr'

interface Expected {
  agent: string
  screens: Record<string, { agent_status: string; permission_mode: string | null; headline: string | null; blocked?: unknown }>
}

// Every (scenario, screen) as one pane of the fake herdr, visible text from the .txt capture.
const rows: { pane: string; scenario: string; label: string; kind: string; exp: Expected['screens'][string] }[] = []
const panes: FakePane[] = []
for (const scenario of readdirSync(SCREENS).sort()) {
  const f = join(SCREENS, scenario, 'expected.json')
  if (!existsSync(f)) continue
  const expected: Expected = JSON.parse(readFileSync(f, 'utf8'))
  for (const [label, exp] of Object.entries(expected.screens)) {
    if (!existsSync(join(SCREENS, scenario, `${label}.txt`))) continue
    const pane = `w1:p${rows.length + 1}`
    rows.push({ pane, scenario, label, kind: expected.agent, exp })
    panes.push({
      pane_id: pane,
      workspace_id: 'w1',
      tab_id: 'w1:t1',
      cwd: '/home/me/proj',
      screen_file: join(SCREENS, scenario, `${label}.txt`),
      ansi_file: join(SCREENS, scenario, `${label}.ansi`),
      agent: {
        agent: expected.agent,
        agent_status: exp.agent_status as any,
        state_change_seq: 11,
        terminal_title_stripped: TITLE,
      },
    })
  }
}
// Special panes: a live agent whose screen cannot be read, and hostile screens.
panes.push({ pane_id: 'w2:p1', workspace_id: 'w2', tab_id: 'w2:t1', agent: { agent: 'claude', agent_status: 'working', terminal_title_stripped: TITLE } })
const garbage = ['\u0000\u0001\u00ff\u001b[31m\u001b]0;x\u0007', '─'.repeat(300), '❯\n'.repeat(500), '\u001b[', '1. Yes\n2. No\n']
for (const [i, screen] of garbage.entries())
  panes.push({ pane_id: `w3:p${i + 1}`, workspace_id: 'w3', tab_id: 'w3:t1', screen, agent: { agent: i % 2 ? 'claude' : 'aider', agent_status: 'blocked' } })

/**
 * expected.json numbers opencode's permission buttons by position; they carry no
 * number on screen, so the contract's index is 0 ("0 if unnumbered").
 */
function contractBlocked(kind: string, blocked: { question: string; options: { index: number }[] } | undefined) {
  // the permission box and its "Always allow" confirmation: unnumbered buttons
  if (kind !== 'opencode' || !blocked || !/^(?:Permission required|Always allow)$/.test(blocked.question)) return blocked
  return { ...blocked, options: blocked.options.map((o) => ({ ...o, index: 0 })) }
}

let b: Bridge
// a bridge of each pass's herdr release
eachHerdrPass(
  async () => {
    b = await startBridge({ state: { panes, fail: {} } })
  },
  () => b.stop(),
)

// Once, not per release: the release changes what herdr says of an agent, never its screen (hundreds of reads).
bunDescribe('every corpus screen through the endpoint', () => {
  beforeAll(async () => {
    b = await startBridge({ state: { panes, fail: {} } })
  })
  afterAll(() => b.stop())
  for (const r of rows)
    test(`${r.scenario}/${r.label}`, async () => {
      const res = await b.get(`/agent-state?pane=${r.pane}`)
      expect(res.status).toBe(200)
      const card: any = await res.json()
      expect(Value.Check(CardSchema, card)).toBe(true)
      expect(card.pane_id).toBe(r.pane)
      expect(card.agent_kind).toBe(r.kind)
      expect(card.agent_status).toBe(r.exp.agent_status)
      expect(card.parsed).toBe(true)
      expect(card.permission_mode ?? null).toBe(r.exp.permission_mode)
      if (r.exp.headline !== null) expect(card.headline).toBe(r.exp.headline)
      else expect(typeof card.headline).toBe('string')
      expect(card.blocked).toEqual(onCard(r.kind, contractBlocked(r.kind, r.exp.blocked as any) as any))
      expect(card.detail).not.toMatch(/\u001b|[─│╭╮╰╯]/)
      for (const line of card.transcript ?? []) expect(line).not.toMatch(/\u001b|[─│╭╮╰╯]/)
      expect((card.transcript ?? []).length).toBeLessThanOrEqual(12)
    })

  test('the screen is read with --source visible (never --lines on an alternate-screen agent); opencode and claude with colours', () => {
    const reads = b.calls().filter((c) => c[0] === 'agent' && c[1] === 'read')
    expect(reads.length).toBeGreaterThan(0)
    const kindOf = new Map(panes.map((p) => [p.pane_id, p.agent?.agent]))
    for (const c of reads) {
      const kind = kindOf.get(c[2])
      if (kind === 'opencode' || kind === 'claude') expect(c.slice(3)).toEqual(['--source', 'visible', '--format', 'ansi'])
      else expect(c.slice(3)).toEqual(['--source', 'visible'])
    }
  })
})

describe('degraded input', () => {
  test('a live agent whose screen cannot be read still answers 200 from what herdr said', async () => {
    const s = b.state()
    b.setState({ ...s, fail: { 'agent read': { code: 'read_failed', message: 'terminal gone' } } })
    try {
      const res = await b.get('/agent-state?pane=w1:p1')
      expect(res.status).toBe(200)
      const card: any = await res.json()
      expect(card.agent_status).toBe(rows[0].exp.agent_status)
      expect(typeof card.headline).toBe('string')
      expect(card.headline.length).toBeGreaterThan(0)
    } finally {
      b.setState(s)
    }
  })

  test('a working agent with no screen text falls back to the task title', async () => {
    const card: any = await b.json('/agent-state?pane=w2:p1')
    expect(card.headline).toBe(TITLE)
  })

  for (let i = 0; i < garbage.length; i++)
    test(`garbage screen ${i + 1} is a 200 card, never a 500`, async () => {
      const res = await b.get(`/agent-state?pane=w3:p${i + 1}`)
      expect(res.status).toBe(200)
      const card: any = await res.json()
      expect(Value.Check(CardSchema, card)).toBe(true)
      expect(card.agent_status).toBe('blocked')
      // blocked is always present when herdr says blocked and a grammar exists; never for the fallback
      if (card.parsed) expect(Array.isArray(card.blocked.options)).toBe(true)
      else expect(card.blocked).toBeUndefined()
    })
})

describe('errors', () => {
  test('400 want ?pane=<pane_id>', async () => {
    for (const q of ['', '?pane=', '?other=1']) {
      const res = await b.get(`/agent-state${q}`)
      expect(res.status).toBe(400)
      expect(await res.text()).toBe('want ?pane=<pane_id>')
    }
  })
  test('401 unauthorized, by header and by ?token=', async () => {
    for (const res of [
      await b.get('/agent-state?pane=w1:p1', null),
      await b.get('/agent-state?pane=w1:p1', 'nope'),
      await b.get('/agent-state?pane=w1:p1&token=nope', null),
    ]) {
      expect(res.status).toBe(401)
      expect(await res.text()).toBe('unauthorized')
    }
    expect((await b.get(`/agent-state?pane=w1:p1&token=${ADMIN}`, null)).status).toBe(200)
  })
  test('404 no such agent: unknown pane, hostile pane values', async () => {
    for (const p of ['w9:p9', '../../etc/passwd', '--help', 'w1:p1;rm', encodeURIComponent('w1:p1\n')]) {
      const res = await b.get(`/agent-state?pane=${p}`)
      expect(res.status).toBe(404)
      expect(await res.text()).toBe('no such agent')
    }
  })
  test('502 herdr agent get …: <stderr>', async () => {
    const s = b.state()
    b.setState({ ...s, server: 'not_running' })
    try {
      const res = await b.get('/agent-state?pane=w1:p1')
      expect(res.status).toBe(502)
      expect(await res.text()).toBe(
        'herdr agent get w1:p1: {"id":"cli:agent:get","error":{"code":"server_not_running","message":"no herdr server is running at /home/u/.config/herdr/herdr.sock; run `herdr` to start or attach it"}}',
      )
    } finally {
      b.setState(s)
    }
  })
})

describe('explain', () => {
  test('the X-Gothalo-Rule header names the rule that decided the card', async () => {
    const blocked = rows.find((r) => r.scenario === 'cc-bash-prompt' && r.label === '01-bash-prompt')!
    const res = await b.get(`/agent-state?pane=${blocked.pane}`)
    expect(res.headers.get('x-gothalo-rule')).toMatch(/dialog/)
    const garbage = await b.get('/agent-state?pane=w3:p1')
    expect(garbage.headers.get('x-gothalo-rule')).toMatch(/^[\x20-\x7e]+$/)
  })
})
