// The event hub over a watcher that reports only changes: a hub that starts
// after the watcher already read herdr (its first read finished while no one
// listened, or a closing socket stopped the hub) must still say hello.
import { expect, test } from 'bun:test'
import { EventHub } from '../../src/events/hub'
import type { HerdrWatch } from '../../src/herdr/watch'
import type { Snapshot } from '../../src/herdr/types'

const snap: Snapshot = {
  protocol: 1,
  version: 'test',
  workspaces: [{ workspace_id: 'w1', label: 'demo' }] as Snapshot['workspaces'],
  tabs: [{ tab_id: 'w1:t1', workspace_id: 'w1', label: 'main' }] as Snapshot['tabs'],
  panes: [{ pane_id: 'w1:p1', workspace_id: 'w1', tab_id: 'w1:t1', focused: true, agent_status: 'idle' }] as Snapshot['panes'],
  agents: [{ pane_id: 'w1:p1', agent: 'claude', agent_status: 'idle', state_change_seq: 2 }] as Snapshot['agents'],
}

/** A watcher that already holds a read, is between polls (not live), and will not report it again (unchanged). */
const quietWatcher = (s: Snapshot | undefined) =>
  ({
    use: () => () => {},
    latest: () => s,
    live: () => false,
  }) as unknown as HerdrWatch

test('a hub started after the watcher read herdr is ready at once, with that read as its rows', async () => {
  const hub = new EventHub(quietWatcher(snap), { cardFor: async () => undefined, rosterMs: 60_000, log: () => {} })
  const stop = hub.use()
  try {
    const ready = await Promise.race([hub.whenReady().then(() => true), Bun.sleep(2000).then(() => false)])
    expect(ready).toBe(true)
    expect(hub.current().map((r) => [r.pane_id, r.agent_status, r.state_change_seq])).toEqual([['w1:p1', 'idle', 2]])
    expect(hub.seq).toBe(0)
  } finally {
    stop()
    hub.close()
  }
})

test('a hub with no read yet waits for the watcher', async () => {
  const hub = new EventHub(quietWatcher(undefined), { cardFor: async () => undefined, rosterMs: 60_000, log: () => {} })
  const stop = hub.use()
  try {
    expect(hub.ready).toBe(false)
  } finally {
    stop()
    hub.close()
  }
})
