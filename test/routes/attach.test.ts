// /attach input arrives in the order it was typed (issue 10, item 3): one
// typing loop per socket, frames queued meanwhile coalesced, the queue bounded.
import { afterEach, expect, test } from 'bun:test'
import { ADMIN, FrameQueue, startBridge, waitFor, type Bridge } from '../support/harness'
import type { HerdrClient } from '../../src/herdr/client'

let b: Bridge | undefined
afterEach(async () => {
  await b?.stop()
  b = undefined
})

/** Records every paneSendText (text, and how many ran at once), each taking a jittered while. */
function recording(inner: HerdrClient) {
  const sent: string[] = []
  let inFlight = 0
  let maxInFlight = 0
  let n = 0
  const client: HerdrClient = {
    ...inner,
    async paneSendText(pane, text) {
      inFlight++
      maxInFlight = Math.max(maxInFlight, inFlight)
      try {
        await Bun.sleep([30, 5, 60, 15][n++ % 4]) // uneven, like real process spawns
        await inner.paneSendText(pane, text)
        sent.push(text)
      } finally {
        inFlight--
      }
    },
  }
  return { client, sent, max: () => maxInFlight }
}

/** A bridge whose sends are recorded, and an open /attach socket on its plain pane. */
async function attachRecorded() {
  let rec!: ReturnType<typeof recording>
  b = await startBridge({
    wrapHerdr: (inner) => (rec = recording(inner)).client,
    state: { panes: [{ pane_id: 'w1:p1', workspace_id: 'w1', tab_id: 'w1:t1', screen: '$ \n' }] },
    timing: { attachPollMs: 1000 },
  })
  const q = new FrameQueue(`${b.wsBase}/attach?pane=w1:p1&token=${ADMIN}`)
  await q.opened
  return { rec, q, b }
}

test('300 one-key frames in a burst: typed in order, one herdr call at a time, coalesced', async () => {
  const { rec, q } = await attachRecorded()
  const typed = Array.from({ length: 300 }, (_, i) => 'hello world '[i % 12]).join('')
  for (const ch of typed) q.send(ch)
  await waitFor(() => rec.sent.join('').length >= typed.length, 20_000, 'everything typed')
  expect(rec.sent.join('')).toBe(typed)
  expect(rec.max()).toBe(1)
  expect(rec.sent.length).toBeLessThan(100)
  // and the fake herdr saw the same text, in the same order
  const viaHerdr = b!.calls().filter((c) => c[1] === 'send-text')
  expect(viaHerdr.length).toBe(rec.sent.length)
  q.close()
}, 30_000)

test('frames typed 50 ms apart keep their order ("hello world", not "hlelo wordl")', async () => {
  const { rec, q } = await attachRecorded()
  for (const ch of 'hello world') {
    q.send(ch)
    await Bun.sleep(50)
  }
  await waitFor(() => rec.sent.join('').length >= 11, 20_000, 'everything typed')
  expect(rec.sent.join('')).toBe('hello world')
  expect(rec.max()).toBe(1)
  q.close()
}, 30_000)

test('a client typing far faster than herdr takes it is paused: the queue stays bounded, nothing is lost', async () => {
  const { ATTACH_INPUT_HARD_MAX } = await import('../../src/routes/attach')
  const sent: string[] = []
  b = await startBridge({
    wrapHerdr: (inner) => ({
      ...inner,
      async paneSendText(_pane: string, text: string) {
        await Bun.sleep(20) // a slow herdr
        sent.push(text)
      },
    }),
    state: { panes: [{ pane_id: 'w1:p1', workspace_id: 'w1', tab_id: 'w1:t1', screen: '$ \n' }] },
    timing: { attachPollMs: 1000 },
  })
  const attachCounters = b.app.decorator.counters.attach // this bridge's own: it starts from none
  const q = new FrameQueue(`${b.wsBase}/attach?pane=w1:p1&token=${ADMIN}`)
  await q.opened
  const frame = (i: number) => String(i % 10).repeat(2048)
  for (let i = 0; i < 200; i++) q.send(frame(i)) // 400 KB, as fast as the socket takes it
  const all = Array.from({ length: 200 }, (_, i) => frame(i)).join('')
  await waitFor(() => sent.join('').length >= all.length, 25_000, 'everything typed')
  expect(sent.join('')).toBe(all)
  expect(attachCounters.maxQueuedInput).toBeLessThanOrEqual(ATTACH_INPUT_HARD_MAX)
  q.close()
}, 40_000)

test('a burst past the hard bound closes the socket with 1008 instead of queueing it', async () => {
  const { ATTACH_INPUT_HARD_MAX } = await import('../../src/routes/attach')
  b = await startBridge({
    wrapHerdr: (inner) => ({
      ...inner,
      async paneSendText() {
        await Bun.sleep(1000) // herdr stuck on the first chunk
      },
    }),
    state: { panes: [{ pane_id: 'w1:p1', workspace_id: 'w1', tab_id: 'w1:t1', screen: '$ \n' }] },
    timing: { attachPollMs: 1000 },
  })
  const attachCounters = b.app.decorator.counters.attach // this bridge's own: it starts from none
  const q = new FrameQueue(`${b.wsBase}/attach?pane=w1:p1&token=${ADMIN}`)
  await q.opened
  q.send('x'.repeat(20 * 1024)) // queued behind a stuck herdr: reading pauses
  q.send('y'.repeat(1_048_000)) // with what is still queued, past the hard bound whenever it is read
  expect(await q.closed).toEqual({ code: 1008, reason: 'input queue full' })
  expect(attachCounters.maxQueuedInput).toBeLessThanOrEqual(ATTACH_INPUT_HARD_MAX)
}, 20_000)
