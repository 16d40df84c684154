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

const ANSI = (run: string, label: string) => join(ROOT, 'fixtures/screens-answer', run, `${label}.ansi`)

/** A chain of captured screens: [screen, key (or text:…), next screen, agent fields?]. */
function chain(pane: string, run: string, steps: [string, string, string, Partial<FakePane['agent']>?][]): FakeReaction[] {
  return steps.map(([from, input, to, agent]) => {
    const isText = input.startsWith('text:')
    return {
      pane,
      on: isText ? 'send-text' : 'send-keys',
      match: isText ? input.slice(5) : input,
      when: A(run, from),
      set: { screen_file: A(run, to), ansi_file: ANSI(run, to), ...(agent ? { agent: agent as any } : {}) },
      repeat: true,
    }
  })
}

function pane(kind: string, run: string, label: string, over: Partial<FakePane> = {}): FakePane {
  return {
    pane_id: 'w1:p2',
    workspace_id: 'w1',
    tab_id: 'w1:t1',
    screen_file: A(run, label),
    ansi_file: ANSI(run, label),
    ...over,
    agent: { agent: kind, agent_status: 'blocked', state_change_seq: 7, name: 'bob', ...(over.agent ?? {}) } as FakePane['agent'],
  }
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

describe('free text, pi extension dialogs, opencode buttons', () => {
  test('Claude Code 2.1.332 plan review: "Tell Claude what to change" with the feedback as text', async () => {
    b = await startBridge({
      state: {
        panes: [pane('claude', 'cc332-plan', '01-review')],
        reactions: chain('w1:p2', 'cc332-plan', [
          ['01-review', '3', '02-key3'],
          ['02-key3', 'text:Also add a test file', '03-typed'],
          ['03-typed', 'enter', '04-enter', { agent_status: 'idle', state_change_seq: 8 }],
        ]),
      },
    })
    const c = await card(b)
    expect(c.blocked.options[2]).toEqual({ index: 3, label: 'Tell Claude what to change', selected: false, free_text: true })
    const r = await b.post('/answer', { pane: 'w1:p2', seq: 7, fingerprint: c.blocked.fingerprint, choose: [3], text: 'Also add a test file' })
    expect(await r.json()).toEqual({ sent: true, agent_status: 'idle', next_fingerprint: null })
    expect(inputs(b)).toEqual([
      ['pane', 'send-keys', 'w1:p2', '3'],
      ['pane', 'send-text', 'w1:p2', 'Also add a test file'],
      ['pane', 'send-keys', 'w1:p2', 'enter'],
    ])
  }, 60_000)

  test('pi: an extension confirm answered No (Down, Enter), addressed by the agent name', async () => {
    b = await startBridge({
      state: {
        panes: [pane('pi', 'pi-dlg', '01-confirm')],
        reactions: chain('w1:p2', 'pi-dlg', [
          ['01-confirm', 'down', '02-confirm-down'],
          ['02-confirm-down', 'enter', '03-confirm-enter', { agent_status: 'idle', state_change_seq: 8 }],
        ]),
      },
    })
    const c = await card(b, 'bob')
    expect(c.blocked.question).toBe('Deploy to staging?')
    expect(c.blocked.options.map((o: any) => [o.label, o.selected])).toEqual([
      ['Yes', true],
      ['No', false],
    ])
    const r = await b.post('/answer', { pane: 'bob', seq: 7, fingerprint: c.blocked.fingerprint, choose: [2] })
    expect(await r.json()).toEqual({ sent: true, agent_status: 'idle', next_fingerprint: null })
    expect(inputs(b).map((x) => x.slice(2))).toEqual([
      ['w1:p2', 'down'],
      ['w1:p2', 'enter'],
    ])
  }, 60_000)

  test('pi: an extension input takes the text, then Enter', async () => {
    b = await startBridge({
      state: {
        panes: [pane('pi', 'pi-dlg', '08-input')],
        reactions: chain('w1:p2', 'pi-dlg', [
          ['08-input', 'text:v1.2.3', '09-input-typed'],
          ['09-input-typed', 'enter', '10-input-enter', { agent_status: 'idle', state_change_seq: 8 }],
        ]),
      },
    })
    const c = await card(b)
    expect(c.blocked.options).toEqual([{ index: 0, label: 'Type an answer', selected: true, free_text: true }])
    const r = await b.post('/answer', { pane: 'w1:p2', seq: 7, fingerprint: c.blocked.fingerprint, choose: [1], text: 'v1.2.3' })
    expect(await r.json()).toEqual({ sent: true, agent_status: 'idle', next_fingerprint: null })
    expect(inputs(b).map((x) => x.slice(1))).toEqual([
      ['send-text', 'w1:p2', 'v1.2.3'],
      ['send-keys', 'w1:p2', 'enter'],
    ])
  }, 60_000)

  test('opencode: Reject, two buttons to the right (colour shows the highlight), Enter', async () => {
    b = await startBridge({
      state: {
        panes: [pane('opencode', 'opencode-reject', '01-permission')],
        reactions: chain('w1:p2', 'opencode-reject', [
          ['01-permission', 'right', '02-right'],
          ['02-right', 'right', '03-right2'],
          ['03-right2', 'enter', '04-reject-enter', { agent_status: 'idle', state_change_seq: 8 }],
        ]),
      },
    })
    const c = await card(b)
    expect(c.blocked.options.map((o: any) => o.label)).toEqual(['Allow once', 'Allow always', 'Reject'])
    const r = await b.post('/answer', { pane: 'w1:p2', seq: 7, fingerprint: c.blocked.fingerprint, choose: [3] })
    expect(await r.json()).toEqual({ sent: true, agent_status: 'idle', next_fingerprint: null })
    expect(inputs(b).map((x) => x[3])).toEqual(['right', 'right', 'enter'])
  }, 60_000)
})

describe('never a key on a dialog the phone did not see', () => {
  test("replaced between the phone's read and the first key: 409 dialog changed, nothing pressed", async () => {
    b = await startBridge({ state: { panes: [pane('claude', 'cc332-plan', '01-review')] } })
    const seen = await card(b)
    // the Bash prompt replaces the plan review; herdr's seq does not move
    b.updatePane('w1:p2', (p) => ((p.screen_file = A('cc332-bash', '01-bash')), (p.ansi_file = ANSI('cc332-bash', '01-bash'))))
    const r = await b.post('/answer', { pane: 'w1:p2', seq: 7, fingerprint: seen.blocked.fingerprint, choose: [1] })
    expect(r.status).toBe(409)
    expect(await r.text()).toBe('dialog changed')
    const a = await b.post('/approve', { agent: 'w1:p2', seq: 7, fingerprint: seen.blocked.fingerprint })
    expect(a.status).toBe(409)
    expect(await a.text()).toBe('dialog changed')
    expect(inputs(b)).toEqual([])
  }, 60_000)

  test('replaced between two keys: 409 saying how far it got, and no key after', async () => {
    b = await startBridge({
      state: {
        panes: [pane('claude', ASK, '01-multi')],
        // the first tick lands, then another dialog takes the screen
        reactions: [
          {
            pane: 'w1:p2',
            on: 'send-keys',
            match: '1',
            when: A(ASK, '01-multi'),
            set: { screen_file: A('cc332-bash', '01-bash'), ansi_file: ANSI('cc332-bash', '01-bash') },
          },
        ],
      },
    })
    const c = await card(b)
    const r = await b.post('/answer', { pane: 'w1:p2', seq: 7, fingerprint: c.blocked.fingerprint, choose: [1, 3] })
    expect(r.status).toBe(409)
    expect(await r.text()).toBe('dialog changed: stopped after 1 of 7 steps (ticked "Logging"); nothing more was pressed')
    expect(inputs(b).map((x) => x[3])).toEqual(['1'])
    // not a success: the retry is no duplicate, and it sees the new dialog
    const again = await b.post('/answer', { pane: 'w1:p2', seq: 7, fingerprint: c.blocked.fingerprint, choose: [1, 3] })
    expect(again.status).toBe(409)
    expect(await again.text()).toBe('dialog changed')
    expect(inputs(b).length).toBe(1)
  }, 60_000)

  test('not blocked and stale seq: 409, nothing pressed', async () => {
    b = await startBridge({ state: { panes: [pane('claude', 'cc332-bash', '01-bash')] } })
    const c = await card(b)
    const stale = await b.post('/answer', { pane: 'w1:p2', seq: 6, fingerprint: c.blocked.fingerprint, choose: [1] })
    expect([stale.status, await stale.text()]).toEqual([409, 'stale seq'])
    b.updatePane('w1:p2', (p) => (p.agent!.agent_status = 'working'))
    const idle = await b.post('/answer', { pane: 'w1:p2', seq: 7, fingerprint: c.blocked.fingerprint, choose: [1] })
    expect([idle.status, await idle.text()]).toEqual([409, 'not blocked'])
    expect(inputs(b)).toEqual([])
  }, 60_000)
})

describe('one key sequence per dialog', () => {
  test('50 concurrent answers: one sequence, 49 duplicates', async () => {
    b = await startBridge({
      state: {
        panes: [pane('pi', 'pi-dlg', '04-select')],
        reactions: chain('w1:p2', 'pi-dlg', [
          ['04-select', 'down', '05-select-down'],
          ['05-select-down', 'down', '06-select-down2'],
          ['06-select-down2', 'enter', '07-select-enter', { agent_status: 'idle', state_change_seq: 8 }],
        ]),
      },
    })
    const c = await card(b)
    const body = { pane: 'w1:p2', seq: 7, fingerprint: c.blocked.fingerprint, choose: [3] }
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, k) => b!.post('/answer', { ...body, pane: k % 2 ? 'bob' : 'w1:p2' }).then((r) => r.json())),
    )
    expect(replies.filter((r: any) => r.sent === true).length).toBe(1)
    expect(replies.filter((r: any) => r.duplicate === true).length).toBe(49)
    expect(inputs(b).map((x) => x[3])).toEqual(['down', 'down', 'enter'])
  }, 120_000)

  test('approve with the fingerprint of the dialog on screen presses Enter once', async () => {
    b = await startBridge({ state: { panes: [pane('claude', 'cc332-bash', '01-bash')] } })
    const c = await card(b, 'bob')
    expect(await (await b.post('/approve', { agent: 'bob', seq: 7, fingerprint: c.blocked.fingerprint })).json()).toEqual({ sent: true })
    expect(await (await b.post('/approve', { agent: 'w1:p2', seq: 7, fingerprint: c.blocked.fingerprint })).json()).toEqual({ sent: false, duplicate: true })
    expect(inputs(b)).toEqual([['agent', 'send-keys', 'w1:p2', 'enter']])
  }, 60_000)

  test('approve by pane id and by agent name presses once', async () => {
    b = await startBridge({ state: { panes: [pane('claude', 'cc332-bash', '01-bash')] } })
    const replies = await Promise.all([
      b.post('/approve', { agent: 'w1:p2', seq: 7 }),
      b.post('/approve', { agent: 'bob', seq: 7 }),
      b.post('/approve', { agent: 'bob', seq: 7 }),
      b.post('/approve', { agent: 'w1:p2', seq: 7 }),
    ])
    const bodies: any[] = await Promise.all(replies.map((r) => r.json()))
    expect(bodies.filter((x) => x.sent).length).toBe(1)
    expect(bodies.filter((x) => x.duplicate).length).toBe(3)
    expect(inputs(b)).toEqual([['agent', 'send-keys', 'w1:p2', 'enter']])
    // later, by the other name: still the same pane and seq
    expect(await (await b.post('/approve', { agent: 'bob', seq: 7 })).json()).toEqual({ sent: false, duplicate: true })
  }, 60_000)

  test('a failed first tap does not make the retry a duplicate (approve and answer)', async () => {
    b = await startBridge({
      state: {
        panes: [pane('claude', 'cc332-bash', '01-bash')],
        fail: {
          'agent send-keys': { code: 'agent_send_keys_failed', message: 'pty write failed' },
          'pane send-keys': { code: 'pane_send_failed', message: 'pty write failed' },
        },
      },
    })
    const c = await card(b)
    const first = await b.post('/approve', { agent: 'w1:p2', seq: 7, fingerprint: c.blocked.fingerprint })
    expect(first.status).toBe(502)
    const firstAnswer = await b.post('/answer', { pane: 'bob', seq: 7, fingerprint: c.blocked.fingerprint, choose: [1] })
    expect(firstAnswer.status).toBe(502)
    b.updatePane('w1:p2', () => {})
    const s = b.state()
    delete s.fail
    b.setState(s)
    expect(await (await b.post('/answer', { pane: 'w1:p2', seq: 7, fingerprint: c.blocked.fingerprint, choose: [1] })).json()).toMatchObject({ sent: true })
    expect(await (await b.post('/approve', { agent: 'bob', seq: 7 })).json()).toEqual({ sent: true })
  }, 60_000)
})

describe('400, 404 and 422', () => {
  test('every 400 case, before any key', async () => {
    b = await startBridge({ state: { panes: [pane('claude', 'cc332-plan', '01-review')] } })
    const c = await card(b)
    const ok = { pane: 'w1:p2', seq: 7, fingerprint: c.blocked.fingerprint }
    const want = 'want {"pane": pane_id, "seq": state_change_seq, "fingerprint": string, "choose": [position, …], "text"?: string}'
    for (const bad of [
      {},
      { ...ok },
      { ...ok, choose: [] },
      { ...ok, choose: [0] },
      { ...ok, choose: 1 },
      { ...ok, seq: 'x', choose: [1] },
      { ...ok, fingerprint: '', choose: [1] },
      { ...ok, choose: [1], text: 5 },
    ]) {
      const r = await b.post('/answer', bad)
      expect([JSON.stringify(bad), r.status, await r.text()]).toEqual([JSON.stringify(bad), 400, want])
    }
    const notJson = await b.post('/answer', 'not json')
    expect([notJson.status, await notJson.text()]).toEqual([400, 'bad request body'])
    const cases: [object, string][] = [
      [{ ...ok, choose: [4] }, 'no option at position 4: the dialog has 3'],
      [{ ...ok, choose: [1, 2] }, 'several positions for a single-choice dialog'],
      [{ ...ok, choose: [1], text: 'hi' }, 'text for an option without free_text'],
      [{ ...ok, choose: [3], text: 'x'.repeat(4097) }, 'text longer than 4096 characters'],
      [{ ...ok, choose: [3], text: 'two\nlines' }, 'control characters are not allowed in text'],
      [{ ...ok, choose: [3], text: 'csi \u009b2J' }, 'control characters are not allowed in text'],
      [{ ...ok, choose: [3] }, 'option 3 asks for text: send it in "text"'],
    ]
    for (const [body, text] of cases) {
      const r = await b.post('/answer', body)
      expect([r.status, await r.text()]).toEqual([400, text])
    }
    expect(inputs(b)).toEqual([])
  }, 60_000)

  test('404 for an unknown pane; 422 for a kind without a grammar and a dialog its grammar cannot drive', async () => {
    b = await startBridge({
      state: {
        panes: [
          pane('claude', ASK, '01-multi'),
          { ...pane('aider', 'cc332-bash', '01-bash'), pane_id: 'w1:p3', agent: { agent: 'aider', agent_status: 'blocked', state_change_seq: 7 } as any },
        ],
      },
    })
    const missing = await b.post('/answer', { pane: 'w1:p9', seq: 7, fingerprint: 'x', choose: [1] })
    expect([missing.status, await missing.text()]).toEqual([404, 'no such agent'])
    const aider = await b.post('/answer', { pane: 'w1:p3', seq: 7, fingerprint: 'x', choose: [1] })
    expect([aider.status, await aider.text()]).toEqual([422, 'cannot answer this dialog'])
    const c = await card(b)
    const typedBox = await b.post('/answer', { pane: 'w1:p2', seq: 7, fingerprint: c.blocked.fingerprint, choose: [4], text: 'Auditing' })
    expect([typedBox.status, await typedBox.text()]).toEqual([422, 'cannot answer this dialog'])
    expect(inputs(b)).toEqual([])
  }, 60_000)
})
