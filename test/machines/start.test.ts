// /projects and /dirs with ?machine=LABEL, /agent-start with "machine": the other
// machine's bridge answers; the started pane comes back as LABEL/PANE and is then
// reachable through the home like any other remote pane.
import { afterEach, expect, test } from 'bun:test'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { ADMIN, WS_HANDSHAKE, claudePane, startBridge, tempDir, waitFor } from '../support/harness'
import { addMachine, pairDevice, startHome } from './support'

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

test('projects, dirs and a start on another machine; unknown machine 404; scopes checked at home', async () => {
  const home = await startHome([claudePane({ pane_id: 'w1:p1' })])
  cleanups.push(() => home.stop())
  const root = tempDir('gothalo-laptop-root-')
  mkdirSync(join(root, 'app'))
  const laptop = await startBridge({
    herdrSocket: true,
    state: { panes: [{ pane_id: 'w1:p1', workspace_id: 'w1', tab_id: 'w1:t1', cwd: root, screen: '$ ' }] },
    deps: { projectRoots: [root], agentInstalled: () => true },
  })
  cleanups.push(() => laptop.stop())
  await addMachine(home, 'laptop', laptop)
  await waitFor(async () => (await home.json('/machines')).machines[1]?.state === 'online', 5000, 'online')
  const phone = await pairDevice(home, 'Pixel 9')
  const viewer = await pairDevice(home, 'Viewer', ['read'])

  expect(await (await home.get('/dirs?machine=laptop', phone.token)).text()).toBe(await (await laptop.get('/dirs')).text())
  expect(await home.json(`/dirs?machine=laptop&path=${encodeURIComponent(join(root, 'app'))}`, phone.token)).toEqual(
    await laptop.json(`/dirs?path=${encodeURIComponent(join(root, 'app'))}`),
  )
  expect(await home.json('/projects?machine=laptop', phone.token)).toEqual(await laptop.json('/projects'))
  // this machine's, by name or by default
  expect(await home.json('/dirs?machine=local', phone.token)).toEqual(await home.json('/dirs', phone.token))
  const nope = await home.get('/dirs?machine=desk', phone.token)
  expect([nope.status, await nope.text()]).toEqual([404, 'no such machine'])

  const denied = await home.post('/agent-start', { kind: 'claude', cwd: join(root, 'app'), machine: 'laptop' }, viewer.token)
  expect([denied.status, await denied.text()]).toEqual([403, 'forbidden: needs scope start'])
  const r = await home.post('/agent-start', { kind: 'claude', cwd: join(root, 'app'), machine: 'laptop', name: 'far' }, phone.token)
  expect(r.status).toBe(201)
  const started = (await r.json()) as { pane_id: string; name: string }
  expect(started.pane_id).toMatch(/^laptop\/w\d+:p\d+$/)
  expect(started.name).toBe('far')
  // it is the remote's pane, and the home's audit row names it as the phone saw it
  const plain = started.pane_id.slice('laptop/'.length)
  expect(laptop.state().panes.some((p) => p.pane_id === plain)).toBe(true)
  expect((await home.json('/audit')).rows.find((x: { action: string }) => x.action === 'agent.start')).toMatchObject({
    device_id: phone.device_id,
    status: 201,
  })
  expect((await laptop.json('/audit')).rows.find((x: { action: string }) => x.action === 'agent.start').detail.via).toBe('Pixel 9')
  // and it appears in the merged list
  await waitFor(async () => (await home.json('/snapshot')).panes.some((x: { pane_id: string }) => x.pane_id === started.pane_id), 5000, 'the new pane')
})

test('a label this bridge does not know while it merges no machine (none added, or the last one removed): 404, never this machine doing it', async () => {
  const root = tempDir('gothalo-home-root-')
  mkdirSync(join(root, 'app'))
  const home = await startHome([claudePane({ pane_id: 'w1:p1' })], { deps: { projectRoots: [root], agentInstalled: () => true } })
  cleanups.push(() => home.stop())
  const before = home.state().panes.length
  // the phone's start form still names the laptop: the start must not happen here instead
  const r = await home.post('/agent-start', { kind: 'claude', cwd: join(root, 'app'), machine: 'laptop' })
  expect([r.status, await r.text()]).toEqual([404, 'no such machine'])
  expect(home.state().panes.length).toBe(before)
  for (const path of ['/sessions?machine=laptop', '/search?machine=laptop&q=secret', '/projects?machine=laptop', '/dirs?machine=laptop']) {
    const g = await home.get(path)
    expect({ path, answer: [g.status, await g.text()] }).toEqual({ path, answer: [404, 'no such machine'] })
  }
  // a past session named for the laptop: not this machine's session of the same id
  const ws = await fetch(`${home.base}/agent-transcript?session=claude:x&machine=laptop&token=${ADMIN}`, { headers: WS_HANDSHAKE })
  expect([ws.status, await ws.text()]).toEqual([404, 'no such machine'])
  // this machine by name still answers
  expect((await home.get('/dirs?machine=local')).status).toBe(200)
})
