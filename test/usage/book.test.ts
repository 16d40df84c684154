// The rows' context figure: never waited for, read behind at most once per
// freshMs a pane, started over when the pane's session changes, and a failed
// read costs only a log line.
import { expect, test } from 'bun:test'
import type { AgentInfo } from '../../src/herdr/types'
import { UsageBook } from '../../src/usage/book'
import type { Usage } from '../../src/usage/tally'
import { fakeAgent } from '../support/agent'

const agent = (session: string): AgentInfo =>
  fakeAgent('codex', 'working', { pane_id: 'w1:p1', agent_session: { agent: 'codex', kind: 'id', source: 'herdr:codex', value: session } })
const usage = (pct: number): Usage => ({
  pane_id: 'w1:p1',
  agent_kind: 'codex',
  session_id: 's',
  context: { used_tokens: pct, window_tokens: 100, pct },
  as_of: '2026-12-02T16:00:00.000Z',
})

test('the figure last read, never waited for; one read per freshMs; a new session starts with none', async () => {
  let now = 0
  let reads = 0
  let pct = 10
  let release = () => {}
  const book = new UsageBook(
    () => {
      reads++
      return new Promise<Usage>((r) => {
        release = () => r(usage(pct))
      })
    },
    () => {},
    1000,
    () => now,
  )
  expect(book.contextPct(agent('a'))).toBeUndefined() // asked: the read starts behind
  expect(reads).toBe(1)
  release()
  await book.settled()
  expect(book.contextPct(agent('a'))).toBe(10) // fresh: not read again
  expect(reads).toBe(1)
  pct = 55
  now = 1000
  expect(book.contextPct(agent('a'))).toBe(10) // stale: the old figure, a read behind
  expect(reads).toBe(2)
  release()
  await book.settled()
  expect(book.contextPct(agent('a'))).toBe(55)
  now = 1100
  expect(book.contextPct(agent('b'))).toBeUndefined() // another session on the pane: no stale figure
  expect(reads).toBe(3)
})

test('a failed read logs and keeps the row', async () => {
  const logs: string[] = []
  const book = new UsageBook(
    () => Promise.reject(new Error('disk gone')),
    (m) => logs.push(m),
    0,
  )
  expect(book.contextPct(agent('a'))).toBeUndefined()
  await book.settled()
  expect(book.contextPct(agent('a'))).toBeUndefined()
  expect(logs).toEqual(['usage of w1:p1: disk gone'])
})
