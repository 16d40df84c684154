// POST /answer and /approve's fingerprint against a fake herdr whose panes react to keys
// the way each real dialog did: every screen below is a real capture
// (fixtures/screens-answer/<run>/, captured with the real agents), and each reaction
// moves the pane from the screen before a key to the screen the program showed after it.
import { afterEach, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import type { FakePane, FakeReaction } from '../../src/demo/fake-herdr'
import { ROOT, claudePane, startBridge, type Bridge } from '../support/harness'

const A = (run: string, label: string) => join(ROOT, 'fixtures/screens-answer', run, `${label}.txt`)

let b: Bridge | undefined
afterEach(async () => {
  await b?.stop()
  b = undefined
})

/** A chain of captured screens: [screen, key (or text), next screen, …]. */
function chain(pane: string, run: string, steps: [string, string, string, Partial<FakePane['agent']>?][]): FakeReaction[] {
  return steps.map(([from, input, to, agent]) => {
    const isText = input.startsWith('text:')
    return {
      pane,
      on: isText ? 'send-text' : 'send-keys',
      match: isText ? input.slice(5) : input,
      when: A(run, from),
      set: { screen_file: A(run, to), ...(agent ? { agent: agent as any } : {}) },
      repeat: true,
    }
  })
}

const inputs = (b: Bridge) => b.calls().filter((c) => c[1] === 'send-keys' || c[1] === 'send-text')

async function card(b: Bridge, pane = 'w1:p2') {
  return (await b.json(`/agent-state?pane=${pane}`)) as any
}

// Claude Code 2.1.332: two tabbed questions, the first multi-select (fixtures/screens-answer/cc332-ask)
const ASK = 'cc332-ask'
const askChain = chain('w1:p2', ASK, [
  ['01-multi', '1', '02-key1'],
  ['02-key1', '3', '03-key3'],
  ['03-key3', 'down', '04-down'],
  ['04-down', 'down', '05-down'],
  ['05-down', 'down', '06-down'],
  ['06-down', 'down', '07-down-next'],
  ['07-down-next', 'enter', '08-next-enter'],
  ['08-next-enter', '2', '09-db-key2'],
  ['09-db-key2', '1', '10-submit', { agent_status: 'done', state_change_seq: 8 }],
])

describe('Claude Code 2.1.332 tabbed questions, the first multi-select', () => {
  test('the card: fingerprint, multi_select with checked, free_text, the tabs', async () => {
    b = await startBridge({ state: { panes: [claudePane({ screen_file: A(ASK, '01-multi'), agent: { agent_status: 'blocked' } })] } })
    const c = await card(b)
    expect(c.blocked.multi_select).toBe(true)
    expect(c.blocked.fingerprint).toMatch(/^[0-9a-f]{16}$/)
    expect(c.blocked.questions).toEqual({ titles: ['Features', 'Database'], current: 1 })
    expect(c.blocked.options.map((o: any) => [o.label, o.checked, o.free_text])).toEqual([
      ['Logging', false, undefined],
      ['Metrics', false, undefined],
      ['Tracing', false, undefined],
      ['Type something', false, true],
      ['Chat about this', undefined, undefined],
    ])
    // moving the cursor and ticking boxes keep the fingerprint
    b.updatePane('w1:p2', (p) => (p.screen_file = A(ASK, '05-down')))
    const moved = await card(b)
    expect(moved.blocked.options.map((o: any) => o.checked)).toEqual([true, false, true, false, undefined])
    expect(moved.blocked.fingerprint).toBe(c.blocked.fingerprint)
  })

  test('two boxes ticked and submitted, then the next tab and the review answered via next_fingerprint', async () => {
    b = await startBridge({
      state: { panes: [claudePane({ screen_file: A(ASK, '01-multi'), agent: { agent_status: 'blocked' } })], reactions: askChain },
    })
    const c = await card(b)
    const r1 = await b.post('/answer', { pane: 'w1:p2', seq: 7, fingerprint: c.blocked.fingerprint, choose: [1, 3] })
    const a1: any = await r1.json()
    expect(r1.status).toBe(200)
    // ticks by digit, Down to the "Next" row past the last box, Enter
    expect(inputs(b).map((x) => x[3])).toEqual(['1', '3', 'down', 'down', 'down', 'down', 'enter'])
    const tab2 = await card(b)
    expect(tab2.blocked.question).toBe('Which database should we use?')
    expect(tab2.blocked.questions).toEqual({ titles: ['Features', 'Database'], current: 2 })
    expect(a1).toEqual({ sent: true, agent_status: 'blocked', next_fingerprint: tab2.blocked.fingerprint })

    const r2 = await b.post('/answer', { pane: 'w1:p2', seq: 7, fingerprint: a1.next_fingerprint, choose: [2] })
    const a2: any = await r2.json()
    expect(a2.sent).toBe(true)
    const review = await card(b)
    expect(review.blocked.options.map((o: any) => o.label)).toEqual(['Submit answers', 'Cancel'])
    expect(a2.next_fingerprint).toBe(review.blocked.fingerprint)

    const r3 = await b.post('/answer', { pane: 'w1:p2', seq: 7, fingerprint: a2.next_fingerprint, choose: [1] })
    expect(await r3.json()).toEqual({ sent: true, agent_status: 'done', next_fingerprint: null })
    expect(inputs(b).map((x) => x[3])).toEqual(['1', '3', 'down', 'down', 'down', 'down', 'enter', '2', '1'])
  }, 60_000)
})
