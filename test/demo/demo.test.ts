// gothalo --demo in-process: the deps built the way main.ts builds them in demo
// mode (the herdr stand-in is src/demo/fake-herdr-main.ts run by this Bun, homes from
// the demo's env), the app on port 0. Every endpoint answers from the bundled
// samples; approving the blocked pane works; the live tail grows.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createApp } from '../../src/app'
import { silentLogger } from '../../src/server/log'
import { createAuthStore } from '../../src/auth/store'
import type { AuthStore } from '../../src/auth/types'
import { agentHomes } from '../../src/cli/config'
import { DEMO_PANES, moveHome } from '../../src/demo/data'
import { prepareDemo, type Demo } from '../../src/demo/demo'
import type { FakeState } from '../../src/demo/fake-herdr'
import { SAMPLE_FILES } from '../../src/demo/samples/index'
import { createHerdrClient } from '../../src/herdr/client'
import { FrameQueue, ROOT, tempDir, waitFor } from '../support/harness'

const TOKEN = 'demo-test-admin'
const FAST = { tailPollMs: 50, sessionPollMs: 200, rosterPollMs: 200 }
const SUBAGENTS_SID = '31768c85-8856-4ba3-9323-9014ac9e2d13'

let demo: Demo
let auth: AuthStore
let app: ReturnType<typeof createApp>
let base: string
let stopSocket: (() => Promise<void>) | undefined
const sockets: FrameQueue[] = []

beforeAll(async () => {
  demo = await prepareDemo()
  stopSocket = await demo.serveSocket()
  const env = { ...process.env, ...demo.env }
  auth = createAuthStore({ dbPath: join(tempDir(), 'gothalo.db'), adminToken: TOKEN })
  app = createApp({
    herdr: createHerdrClient({ bin: process.execPath, argvPrefix: [join(ROOT, 'src/demo/fake-herdr-main.ts')], env, timeoutMs: 5000 }),
    auth,
    homes: agentHomes(env),
    version: 'test',
    timing: FAST,
    log: () => {},
    logger: silentLogger,
  }).listen({ port: 0, hostname: '127.0.0.1' })
  base = `http://127.0.0.1:${app.server!.port}`
})

afterAll(async () => {
  for (const q of sockets) q.close()
  await app.stop(true)
  await stopSocket?.()
  auth.close()
  demo.cleanup()
  expect(existsSync(demo.dir)).toBe(false)
})

const get = (path: string) => fetch(base + path, { headers: { authorization: `Bearer ${TOKEN}` } })
const post = (path: string, body: unknown) =>
  fetch(base + path, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
const state = async (pane: string) => (await get(`/agent-state?pane=${encodeURIComponent(pane)}`)).json() as Promise<any>
/** The pane's state_change_seq, as a client learns it (/snapshot). */
const seqOf = async (pane: string): Promise<number> =>
  ((await (await get('/snapshot')).json()) as any).panes.find((p: any) => p.pane_id === pane).state_change_seq

async function openTranscript(pane: string): Promise<{ q: FrameQueue; hello: any; entries: any[] }> {
  const q = new FrameQueue(`${base.replace('http', 'ws')}/agent-transcript?pane=${encodeURIComponent(pane)}&token=${TOKEN}`)
  sockets.push(q)
  await q.opened
  const hello = await q.next()
  const frames = await q.until((f) => f.type === 'backlog_complete')
  return { q, hello, entries: frames.slice(0, -1).map((f) => f.entry) }
}

describe('the demo dir', () => {
  test('the embedded samples stay under 2 MB', () => {
    const total = SAMPLE_FILES.reduce((n, [, path]) => n + statSync(path).size, 0)
    expect(total).toBeGreaterThan(100_000)
    expect(total).toBeLessThan(2 * 1024 * 1024)
  })

  test("every sample is written out as recorded but for its home, moved into the demo's; every screen the state names exists", () => {
    const home = join(demo.dir, 'home')
    for (const [rel, path] of SAMPLE_FILES) expect(readFileSync(join(demo.dir, moveHome(rel, home)), 'utf8')).toBe(moveHome(readFileSync(path, 'utf8'), home))
    // no recorded path is left to point outside the demo
    for (const [rel] of SAMPLE_FILES) expect(readFileSync(join(demo.dir, moveHome(rel, home)), 'utf8')).not.toContain('/home/me/')
    const s: FakeState = JSON.parse(readFileSync(demo.env.FAKE_HERDR_STATE, 'utf8'))
    const named = s.panes.flatMap((p) => [p.screen_file, p.ansi_file, p.recent_file]).filter((f): f is string => !!f)
    expect(named.length).toBe(12)
    for (const f of named) expect(statSync(join(demo.dir, f)).size).toBeGreaterThan(500)
  })

  test('the env points every agent home inside the demo dir', () => {
    const homes = agentHomes(demo.env)
    for (const h of Object.values(homes)) expect(h.startsWith(demo.dir + '/')).toBe(true)
    expect(existsSync(join(homes.claudeDir, 'projects', moveHome('-home-me-cc-subagents-proj', homes.home), `${SUBAGENTS_SID}.jsonl`))).toBe(true)
  })

  test('"New agent" has recent projects: the sample sessions lie inside the project root (the demo\'s home)', async () => {
    const res = await get('/projects')
    expect(res.status).toBe(200)
    const body = (await res.json()) as { projects: { path: string; sessions: { agent_kind: string }[] }[] }
    const home = join(demo.dir, 'home')
    expect(body.projects.map((p) => p.path).sort()).toEqual(
      ['cc-subagents/proj', 'cc-tools-mix/proj', 'cc-working/proj', 'pi-basic/proj'].map((d) => join(home, d)),
    )
    const kinds = body.projects.flatMap((p) => p.sessions.map((s) => s.agent_kind)).sort()
    expect(kinds).toEqual(['claude', 'claude', 'claude', 'pi'])
  })
})

describe('the demo through the app', () => {
  test('/snapshot lists the five demo panes with their kinds, statuses and the subagent count', async () => {
    const res = await get('/snapshot')
    expect(res.status).toBe(200)
    const body = (await res.json()) as any
    const rows = body.panes.map((p: any) => [p.pane_id, p.agent_kind ?? null, p.agent_status, p.workspace_label])
    expect(rows).toEqual([
      [DEMO_PANES.working, 'claude', 'working', 'demo'],
      [DEMO_PANES.blocked, 'claude', 'blocked', 'demo'],
      [DEMO_PANES.done, 'claude', 'done', 'demo'],
      [DEMO_PANES.pi, 'pi', 'idle', 'demo'],
      [DEMO_PANES.shell, null, 'unknown', 'demo'],
    ])
    expect(body.panes[0].subagents.total).toBe(5)
    expect(body.herdr).toEqual({ version: '0.8.2', protocol: 20 })
  })

  test('/agent-state: the blocked pane is blocked on the Bash prompt with its options; pi and done panes have headlines', async () => {
    const blocked = await state(DEMO_PANES.blocked)
    expect(blocked.agent_status).toBe('blocked')
    expect(blocked.blocked.question).toBe('Do you want to proceed?')
    expect(blocked.blocked.options.map((o: any) => o.label)).toEqual(['Yes', 'Yes, and don’t ask again for: exit 1', 'No'])
    const pi = await state(DEMO_PANES.pi)
    expect(pi.agent_kind).toBe('pi')
    expect(pi.headline).toContain('All done')
    const done = await state(DEMO_PANES.done)
    expect(done.agent_status).toBe('done')
    expect(done.headline.length).toBeGreaterThan(5)
  })

  test('the transcript socket streams the sample sessions (Claude with its roster, pi)', async () => {
    const { hello, entries } = await openTranscript(DEMO_PANES.working)
    expect(hello.session_id).toBe(SUBAGENTS_SID)
    expect(hello.subagents.length).toBe(5)
    expect(entries.length).toBe(hello.backlog_count)
    expect(entries.length).toBeGreaterThan(10)
    expect(entries.some((e) => e.kind === 'message' && e.role === 'user')).toBe(true)
    const pi = await openTranscript(DEMO_PANES.pi)
    expect(pi.hello.agent_kind).toBe('pi')
    expect(pi.entries.length).toBeGreaterThan(3)
    const mix = await openTranscript(DEMO_PANES.blocked)
    expect(mix.hello.session_id).toBe('7444533a-645f-44b8-9f33-73e27f0ddc04')
  })

  test('POST /approve on the blocked pane presses Enter: the prompt goes away and it works on', async () => {
    const seq = await seqOf(DEMO_PANES.blocked)
    const res = await post('/approve', { agent: DEMO_PANES.blocked, seq })
    expect(await res.json()).toEqual({ sent: true })
    const after = await state(DEMO_PANES.blocked)
    expect(after.agent_status).toBe('working')
    expect(after.blocked).toBeUndefined()
    expect(await seqOf(DEMO_PANES.blocked)).toBe(seq + 1)
    // no longer blocked: a second approve presses nothing
    expect((await post('/approve', { agent: DEMO_PANES.blocked, seq: seq + 1 })).status).toBe(409)
  })

  test('the blocked pane walks on: fetch prompt, approve, done, then the Bash prompt again', async () => {
    for (let i = 0; i < 4; i++) demo.tick()
    const fetchPrompt = await state(DEMO_PANES.blocked)
    expect(fetchPrompt.agent_status).toBe('blocked')
    expect(fetchPrompt.blocked.question).toBe('Do you want to allow Claude to fetch this content?')
    // typing "1" answers it too (the digit acts, no stray Enter)
    const sent = (await (await post('/send', { pane: DEMO_PANES.blocked, text: '1\n' })).json()) as any
    expect(sent.enter_suppressed).toBe(true)
    expect((await state(DEMO_PANES.blocked)).agent_status).toBe('working')
    for (let i = 0; i < 4; i++) demo.tick()
    expect((await state(DEMO_PANES.blocked)).agent_status).toBe('done')
    for (let i = 0; i < 6; i++) demo.tick()
    const again = await state(DEMO_PANES.blocked)
    expect(again.agent_status).toBe('blocked')
    expect(again.blocked.question).toBe('Do you want to proceed?')
    // /snapshot is the herdr watcher's copy: a change made behind the bridge's back shows within its poll
    const seq = await waitFor(
      async () => {
        const row = ((await (await get('/snapshot')).json()) as any).panes.find((p: any) => p.pane_id === DEMO_PANES.blocked)
        return row.agent_status === 'blocked' && row.state_change_seq
      },
      5000,
      '/snapshot to show the new prompt',
    )
    expect((await post('/approve', { agent: DEMO_PANES.blocked, seq })).status).toBe(200)
  })

  test('/events shows the demo live: the ticker moves the blocked pane on and the frames follow', async () => {
    const q = new FrameQueue(`${base.replace('http', 'ws')}/events?token=${TOKEN}`)
    await q.opened
    const hello = await q.next()
    expect(hello).toMatchObject({ type: 'hello', resume: 'new' })
    expect(hello.panes.map((r: any) => r.pane_id)).toEqual(Object.values(DEMO_PANES))
    const before = hello.panes.find((r: any) => r.pane_id === DEMO_PANES.blocked).agent_status
    for (let i = 0; i < 4; i++) demo.tick()
    const moved = await q.until((f) => f.type === 'pane' && f.pane.pane_id === DEMO_PANES.blocked && f.pane.agent_status !== before, 8000)
    expect(moved.at(-1).seq).toBeGreaterThan(hello.seq)
    q.close()
  })

  test('the live tail grows: the ticker appends re-stamped lines that arrive as live entries', async () => {
    const { q } = await openTranscript(DEMO_PANES.working)
    const sizeBefore = statSync(demo.liveSession).size
    const stop = demo.startLive(100)
    try {
      const live = await q.until((f) => f.type === 'entry' && f.live && f.entry.kind === 'tool_call', 8000)
      const call = live[live.length - 1].entry
      expect(call.tool.name).toBe('Bash')
      expect(Date.now() - Date.parse(call.ts)).toBeLessThan(10_000)
      const result = await q.until((f) => f.type === 'entry' && f.live && f.entry.kind === 'tool_result', 8000)
      expect(call.tool.id).toMatch(/^toolu_demo\d+$/)
      expect(result[result.length - 1].entry.result.for_id).toBe(call.tool.id)
    } finally {
      stop()
    }
    expect(statSync(demo.liveSession).size).toBeGreaterThan(sizeBefore)
  })

  test('a garbled state file does not break a tick', () => {
    const path = demo.env.FAKE_HERDR_STATE
    const saved = readFileSync(path)
    writeFileSync(path, '{not json')
    expect(() => demo.tick()).not.toThrow()
    expect(readFileSync(path, 'utf8')).toBe('{not json')
    writeFileSync(path, saved)
  })
})
