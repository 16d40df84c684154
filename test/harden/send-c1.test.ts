// /send refuses C1 control characters (issue 10, item 10), as it refuses C0
// ones: U+009B is an 8-bit CSI that a terminal may act on.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startBridge, type Bridge } from '../support/harness'

let b: Bridge
beforeAll(async () => {
  b = await startBridge({ state: { panes: [{ pane_id: 'w1:p1', workspace_id: 'w1', tab_id: 'w1:t1', screen: '$ \n' }] } })
})
afterAll(() => b.stop())

test('U+0080, U+009B (8-bit CSI) and U+009F are 400; nothing is typed', async () => {
  for (const c of ['\u0080', '\u009b', '\u009f']) {
    const r = await b.post('/send', { pane: 'w1:p1', text: `ls ${c}31m` })
    expect([r.status, await r.text()]).toEqual([400, 'control characters other than \\n are not allowed'])
  }
  expect(b.calls().filter((c) => c[0] === 'pane' && c[1].startsWith('send'))).toEqual([])
})

test('the printable neighbours U+007E and U+00A0..U+00FF still go through', async () => {
  const r = await b.post('/send', { pane: 'w1:p1', text: '~\u00a0é\u00ff' })
  expect(r.status).toBe(200)
})
