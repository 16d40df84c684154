// Actions on a codex pane. POST /agent-mode/cycle: Shift+Tab switches codex's collaboration mode
// (Default ⇄ Plan); the footer confirms it ("Plan mode (shift+tab to cycle)" or no label
// = default). Real screens: codex-plan 03-done (Default) and 04-plan-mode-idle (Plan).
import { afterEach, expect, test } from 'bun:test'
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
