// Scrolling up through the real app: after a page up, the bridge reads the page
// above it while the reader reads (JsonlFile.prefetch), so the next page up is
// served from memory, with the entries a fresh bridge reads from the file.
import { afterEach, expect, test } from 'bun:test'
import type { FakePane } from '../../../../src/demo/fake-herdr'
import { ADMIN, FrameQueue, fakePane, startBridge, waitFor, type Bridge } from '../../../support/harness'
import { claudeHome, claudeSessionRef } from '../../../support/claude-home'

const PANE = 'w1:p2'
const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function bridgeOn(h: ReturnType<typeof claudeHome>): Promise<Bridge> {
  const pane: FakePane = fakePane('claude', {
    pane_id: PANE,
    cwd: h.cwd,
    agent: { state_change_seq: 1, cwd: h.cwd, agent_session: claudeSessionRef(h.id) },
  })
  const b = await startBridge({ state: { panes: [pane] }, homes: { claudeDir: h.dir }, timing: { tailPollMs: 50, sessionPollMs: 100 } })
  cleanups.push(() => b.stop())
  return b
}

async function open(b: Bridge) {
  const q = new FrameQueue(`${b.wsBase}/agent-transcript?pane=${encodeURIComponent(PANE)}&token=${ADMIN}`)
  cleanups.push(() => q.close())
  await q.opened
  const hello = await q.next()
  await q.until((f) => f.type === 'backlog_complete')
  const pageUp = async (before: number) => {
    q.send(JSON.stringify({ type: 'load_older', before_seq: before, limit: 150 }))
    const frames = await q.until((f) => f.type === 'page_complete')
    return { entries: frames.filter((f) => f.type === 'entry').map((f) => f.entry), done: frames.at(-1) }
  }
  return { hello, pageUp }
}

test('the page above a page up is read ahead, and the next page up is served from it as the file gives it', async () => {
  const h = claudeHome('cc-long')
  cleanups.push(() => h.cleanup())
  const b = await bridgeOn(h)
  const c = b.app.decorator.counters.jsonl
  const s = await open(b)
  expect(s.hello.total).toBeGreaterThan(450) // three pages and more: the newest, one up, one read ahead
  const first = await s.pageUp(s.hello.oldest_loaded_seq)
  expect(first.entries.length).toBe(150)
  await waitFor(() => c.prefetches === 1 || undefined, 5000, 'the page above read ahead')
  const before = { reads: c.reads, hits: c.recentHits }
  const second = await s.pageUp(first.done.oldest_loaded_seq)
  // read from memory: every read of it (one per chunk of the page) was a hit, and it was read ahead in turn
  expect(c.reads - before.reads).toBeGreaterThan(0)
  expect(c.recentHits - before.hits).toBe(c.reads - before.reads)
  await waitFor(() => c.prefetches === 2 || undefined, 5000, 'the next page above read ahead')
  // the same entries a bridge that read nothing ahead gives for that range
  const fresh = await open(await bridgeOn(h))
  const again = await fresh.pageUp(first.done.oldest_loaded_seq)
  expect(second.entries).toEqual(again.entries)
  expect(second.done).toEqual(again.done)
})
