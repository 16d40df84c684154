// The actions that read the screen back: /agent-mode/cycle confirms the new
// mode from the footer; /send of "N\n" into a numbered Claude Code dialog does
// not send a stray Enter once the digit has acted.
import { afterEach, expect, test } from 'bun:test'
import { join } from 'node:path'
import { ROOT, claudePane, startBridge, type Bridge } from '../support/harness'

const S = (f: string) => join(ROOT, 'fixtures/screens-bridge', f)
let b: Bridge | undefined
afterEach(async () => {
  await b?.stop()
  b = undefined
})

test('mode cycle: Shift+Tab, then the footer confirms the new mode', async () => {
  b = await startBridge({
    state: {
      panes: [claudePane({ screen_file: S('mode-default.txt') })],
      reactions: [{ pane: 'w1:p2', on: 'send-keys', match: 'shift+tab', set: { screen_file: S('mode-accept-edits.txt') } }],
    },
  })
  const r = await b.post('/agent-mode/cycle', { pane: 'w1:p2' })
  expect(r.status).toBe(200)
  expect(await r.json()).toEqual({ pane_id: 'w1:p2', previous_mode: 'default', permission_mode: 'acceptEdits', confirmed: true })
  expect(b.calls().filter((c) => c[1] === 'send-keys')).toEqual([['agent', 'send-keys', 'w1:p2', 'shift+tab']])
})

test('mode cycle: a footer that does not change is not confirmed', async () => {
  b = await startBridge({ state: { panes: [claudePane({ screen_file: S('mode-default.txt') })] } })
  const r = await b.post('/agent-mode/cycle', { pane: 'w1:p2' })
  expect(await r.json()).toEqual({ pane_id: 'w1:p2', previous_mode: 'default', permission_mode: 'default', confirmed: false })
})

test('mode cycle: 422 for kinds without modes, 409 inside a dialog, 404 unknown', async () => {
  b = await startBridge({
    state: {
      panes: [
        claudePane({ screen_file: S('bash-prompt.txt'), agent: { agent_status: 'blocked' } }),
        { pane_id: 'w1:p3', workspace_id: 'w1', tab_id: 'w1:t1', agent: { agent: 'pi', agent_status: 'idle' }, screen: 'pi\n' },
      ],
    },
  })
  const pi = await b.post('/agent-mode/cycle', { pane: 'w1:p3' })
  expect(pi.status).toBe(422)
  expect(await pi.text()).toBe('permission modes not supported for this agent kind')
  const blocked = await b.post('/agent-mode/cycle', { pane: 'w1:p2' })
  expect(blocked.status).toBe(409)
  expect(await blocked.text()).toBe('agent is blocked')
  const missing = await b.post('/agent-mode/cycle', { pane: 'w1:p9' })
  expect(missing.status).toBe(404)
  expect(b.calls().some((c) => c[1] === 'send-keys')).toBe(false)
})

test('send "3\\n" into a permission dialog: the digit answers, no stray Enter', async () => {
  b = await startBridge({
    state: {
      panes: [claudePane({ screen_file: S('bash-prompt.txt'), agent: { agent_status: 'blocked' } })],
      reactions: [{ pane: 'w1:p2', on: 'send-text', match: '3', set: { screen_file: S('after-answer.txt'), agent: { agent_status: 'idle' } as any } }],
    },
  })
  const r = await b.post('/send', { pane: 'w1:p2', text: '3\n' })
  expect(await r.json()).toEqual({ sent: true, enter_suppressed: true })
  const input = b.calls().filter((c) => c[1] === 'send-text' || c[1] === 'send-keys')
  expect(input).toEqual([['pane', 'send-text', 'w1:p2', '3']])
})

test('send "2\\n" when the digit only moves the cursor: Enter confirms it', async () => {
  // A dialog that does not react to the digit (the screen stays the same).
  b = await startBridge({
    state: { panes: [claudePane({ screen_file: S('askuser.txt'), agent: { agent_status: 'blocked' } })] },
  })
  const r = await b.post('/send', { pane: 'w1:p2', text: '2\n' })
  expect(await r.json()).toEqual({ sent: true })
  const input = b.calls().filter((c) => c[1] === 'send-text' || c[1] === 'send-keys')
  expect(input).toEqual([
    ['pane', 'send-text', 'w1:p2', '2'],
    ['pane', 'send-keys', 'w1:p2', 'enter'],
  ])
})

test('send "3\\n" to a plain shell types 3 and Enter', async () => {
  b = await startBridge({ state: { panes: [{ pane_id: 'w1:p1', workspace_id: 'w1', tab_id: 'w1:t1', screen: '$\n' }] } })
  await b.post('/send', { pane: 'w1:p1', text: '3\n' })
  expect(b.calls().filter((c) => c[1] === 'send-text' || c[1] === 'send-keys')).toEqual([
    ['pane', 'send-text', 'w1:p1', '3'],
    ['pane', 'send-keys', 'w1:p1', 'enter'],
  ])
})

test('send "9\\n" when the dialog has no option 9: typed as text with Enter', async () => {
  b = await startBridge({ state: { panes: [claudePane({ screen_file: S('bash-prompt.txt'), agent: { agent_status: 'blocked' } })] } })
  await b.post('/send', { pane: 'w1:p2', text: '9\n' })
  expect(b.calls().filter((c) => c[1] === 'send-text' || c[1] === 'send-keys')).toEqual([
    ['pane', 'send-text', 'w1:p2', '9'],
    ['pane', 'send-keys', 'w1:p2', 'enter'],
  ])
})
