// POST /agent-start at its edges (docs/bridge.md "Starting, stopping and resuming
// agents"): what real use brings that a smooth start hides. The agent that turns to a
// dialog between herdr's "ready" and the first prompt, and a first prompt of wide
// characters that /send would take.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import type { HerdrClient } from '../../src/herdr/client'
import { startBridge, tempDir, waitFor, type Bridge } from '../support/harness'

let b: Bridge
let proj: string
/** the agents to turn blocked right after herdr reported them ready */
const blockAfterReady = new Set<string>()
/** the agents to exit right after herdr reported them ready (their pane a shell again) */
const exitAfterReady = new Set<string>()

beforeAll(async () => {
  const home = tempDir('gothalo-start-edges-')
  proj = join(home, 'proj')
  mkdirSync(proj)
  b = await startBridge({
    herdrSocket: true,
    state: { panes: [] },
    deps: { projectRoots: [home], agentInstalled: () => true },
    // herdr's own state moving on between two calls of the bridge (a dialog appears)
    wrapHerdr: (inner): HerdrClient => ({
      ...inner,
      withSignal: undefined,
      async agentStart(o) {
        const a = await inner.agentStart(o)
        if (blockAfterReady.has(o.name))
          b.updatePane(o.pane, (p) => {
            p.agent!.agent_status = 'blocked'
          })
        if (exitAfterReady.has(o.name))
          b.updatePane(o.pane, (p) => {
            p.agent = undefined
          })
        return a
      },
    }),
  })
})
afterAll(() => b?.stop())

const prompts = (name: string) => b.calls().filter((c) => c[0] === 'agent' && c[1] === 'prompt' && c[2] === name)

describe('POST /agent-start, the first prompt', () => {
  test("a prompt /send would take (4096 characters, each beyond UTF-16's first plane) is taken here too", async () => {
    const text = '🦀'.repeat(4096)
    const sent = await b.post('/send', { pane: 'w9:p9', text })
    // /send refuses it for its pane, not for its text
    expect([sent.status, await sent.text()]).toEqual([404, 'no such pane'])
    const r = await b.post('/agent-start', { kind: 'claude', cwd: proj, prompt: text, name: 'wide' })
    expect(r.status).toBe(201)
    expect(prompts('wide')).toEqual([['agent', 'prompt', 'wide', text]])
    // one more character is too long, in /send's words
    const over = await b.post('/agent-start', { kind: 'claude', cwd: proj, prompt: 'a'.repeat(4097), name: 'wider' })
    expect([over.status, await over.text()]).toEqual([400, 'prompt: text longer than 4096 characters'])
  })

  test('an agent showing a dialog right after it was ready: 201 blocked, its pane kept, the prompt sent once it is ready', async () => {
    blockAfterReady.add('late')
    const r = await b.post('/agent-start', { kind: 'claude', cwd: proj, prompt: 'after the dialog', name: 'late' })
    expect(r.status).toBe(201)
    const body = (await r.json()) as { pane_id: string; name: string; agent_status?: string }
    expect(body).toMatchObject({ name: 'late', agent_status: 'blocked' })
    expect(b.state().panes.some((p) => p.pane_id === body.pane_id)).toBe(true)
    // the phone answers the dialog
    b.updatePane(body.pane_id, (p) => {
      p.agent!.agent_status = 'idle'
    })
    await waitFor(() => prompts('late').length > 0, 10_000, 'the prompt after the dialog')
    expect(prompts('late').at(-1)).toEqual(['agent', 'prompt', 'late', 'after the dialog'])
  })

  test('an agent gone before its prompt: 502 naming the pane (its row too), which /agent-stop then closes', async () => {
    exitAfterReady.add('brief')
    const r = await b.post('/agent-start', { kind: 'claude', cwd: proj, prompt: 'too late', name: 'brief' })
    const text = await r.text()
    expect(r.status).toBe(502)
    const pane = /in pane (\S+) but its prompt was not sent/.exec(text)?.[1]
    expect(pane).toBeDefined()
    const rows = ((await b.json('/audit?limit=5')) as { rows: { action: string; status: number; pane?: string }[] }).rows
    expect(rows.find((x) => x.action === 'agent.start')).toMatchObject({ status: 502, pane })
    const stop = await b.post('/agent-stop', { pane })
    expect([stop.status, await stop.json()]).toEqual([200, { stopped: true }])
    expect(b.state().panes.some((p) => p.pane_id === pane)).toBe(false)
  })
})

describe('POST /agent-start, two at once', () => {
  test('two starts in a directory no workspace is in: one workspace, a tab each', async () => {
    const dir = join(dirname(proj), 'twins')
    mkdirSync(dir)
    const [x, y] = await Promise.all([
      b.post('/agent-start', { kind: 'claude', cwd: dir, name: 'twin-a' }),
      b.post('/agent-start', { kind: 'codex', cwd: dir, name: 'twin-b' }),
    ])
    expect([x.status, y.status]).toEqual([201, 201])
    const panes = await Promise.all([x.json(), y.json()]).then((r) => r.map((p) => (p as { pane_id: string }).pane_id))
    const workspaces = new Set(panes.map((id) => id.split(':')[0]))
    expect(workspaces.size).toBe(1)
    expect(b.calls().filter((c) => c[0] === 'workspace' && c[1] === 'create' && c[3] === dir).length).toBe(1)
  })
})
