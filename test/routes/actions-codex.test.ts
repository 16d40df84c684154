// Actions on a codex pane. POST /agent-mode/cycle: Shift+Tab switches codex's collaboration mode
// (Default ⇄ Plan); the footer confirms it ("Plan mode (shift+tab to cycle)" or no label
// = default). Real screens: codex-plan 03-done (Default) and 04-plan-mode-idle (Plan).
import { afterEach, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { ROOT, startBridge, type Bridge } from '../support/harness'
import type { FakePane } from '../../src/demo/fake-herdr'

const S = (f: string) => join(ROOT, 'fixtures/screens/codex-plan', f)
let b: Bridge | undefined
afterEach(async () => {
  await b?.stop()
  b = undefined
})

const codexPane = (screen_file: string, status = 'done'): FakePane => ({
  pane_id: 'w1:p5',
  workspace_id: 'w1',
  tab_id: 'w1:t1',
  cwd: '/home/me/codex-plan/proj',
  screen_file,
  agent: { agent: 'codex', agent_status: status as any, state_change_seq: 3 },
})

test('codex: Shift+Tab from Default to Plan, confirmed by the footer', async () => {
  b = await startBridge({
    state: {
      panes: [codexPane(S('03-done.txt'))],
      reactions: [{ pane: 'w1:p5', on: 'send-keys', match: 'shift+tab', set: { screen_file: S('04-plan-mode-idle.txt') } }],
    },
  })
  const r = await b.post('/agent-mode/cycle', { pane: 'w1:p5' })
  expect(r.status).toBe(200)
  expect(await r.json()).toEqual({ pane_id: 'w1:p5', previous_mode: 'default', permission_mode: 'plan', confirmed: true })
  expect(b.calls().filter((c) => c[1] === 'send-keys')).toEqual([['agent', 'send-keys', 'w1:p5', 'shift+tab']])
  // the card now says plan
  const card: any = await b.json('/agent-state?pane=w1:p5')
  expect(card.permission_mode).toBe('plan')
})

test('codex: Plan back to Default; the card then has no permission_mode', async () => {
  b = await startBridge({
    state: {
      panes: [codexPane(S('04-plan-mode-idle.txt'), 'idle')],
      reactions: [{ pane: 'w1:p5', on: 'send-keys', match: 'shift+tab', set: { screen_file: S('03-done.txt') } }],
    },
  })
  const r = await b.post('/agent-mode/cycle', { pane: 'w1:p5' })
  expect(await r.json()).toEqual({ pane_id: 'w1:p5', previous_mode: 'plan', permission_mode: 'default', confirmed: true })
  const card: any = await b.json('/agent-state?pane=w1:p5')
  expect(card.permission_mode).toBeUndefined()
})

test('codex: 409 while a dialog is up (a question in Plan mode), nothing pressed', async () => {
  b = await startBridge({ state: { panes: [codexPane(S('05-question.txt'), 'blocked')] } })
  const r = await b.post('/agent-mode/cycle', { pane: 'w1:p5' })
  expect(r.status).toBe(409)
  expect(b.calls().some((c) => c[1] === 'send-keys')).toBe(false)
})

test('codex: /send "1\\n" into an edit dialog — the digit answers at once, no stray Enter', async () => {
  const P = (f: string) => join(ROOT, 'fixtures/screens/codex-live', f)
  b = await startBridge({
    state: {
      panes: [codexPane(P('01-patch.txt'), 'blocked')],
      // the real 0.171.0 run: "1" applied the edit, and the next turn's command dialog came up
      reactions: [{ pane: 'w1:p5', on: 'send-text', match: '1', set: { screen_file: P('02-after-digit.txt') } }],
    },
  })
  const r = await b.post('/send', { pane: 'w1:p5', text: '1\n' })
  expect(await r.json()).toEqual({ sent: true, enter_suppressed: true })
  expect(b.calls().filter((c) => c[1] === 'send-text' || c[1] === 'send-keys')).toEqual([['pane', 'send-text', 'w1:p5', '1']])
})

describe('POST /answer on codex dialogs (real screens: codex-digits, codex-live)', () => {
  const D = (run: string, f: string) => join(ROOT, 'fixtures/screens', run, `${f}.txt`)
  const inputs = (b: Bridge) => b.calls().filter((c) => c[1] === 'send-keys' || c[1] === 'send-text')

  test('a request_user_input question: the digit answers at once, then "Implement this plan?" the same way', async () => {
    b = await startBridge({
      state: {
        panes: [codexPane(D('codex-digits', '01-question'), 'blocked')],
        reactions: [
          { pane: 'w1:p5', on: 'send-keys', match: '2', when: D('codex-digits', '01-question'), set: { screen_file: D('codex-digits', '02-after-digit-2') } },
          {
            pane: 'w1:p5',
            on: 'send-keys',
            match: '3',
            when: D('codex-digits', '02-after-digit-2'),
            set: { screen_file: D('codex-digits', '04-after-digit-3'), agent: { agent_status: 'idle', state_change_seq: 4 } as any },
          },
        ],
      },
    })
    const c: any = await b.json('/agent-state?pane=w1:p5')
    expect(c.blocked.question).toBe('What should the function be called?')
    const r1 = await b.post('/answer', { pane: 'w1:p5', seq: 3, fingerprint: c.blocked.fingerprint, choose: [2] })
    expect(r1.status).toBe(200)
    const a1: any = await r1.json()
    const next: any = await b.json('/agent-state?pane=w1:p5')
    expect(next.blocked.question).toBe('Implement this plan?')
    expect(a1).toEqual({ sent: true, agent_status: 'blocked', next_fingerprint: next.blocked.fingerprint })
    const r2 = await b.post('/answer', { pane: 'w1:p5', seq: 3, fingerprint: a1.next_fingerprint, choose: [3] })
    expect(r2.status).toBe(200)
    // one digit per answer, never an Enter after it
    expect(inputs(b).map((x) => x[3])).toEqual(['2', '3'])
    expect((await b.json('/agent-state?pane=w1:p5')).permission_mode).toBe('plan')
  })

  test('an edit approval answered with option 1: "1" alone; a stale fingerprint is refused before any key', async () => {
    b = await startBridge({
      state: {
        panes: [codexPane(D('codex-live', '01-patch'), 'blocked')],
        reactions: [{ pane: 'w1:p5', on: 'send-keys', match: '1', when: D('codex-live', '01-patch'), set: { screen_file: D('codex-live', '02-after-digit') } }],
      },
    })
    const c: any = await b.json('/agent-state?pane=w1:p5')
    const stale = await b.post('/answer', { pane: 'w1:p5', seq: 3, fingerprint: '0000000000000000', choose: [1] })
    expect(stale.status).toBe(409)
    expect(inputs(b)).toEqual([])
    const r = await b.post('/answer', { pane: 'w1:p5', seq: 3, fingerprint: c.blocked.fingerprint, choose: [1] })
    expect(r.status).toBe(200)
    expect(inputs(b).map((x) => x[3])).toEqual(['1'])
    const next: any = await b.json('/agent-state?pane=w1:p5')
    expect(next.blocked.question).toBe('Would you like to run the following command?')
  })
})
