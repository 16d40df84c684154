// The demo behaves like the real programs it stands in for, so what the docs
// say works on it: a digit answers a numbered dialog ("3" goes the "No" way),
// Shift+Tab cycles Claude Code's footer so /agent-mode/cycle is confirmed, text
// sent to a pane shows on its screen, and every sample session grows.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { createApp } from '../../src/app'
import { createAuthStore } from '../../src/auth/store'
import type { AuthStore } from '../../src/auth/types'
import { agentHomes } from '../../src/cli/config'
import { DEMO_PANES, moveHome } from '../../src/demo/data'
import { prepareDemo, type Demo } from '../../src/demo/demo'
import { withTyping, typeInto, CLAUDE_FOOTERS } from '../../src/demo/fake-typing'
import { createHerdrClient, type HerdrClient } from '../../src/herdr/client'
import { silentLogger } from '../../src/server/log'
import { ROOT, tempDir } from '../support/harness'

/** A sample's path in the demo dir: its recorded home moved into the demo's home */
const moved = (rel: string) => moveHome(rel, join(demo.dir, 'home'))

const TOKEN = 'demo-faithful-admin'
let demo: Demo
let auth: AuthStore
let herdr: HerdrClient
let app: ReturnType<typeof createApp>
let base: string
let stopSocket: (() => Promise<void>) | undefined

beforeAll(async () => {
  demo = await prepareDemo()
  stopSocket = await demo.serveSocket() // typed text goes to herdr's socket
  const env = { ...process.env, ...demo.env }
  auth = createAuthStore({ dbPath: join(tempDir(), 'gothalo.db'), adminToken: TOKEN })
  herdr = createHerdrClient({ bin: process.execPath, argvPrefix: [join(ROOT, 'src/demo/fake-herdr-main.ts')], env, timeoutMs: 5000 })
  app = createApp({ herdr, auth, homes: agentHomes(env), version: 'test', log: () => {}, logger: silentLogger }).listen({ port: 0, hostname: '127.0.0.1' })
  base = `http://127.0.0.1:${app.server!.port}`
})
afterAll(async () => {
  await app.stop(true)
  await stopSocket?.()
  auth.close()
  demo.cleanup()
})

const get = async (path: string) => (await fetch(base + path, { headers: { authorization: `Bearer ${TOKEN}` } })).json() as Promise<any>
const post = async (path: string, body: unknown) => {
  const r = await fetch(base + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: r.status, body: (await r.json()) as any }
}
const card = (pane: string) => get(`/agent-state?pane=${pane}`)
const screen = (pane: string) => herdr.paneRead(pane, { source: 'visible' })

describe('the demo reacts to keys like the real programs', () => {
  test('"3\\n" answers the Bash prompt "No": the turn stops and the agent waits (the digit acted, no stray Enter)', async () => {
    const before = await card(DEMO_PANES.blocked)
    expect(before.blocked.options.map((o: any) => o.label)).toEqual(['Yes', 'Yes, and don’t ask again for: exit 1', 'No'])
    const r = await post('/send', { pane: DEMO_PANES.blocked, text: '3\n' })
    expect(r).toEqual({ status: 200, body: { sent: true, enter_suppressed: true } })
    const after = await card(DEMO_PANES.blocked)
    expect(after.agent_status).toBe('idle')
    expect(after.blocked).toBeUndefined()
    expect(await screen(DEMO_PANES.blocked)).toContain('⎿  Interrupted · What should Claude do instead?')
  })

  test('Shift+Tab cycles the footer: /agent-mode/cycle is confirmed, mode after mode, round to the start', async () => {
    const modes: string[] = [(await card(DEMO_PANES.done)).permission_mode]
    for (let i = 0; i < 4; i++) {
      const r = await post('/agent-mode/cycle', { pane: DEMO_PANES.done })
      expect(r.status).toBe(200)
      expect(r.body.confirmed).toBe(true)
      expect(r.body.previous_mode).toBe(modes.at(-1))
      modes.push(r.body.permission_mode)
    }
    expect(modes).toEqual(['bypassPermissions', 'default', 'acceptEdits', 'plan', 'bypassPermissions'])
  })

  test('text sent to the shell shows on its screen; Enter runs it', async () => {
    expect((await post('/send', { pane: DEMO_PANES.shell, text: 'echo hello there' })).status).toBe(200)
    expect((await screen(DEMO_PANES.shell)).trimEnd().split('\n').at(-1)).toBe('me@demo:~/proj$ echo hello there')
    expect((await post('/send', { pane: DEMO_PANES.shell, text: '\n' })).status).toBe(200)
    const rows = (await screen(DEMO_PANES.shell)).trimEnd().split('\n')
    expect(rows.slice(-3)).toEqual(['me@demo:~/proj$ echo hello there', 'hello there', 'me@demo:~/proj$'])
  })

  test('a prompt sent to Claude shows in its composer, then in the conversation; it works, answers, and its session grows', async () => {
    const session = join(demo.dir, moved('claude/projects/-home-me-cc-working-proj/ae22f811-9570-4ffe-b8a7-5db178f36de1.jsonl'))
    const size0 = statSync(session).size
    await post('/send', { pane: DEMO_PANES.done, text: 'tidy the README' })
    expect(await screen(DEMO_PANES.done)).toContain('❯ tidy the README')
    await post('/send', { pane: DEMO_PANES.done, text: '\n' })
    const working = await card(DEMO_PANES.done)
    expect(working.agent_status).toBe('working')
    const rows = (await screen(DEMO_PANES.done)).split('\n')
    expect(rows).toContain('❯ tidy the README') // now in the conversation
    expect(rows.filter((r) => r.trim() === '❯').length).toBe(1) // and the composer is empty
    for (let i = 0; i < 3; i++) demo.tick()
    const answered = await card(DEMO_PANES.done)
    expect(answered.agent_status).toBe('done')
    expect(answered.headline).toContain('tidy the README')
    const added = readFileSync(session)
      .subarray(size0)
      .toString('utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(added.map((r) => [r.type, typeof r.message.content === 'string' ? r.message.content : r.message.content[0].text])).toEqual([
      ['user', 'tidy the README'],
      ['assistant', '(demo) Noted: “tidy the README”. This is the gothalo demo, so nothing ran.'],
    ])
  })

  test('every sample session grows now and then', async () => {
    const sessions = {
      working: join(demo.dir, moved('claude/projects/-home-me-cc-subagents-proj/31768c85-8856-4ba3-9323-9014ac9e2d13.jsonl')),
      blocked: join(demo.dir, moved('claude/projects/-home-me-cc-tools-mix-proj/7444533a-645f-44b8-9f33-73e27f0ddc04.jsonl')),
      pi: join(demo.dir, moved('pi/sessions/--home-me-pi-basic-proj--/2026-12-02T10-04-19-969Z_01a23636-547f-7174-a957-02ede8b4c7f6.jsonl')),
    }
    const sizes = Object.fromEntries(Object.entries(sessions).map(([k, f]) => [k, statSync(f).size]))
    // the blocked pane gets its prompt back and is approved: its tool runs
    for (let i = 0; i < 8 && (await card(DEMO_PANES.blocked)).agent_status !== 'blocked'; i++) demo.tick()
    const seq = (await get('/snapshot')).panes.find((p: any) => p.pane_id === DEMO_PANES.blocked).state_change_seq
    expect((await post('/approve', { agent: DEMO_PANES.blocked, seq })).body).toEqual({ sent: true })
    for (let i = 0; i < 8; i++) demo.tick()
    for (const [k, f] of Object.entries(sessions)) expect([k, statSync(f).size > sizes[k]]).toEqual([k, true])
    // and what was appended reads as entries, not as parse failures
    const pi = await new Promise<any[]>((resolve) => {
      const frames: any[] = []
      const ws = new WebSocket(`${base.replace('http', 'ws')}/agent-transcript?pane=${DEMO_PANES.pi}&token=${TOKEN}`)
      ws.onmessage = (e) => {
        frames.push(JSON.parse(String(e.data)))
        if (frames.at(-1).type === 'backlog_complete') ws.close(), resolve(frames)
      }
    })
    const texts = pi.filter((f) => f.type === 'entry').map((f) => f.entry)
    expect(texts.some((e) => e.parsed && e.text?.startsWith('(demo) All quiet'))).toBe(true)
  })
})

describe('typing, as a pure function', () => {
  const composer = [
    '● hi',
    '',
    '────────────────────────',
    '❯ ',
    '────────────────────────',
    '  ⏵⏵ bypass permissions on (shift+tab to cycle) · ← for agents',
    '',
  ].join('\n')
  test('composer echo, submit, backspace, and the footer mode', () => {
    let t = typeInto({ echo: 'composer', mode_cycle: [CLAUDE_FOOTERS.default, CLAUDE_FOOTERS.plan], mode: 0 }, { text: 'abc' }, composer)!.typing
    t = typeInto(t, { keys: ['backspace'] }, composer)!.typing
    expect(withTyping(composer, t).split('\n')).toContain('❯ ab')
    expect(withTyping(composer, t).split('\n')).toContain(CLAUDE_FOOTERS.default)
    const sub = typeInto(t, { keys: ['enter', 'shift+tab'] }, composer)!
    expect(sub.submittedPrompt).toBe('ab')
    expect(withTyping(composer, sub.typing)).toBe(
      ['● hi', '', '❯ ab', '', '────────────────────────', '❯ ', '────────────────────────', CLAUDE_FOOTERS.plan, ''].join('\n'),
    )
  })
  test('a pane that does not echo is left alone', () => {
    expect(typeInto({}, { text: 'x' }, composer)).toBeUndefined()
    expect(withTyping(composer, {})).toBe(composer)
  })
})
