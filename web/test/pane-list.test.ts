import { expect, test } from 'bun:test'
import { emptyList, fromSnapshot, groupByMachine, paneName, reduceEvents, sinceParam, sortedForList, type PaneRow } from '../src/pane-list'
import { staleNotifications } from '../src/stale-notifications'

const row = (id: string, over: Partial<PaneRow> = {}): PaneRow => ({ pane_id: id, agent_kind: 'claude', agent_status: 'idle', state_change_seq: 1, ...over })

test('hello, pane and pane_removed keep the list and the resume point', () => {
  let s = reduceEvents(emptyList(), { type: 'hello', protocol: 1, epoch: 'E1', seq: 4, resume: 'new', panes: [row('a'), row('b')] })
  expect(sinceParam(s)).toBe('E1:4')
  s = reduceEvents(s, { type: 'pane', seq: 5, pane: row('b', { agent_status: 'working' }) })
  s = reduceEvents(s, { type: 'pane', seq: 6, pane: row('c') })
  s = reduceEvents(s, { type: 'pane_removed', seq: 7, pane_id: 'a' })
  expect(s.panes.map((p) => [p.pane_id, p.agent_status])).toEqual([
    ['b', 'working'],
    ['c', 'idle'],
  ])
  expect(sinceParam(s)).toBe('E1:7')
  // resume "ok" omits panes: the list held stays.
  const resumed = reduceEvents(s, { type: 'hello', protocol: 1, epoch: 'E1', seq: 7, resume: 'ok' })
  expect(resumed.panes).toEqual(s.panes)
})

test('a blocked row keeps its card until the pane moves on', () => {
  const card = { pane_id: 'a', agent_kind: 'claude', agent_status: 'blocked', headline: 'Q?', parsed: true, blocked: { question: 'Q?', options: [] } }
  let s = reduceEvents(emptyList(), { type: 'hello', epoch: 'E', seq: 0, panes: [] })
  s = reduceEvents(s, { type: 'pane', seq: 1, pane: row('a', { agent_status: 'blocked', state_change_seq: 3, card }) })
  s = reduceEvents(s, { type: 'pane', seq: 2, pane: row('a', { agent_status: 'blocked', state_change_seq: 3, title: 't' }) })
  expect(s.panes[0]!.card).toBe(card)
  s = reduceEvents(s, { type: 'pane', seq: 3, pane: row('a', { agent_status: 'working', state_change_seq: 4 }) })
  expect(s.panes[0]!.card).toBeUndefined()
  expect(fromSnapshot(s, { panes: [row('a')] }).panes[0]!.card).toBeUndefined()
  expect(fromSnapshot(s, null)).toBe(s)
})

test('blocked first, then working, done, idle, shells last; herdr order within each', () => {
  const panes = [
    row('1', { agent_status: 'idle' }),
    { pane_id: 'sh' },
    row('2', { agent_status: 'blocked' }),
    row('3', { agent_status: 'working' }),
    row('4', { agent_status: 'blocked' }),
    row('5', { agent_status: 'done' }),
  ]
  expect(sortedForList(panes).map((p) => p.pane_id)).toEqual(['2', '4', '3', '5', '1', 'sh'])
})

test('a pane is named by its label, agent name, then folder', () => {
  expect(paneName({ pane_id: 'w1:p1', label: 'api' })).toBe('api')
  expect(paneName({ pane_id: 'w1:p1', agent_name: 'bob', cwd: '/x/y' })).toBe('bob')
  expect(paneName({ pane_id: 'w1:p1', cwd: '/home/me/proj/' })).toBe('proj')
  expect(paneName({ pane_id: 'w1:p1' })).toBe('w1:p1')
})

test('garbage frames change nothing', () => {
  const s = emptyList()
  for (const f of [null, 1, {}, { type: 'pane' }, { type: 'pane', pane: { id: 1 } }, { type: 'x' }]) expect(reduceEvents(s, f)).toBe(s)
})

test('stale notifications: a pane that moved on, a new dialog (seq), a gone pane, a group none of whose panes waits', () => {
  const panes = [
    row('a', { agent_status: 'blocked', state_change_seq: 4 }),
    row('b', { agent_status: 'working', state_change_seq: 6 }),
    row('c', { agent_status: 'blocked', state_change_seq: 9 }),
    row('d', { agent_status: 'done', state_change_seq: 2 }),
  ]
  const n = (tag: string, data: unknown) => ({ tag, data })
  const shown = [
    n('a', { pane_id: 'a', agent_status: 'blocked', seq: 4 }), // still asks: kept
    n('b', { pane_id: 'b', agent_status: 'blocked', seq: 5 }), // answered: closed
    n('c', { pane_id: 'c', agent_status: 'blocked', seq: 8 }), // a newer dialog: closed
    n('d', { pane_id: 'd', agent_status: 'done', seq: 2 }), // still done: kept
    n('gone', { pane_id: 'gone', agent_status: 'blocked', seq: 1 }), // pane closed: closed
    n('gothalo:blocked', { group: true, panes: [{ pane_id: 'b' }, { pane_id: 'a' }] }), // a still waits: kept
    n('other', null), // not ours to judge
  ]
  expect(staleNotifications(shown, panes)).toEqual(['b', 'c', 'gone'])
  expect(staleNotifications([n('gothalo:blocked', { group: true, panes: [{ pane_id: 'b' }, { pane_id: 'gone' }] })], panes)).toEqual(['gothalo:blocked'])
})

test('machines: the hello lists them, a machine event marks its rows stale (and clears it when back), removal drops it; grouping', () => {
  const local = { id: 'local', label: 'local', state: 'online' as const }
  const laptop = { id: 'laptop', label: 'laptop', state: 'online' as const }
  let s = reduceEvents(emptyList(), {
    type: 'hello',
    epoch: 'e',
    seq: 1,
    panes: [{ pane_id: 'w1:p1' }, { pane_id: 'laptop/w1:p1', machine: 'laptop' }],
    machines: [local, laptop],
  })
  expect(groupByMachine(s.panes, s.machines).map((g) => [g.machine?.id, g.panes.map((p) => p.pane_id)])).toEqual([
    ['local', ['w1:p1']],
    ['laptop', ['laptop/w1:p1']],
  ])
  s = reduceEvents(s, { type: 'machine', seq: 2, machine: { ...laptop, state: 'offline', last_seen: 5 } })
  expect(s.panes.map((p) => p.stale)).toEqual([undefined, true])
  expect(s.machines[1]).toMatchObject({ state: 'offline', last_seen: 5 })
  s = reduceEvents(s, { type: 'machine', seq: 3, machine: laptop })
  expect(s.panes.map((p) => p.stale)).toEqual([undefined, undefined])
  s = reduceEvents(s, { type: 'machine', seq: 4, machine: { id: 'laptop', label: 'laptop', removed: true } })
  expect([s.machines.map((m) => m.id), s.seq]).toEqual([['local'], 4])
  // one machine: one group without a machine (no machine words on screen)
  expect(groupByMachine(s.panes, s.machines)).toEqual([{ panes: s.panes }])
  expect(reduceEvents(s, { type: 'hello', epoch: 'e', seq: 9, panes: [] }).machines).toEqual([])
})
