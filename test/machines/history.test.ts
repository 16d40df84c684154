// Another machine's past conversations through the home bridge (docs/bridge.md,
// "Several machines" and "Every past conversation"): GET /sessions and GET /search
// with `?machine=LABEL` answer as that machine does, its live panes named
// LABEL/PANE; WS /agent-transcript?session=KIND:ID&machine=LABEL relays its
// session (with &around= and load_newer) as its own socket gives it; the refusals.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { ADMIN, FrameQueue, WS_HANDSHAKE, claudePane, waitFor, type Bridge } from '../support/harness'
import { agentPane, FAST, readOpening } from '../support/transcript-socket'
import { historyBridge, historyHome, type HistoryHome } from '../support/history-home'
import { addMachine, pairDevice, startHome, type Home } from './support'

let home: Home
let laptop: Bridge
let h: HistoryHome
let laptopStopped = false
const queues: FrameQueue[] = []

beforeAll(async () => {
  h = historyHome()
  laptop = await historyBridge(h, { timing: FAST, state: { panes: [agentPane('pi', h.dirs.pi, { kind: 'path', value: h.files.pi }, 'w1:p3')] } }, 100)
  // the home has sessions of its own: none of them is the laptop's
  home = await startHome([claudePane({ pane_id: 'w1:p1' })])
  await addMachine(home, 'laptop', laptop)
  await waitFor(async () => (await home.json('/machines')).machines[1]?.state === 'online', 5000, 'online')
})
afterAll(async () => {
  for (const q of queues) q.close()
  await home?.stop()
  if (!laptopStopped) await laptop?.stop()
})

const key = (r: { agent_kind: string; session_id: string }) => `${r.agent_kind}:${r.session_id}`
/** the laptop's own answer with its panes named as the home names them */
const qualified = <T extends { pane_id?: string }>(rows: T[]) => rows.map((r) => (r.pane_id ? { ...r, pane_id: `laptop/${r.pane_id}` } : r))

test("GET /sessions?machine=laptop is the laptop's list, its live pane named laptop/PANE; without it, the home's own", async () => {
  const direct = await laptop.json('/sessions?limit=200')
  const relayed = await home.json('/sessions?limit=200&machine=laptop')
  expect(relayed.sessions).toEqual(qualified(direct.sessions))
  expect(relayed.sessions.find((s: { session_id: string }) => s.session_id === h.ids.pi).pane_id).toBe('laptop/w1:p3')
  // paging and filters pass through
  const codex = (await home.json('/sessions?kind=codex&limit=1&machine=laptop')) as { sessions: { agent_kind: string; session_id: string }[]; next: string }
  const rest = await home.json(`/sessions?kind=codex&limit=1&before=${encodeURIComponent(codex.next)}&machine=laptop`)
  expect([...codex.sessions, ...rest.sessions].map(key).sort()).toEqual(h.ids.codex.map((id) => `codex:${id}`).sort())
  expect((await home.json('/sessions?limit=200')).sessions.some((s: { session_id: string }) => s.session_id === h.ids.pi)).toBe(false)
  expect((await home.json('/sessions?limit=200&machine=local')).sessions).toEqual((await home.json('/sessions?limit=200')).sessions)
})

test("GET /search?machine=laptop searches the laptop's index; a hit opens through the home at its entry", async () => {
  const direct = await laptop.json('/search?q=quick')
  expect(direct.results.length).toBeGreaterThan(0)
  const relayed = await home.json('/search?q=quick&machine=laptop')
  expect(relayed.results).toEqual(qualified(direct.results))
  expect(relayed.indexed).toEqual(direct.indexed)
  const hit = relayed.results.find((r: { agent_kind: string }) => r.agent_kind === 'pi') ?? relayed.results[0]
  // the home's own bridge has no search index here: it answers 503, the laptop's search is asked by name
  expect((await home.get('/search?q=quick')).status).toBe(503)

  const ref = encodeURIComponent(key(hit))
  const viaHome = new FrameQueue(`${home.wsBase}/agent-transcript?session=${ref}&around=${hit.seq}&machine=laptop&token=${ADMIN}`)
  const atLaptop = new FrameQueue(`${laptop.wsBase}/agent-transcript?session=${ref}&around=${hit.seq}&token=${ADMIN}`)
  queues.push(viaHome, atLaptop)
  const [a, b] = await Promise.all([readOpening(atLaptop), readOpening(viaHome)])
  expect(b.hello).toEqual(a.hello)
  expect(b.entries).toEqual(a.entries)
  expect(b.entries[0].seq).toBe(hit.seq)
})

test('refusals: no such machine 404, a token without read 403, a session the laptop lacks 404, a bad ref 400, an offline machine 503', async () => {
  const terminalOnly = await pairDevice(home, 'Terminal only', ['terminal'])
  for (const path of ['/sessions?', '/search?q=quick&']) {
    const nope = await home.get(`${path}machine=nope`)
    expect([nope.status, await nope.text()]).toEqual([404, 'no such machine'])
    const r403 = await home.get(`${path}machine=laptop`, terminalOnly.token)
    expect([r403.status, await r403.text()]).toEqual([403, 'forbidden: needs scope read'])
  }
  const upgrade = async (query: string, token = ADMIN) => {
    const r = await fetch(`${home.base}/agent-transcript?${query}`, { headers: { ...WS_HANDSHAKE, authorization: `Bearer ${token}` } })
    return [r.status, await r.text()]
  }
  expect(await upgrade(`session=pi:${h.ids.pi}&machine=nope`)).toEqual([404, 'no such machine'])
  expect(await upgrade(`session=pi:${h.ids.pi}&machine=laptop`, terminalOnly.token)).toEqual([403, 'forbidden: needs scope read'])
  expect(await upgrade('session=pi:01a30000-0000-7000-8000-00000000dead&machine=laptop')).toEqual([404, 'no such session'])
  expect(await upgrade('session=pi&machine=laptop')).toEqual([400, 'want ?session=<kind>:<session_id>'])
  expect(await upgrade(`session=pi:${h.ids.pi}&around=x&machine=laptop`)).toEqual([400, 'around: an entry seq, 1 or more'])

  laptopStopped = true
  await laptop.stop()
  await waitFor(async () => (await home.json('/machines')).machines[1].state !== 'online', 5000, 'offline')
  const off = await home.get('/sessions?machine=laptop')
  expect([off.status, await off.text()]).toEqual([503, 'machine laptop is offline'])
  expect(await upgrade(`session=pi:${h.ids.pi}&machine=laptop`)).toEqual([503, 'machine laptop is offline'])
})
