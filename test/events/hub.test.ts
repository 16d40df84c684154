// The event hub over the one herdr watcher, which tells its listeners only of
// changes: a hub that starts after herdr was read while no one listened (a
// /snapshot), once that read is no longer fresh, must still say hello, with what
// herdr reports now. (Seen: an /events socket that never got its hello.)
import { expect, test } from 'bun:test'
import { EventHub } from '../../src/events/hub'
import { HerdrWatch } from '../../src/herdr/watch'
import type { HerdrClient } from '../../src/herdr/client'
import type { Snapshot } from '../../src/herdr/types'

const snap = (status: string, seq: number): Snapshot => ({
  protocol: 1,
  version: 'test',
  workspaces: [{ workspace_id: 'w1', label: 'demo' }] as Snapshot['workspaces'],
  tabs: [{ tab_id: 'w1:t1', workspace_id: 'w1', label: 'main' }] as Snapshot['tabs'],
  panes: [{ pane_id: 'w1:p1', workspace_id: 'w1', tab_id: 'w1:t1', focused: true, agent_status: status }] as Snapshot['panes'],
  agents: [{ pane_id: 'w1:p1', agent: 'claude', agent_status: status, state_change_seq: seq }] as Snapshot['agents'],
})

async function hubAfterOldRead(now: Snapshot) {
  let current = snap('idle', 2)
  const herdr = { snapshot: async () => current } as unknown as HerdrClient
  const watch = new HerdrWatch(herdr, { pollMs: 20 })
  await watch.snapshot() // a /snapshot read while nobody listens
  current = now
  await Bun.sleep(100) // that read ages past the watcher's freshness window (3 polls)
  expect(watch.live()).toBe(false)
  const hub = new EventHub(watch, { cardFor: async () => undefined, rosterMs: 60_000, log: () => {} })
  const stop = hub.use()
  const ready = await Promise.race([hub.whenReady().then(() => true), Bun.sleep(3000).then(() => false)])
  const rows = hub.current().map((r) => [r.pane_id, r.agent_status, r.state_change_seq])
  stop()
  hub.close()
  return { ready, rows }
}

test('herdr unchanged since a read nobody heard: the hub still gets a read and is ready', async () => {
  expect(await hubAfterOldRead(snap('idle', 2))).toEqual({ ready: true, rows: [['w1:p1', 'idle', 2]] })
})

test('herdr changed since: the hub starts from what herdr reports now, not the old read', async () => {
  expect(await hubAfterOldRead(snap('working', 3))).toEqual({ ready: true, rows: [['w1:p1', 'working', 3]] })
})
