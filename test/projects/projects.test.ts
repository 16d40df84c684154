// Starting, stopping and resuming agents (docs/bridge.md): the project roots,
// GET /dirs, GET /projects from every agent's own store (real sessions from the
// corpus, moved under a temp home), POST /agent-start and /agent-stop against the
// fake herdr, and the bad input each refuses.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FakePane } from '../../src/demo/fake-herdr'
import { ROOT, startBridge, tempDir, waitFor, type Bridge } from '../support/harness'
import { historyHome } from '../support/history-home'
import { DEFAULT_SCOPES } from '../../src/auth/scopes'

const FIX = join(ROOT, 'fixtures')
let b: Bridge
let home: string
/** the project directories, as the sessions recorded them (under the temp home) */
const P = { cc: '', pi: '', codex: '', oc: '' }
const installed = new Set(['claude', 'pi', 'codex', 'opencode'])

beforeAll(async () => {
  // real sessions of all four agents, moved under a temp home (the history tests' home)
  const h = historyHome()
  home = h.home
  const homes = h.homes
  P.cc = h.dirs.claude
  P.pi = h.dirs.pi
  P.codex = h.dirs.codex
  P.oc = h.dirs.opencode
  mkdirSync(join(home, 'cc-tools-mix/proj/.git'), { recursive: true })
  mkdirSync(join(home, '.hidden'), { recursive: true })
  writeFileSync(join(home, 'notes.txt'), 'a file, not a directory')
  const outside = tempDir('gothalo-outside-')
  symlinkSync(outside, join(home, 'way-out'))
  symlinkSync(P.pi, join(home, 'pi-link'))
  b = await startBridge({
    homes,
    herdrSocket: true,
    state: {
      workspaces: [{ workspace_id: 'w1', number: 1, label: 'codex', focused: true, pane_count: 1, tab_count: 1, active_tab_id: 'w1:t1', agent_status: 'idle' }],
      tabs: [{ tab_id: 'w1:t1', workspace_id: 'w1', number: 1, label: '1', focused: true, pane_count: 1, agent_status: 'idle' }],
      panes: [{ pane_id: 'w1:p1', workspace_id: 'w1', tab_id: 'w1:t1', cwd: P.codex, screen: '$ ' }],
      blocked_screen_file: join(FIX, 'screens-bridge/bash-prompt.txt'),
    },
    deps: { projectRoots: [home], agentInstalled: (k) => installed.has(k) },
  })
})
afterAll(() => b?.stop())

const start = (body: unknown) => b.post('/agent-start', body)
const paneOf = (id: string): FakePane | undefined => b.state().panes.find((p) => p.pane_id === id)

describe('GET /dirs', () => {
  test('the roots; a directory inside: sub-directories only, no hidden ones, git marked, links inside kept', async () => {
    expect(await b.json('/dirs')).toEqual({ path: '', entries: [{ name: home, git: false }] })
    const top = (await b.json(`/dirs?path=${encodeURIComponent(home)}`)) as { path: string; parent?: string; entries: { name: string; git: boolean }[] }
    expect(top.path).toBe(home)
    expect(top.parent).toBeUndefined()
    expect(top.entries).toEqual([
      { name: 'cc-tools-mix', git: false },
      { name: 'codex-resume', git: false },
      { name: 'oc', git: false },
      { name: 'pi-basic', git: false },
      { name: 'pi-link', git: false },
    ])
    expect(await b.json(`/dirs?path=${encodeURIComponent(`${home}/cc-tools-mix`)}`)).toEqual({
      path: `${home}/cc-tools-mix`,
      parent: home,
      entries: [{ name: 'proj', git: true }],
    })
  })

  test('outside the roots, up with .., through a link out, a file, relative: 404 no such directory', async () => {
    for (const p of ['/', '/etc', `${home}/..`, `${home}/way-out`, `${home}/notes.txt`, 'cc-tools-mix', `${home}/nope`, '']) {
      const r = await b.get(`/dirs?path=${encodeURIComponent(p)}`)
      expect([p, r.status, await r.text()]).toEqual([p, 404, 'no such directory'])
    }
  })
})

describe('GET /projects', () => {
  test("every kind's sessions, grouped by directory, newest first, titled by the first prompt", async () => {
    const { projects } = (await b.json('/projects')) as {
      projects: {
        path: string
        name: string
        sessions: { agent_kind: string; session_id: string; title: string; last_activity_ts: string; pane_id?: string }[]
      }[]
    }
    const by = Object.fromEntries(projects.map((p) => [p.path, p]))
    expect(Object.keys(by).sort()).toEqual([P.cc, P.codex, P.oc, P.pi].sort())
    expect(by[P.cc]!.name).toBe('proj')
    expect(by[P.cc]!.sessions.map((s) => [s.agent_kind, s.session_id])).toEqual([['claude', '7444533a-645f-44b8-9f33-73e27f0ddc04']])
    expect(by[P.pi]!.sessions.map((s) => [s.agent_kind, s.session_id])).toEqual([['pi', '01a23636-547f-7174-a957-02ede8b4c7f6']])
    expect(by[P.codex]!.sessions.map((s) => s.agent_kind)).toEqual(['codex', 'codex'])
    expect(by[P.oc]!.sessions.map((s) => [s.agent_kind, s.title])).toEqual(expect.arrayContaining([['opencode', 'Opencode demo']]))
    for (const p of projects)
      for (const s of p.sessions) {
        expect(s.title.length).toBeLessThanOrEqual(120)
        expect(s.title).not.toContain('\n')
        expect(Number.isNaN(Date.parse(s.last_activity_ts))).toBe(false)
      }
    // titles are each session's first human prompt, as its transcript shows it first
    for (const [dir, kind] of [
      [P.cc, 'claude'],
      [P.pi, 'pi'],
      [P.codex, 'codex'],
    ] as const) {
      const s = by[dir]!.sessions.find((x) => x.agent_kind === kind)!
      expect(s.title.length).toBeGreaterThan(3)
    }
    const times = projects.map((p) => Date.parse((p as unknown as { last_activity_ts: string }).last_activity_ts))
    expect(times).toEqual([...times].sort((x, y) => y - x))
  })
})

describe('POST /agent-start', () => {
  test('a new workspace after the directory, the agent started by herdr, the prompt sent once it is ready', async () => {
    const r = await start({ kind: 'claude', cwd: P.cc, prompt: 'fix the build', name: 'fixer' })
    expect(r.status).toBe(201)
    const body = (await r.json()) as { pane_id: string; name: string }
    expect(body.name).toBe('fixer')
    const pane = paneOf(body.pane_id)!
    expect(pane).toMatchObject({ cwd: P.cc, started_argv: ['claude'], agent: { agent: 'claude', name: 'fixer' } })
    const calls = b.calls()
    expect(calls.find((c) => c[0] === 'workspace')).toEqual(['workspace', 'create', '--cwd', P.cc, '--no-focus', '--label', 'proj'])
    expect(calls.find((c) => c[0] === 'agent' && c[1] === 'start')).toEqual([
      'agent',
      'start',
      'fixer',
      '--kind',
      'claude',
      '--pane',
      body.pane_id,
      '--timeout',
      '30000',
    ])
    // the prompt went by herdr's socket, never on a command line
    expect(calls.filter((c) => c[1] === 'prompt')).toEqual([['agent', 'prompt', 'fixer', 'fix the build']])
    expect(calls.some((c) => c.join(' ').includes('fix the build') && c[1] !== 'prompt')).toBe(false)
    // it is a pane like any other
    await waitFor(
      async () => ((await b.json('/snapshot')) as { panes: { pane_id: string }[] }).panes.some((p) => p.pane_id === body.pane_id),
      5000,
      'the pane listed',
    )
  })

  test('a directory with a workspace gets a new tab there; each kind resumes by its own option', async () => {
    const { projects } = (await b.json('/projects')) as { projects: { path: string; sessions: { agent_kind: string; session_id: string }[] }[] }
    const idOf = (dir: string, kind: string) => projects.find((p) => p.path === dir)!.sessions.find((s) => s.agent_kind === kind)!.session_id
    const codexId = idOf(P.codex, 'codex')
    const r = await start({ kind: 'codex', cwd: P.codex, resume: codexId })
    expect(r.status).toBe(201)
    const { pane_id } = (await r.json()) as { pane_id: string }
    expect(b.calls().find((c) => c[0] === 'tab')).toEqual([
      'tab',
      'create',
      '--workspace',
      'w1',
      '--cwd',
      P.codex,
      '--no-focus',
      '--label',
      expect.stringMatching(/^codex-[0-9a-f]{4}$/),
    ])
    expect(pane_id.startsWith('w1:')).toBe(true)
    expect(paneOf(pane_id)!.started_argv).toEqual(['codex', 'resume', codexId])

    const piId = idOf(P.pi, 'pi')
    const pi = (await (await start({ kind: 'pi', cwd: P.pi, resume: piId })).json()) as { pane_id: string }
    const piFile = join(home, '.pi/agent/sessions', readdirSync(join(home, '.pi/agent/sessions'))[0]!)
    expect(paneOf(pi.pane_id)!.started_argv).toEqual(['pi', '--session', join(piFile, readdirSync(piFile)[0]!)])
    const ccId = idOf(P.cc, 'claude')
    const cc = (await (await start({ kind: 'claude', cwd: P.cc, resume: ccId })).json()) as { pane_id: string }
    expect(paneOf(cc.pane_id)!.started_argv).toEqual(['claude', '--resume', ccId])
    const ocId = idOf(P.oc, 'opencode')
    const oc = (await (await start({ kind: 'opencode', cwd: P.oc, resume: ocId })).json()) as { pane_id: string }
    expect(paneOf(oc.pane_id)!.started_argv).toEqual(['opencode', '--session', ocId])
    // a live pane now shows that claude session... when herdr reports it (the fake does not): the listing marks it by herdr's reference
  })

  test('a dialog before it is ready: 201 blocked at once; the prompt goes once the agent is ready', async () => {
    b.setState({ ...b.state(), start: { pi: 'blocked' } })
    const r = await start({ kind: 'pi', cwd: P.pi, prompt: 'hello pi', name: 'trusty' })
    expect(r.status).toBe(201)
    const body = (await r.json()) as { pane_id: string; agent_status: string }
    expect(body.agent_status).toBe('blocked')
    expect(b.calls().filter((c) => c[1] === 'prompt' && c[2] === 'trusty').length).toBe(0)
    // the phone answers the dialog; the agent becomes ready
    b.updatePane(body.pane_id, (p) => {
      p.agent!.agent_status = 'idle'
      ;(p.agent as { launch_pending?: boolean }).launch_pending = false
    })
    await waitFor(() => b.calls().some((c) => c[1] === 'prompt' && c[2] === 'trusty'), 10_000, 'the prompt after the dialog')
    expect(b.calls().filter((c) => c[1] === 'prompt' && c[2] === 'trusty')).toEqual([['agent', 'prompt', 'trusty', 'hello pi']])
  })

  test('not ready in 30 s: 504 naming the pane, left running; an agent that exits at once: the same (herdr answers at its deadline); any other failure: 502, its pane closed again', async () => {
    b.setState({ ...b.state(), start: { codex: 'timeout', opencode: 'exited' } })
    const slow = await start({ kind: 'codex', cwd: P.codex })
    expect(slow.status).toBe(504)
    const text = await slow.text()
    const pane = /pane (\S+) is left running/.exec(text)?.[1]
    expect(pane).toBeDefined()
    expect(paneOf(pane!)).toBeDefined()
    // herdr clears an exited agent's name at once, but its CLI waits out the deadline: a shell is left, for /agent-stop
    const gone = await start({ kind: 'opencode', cwd: P.oc })
    expect(gone.status).toBe(504)
    const shell = /pane (\S+) is left running/.exec(await gone.text())?.[1]
    expect(paneOf(shell!)?.agent).toBeUndefined()
    expect((await b.post('/agent-stop', { pane: shell })).status).toBe(200)
    const before = b.state().panes.length
    b.setState({ ...b.state(), start: {}, fail: { 'agent start': { code: 'agent_kind_mismatch', message: 'expected opencode, detected claude' } } })
    const wrong = await start({ kind: 'opencode', cwd: P.oc })
    expect(wrong.status).toBe(502)
    expect(await wrong.text()).toContain('agent_kind_mismatch')
    expect(b.state().panes.length).toBe(before)
    b.setState({ ...b.state(), fail: {} })
  })

  test('bad input: each a clear status, and nothing started', async () => {
    const cases: [unknown, number, string | RegExp][] = [
      [{ kind: 'vim', cwd: P.cc }, 400, /^want \{"kind"/],
      [{ cwd: P.cc }, 400, /^want \{"kind"/],
      ['{"kind":', 400, 'bad request body'],
      [{ kind: 'claude', cwd: '/etc' }, 404, 'no such directory'],
      [{ kind: 'claude', cwd: `${home}/../` }, 404, 'no such directory'],
      [{ kind: 'claude', cwd: `${home}/way-out` }, 404, 'no such directory'],
      [{ kind: 'claude', cwd: `${home}/notes.txt` }, 404, 'no such directory'],
      [{ kind: 'claude', cwd: 'cc-tools-mix/proj' }, 404, 'no such directory'],
      [{ kind: 'claude', cwd: P.pi, resume: '7444533a-645f-44b8-9f33-73e27f0ddc04' }, 404, 'no such session'],
      [{ kind: 'pi', cwd: P.cc, resume: '7444533a-645f-44b8-9f33-73e27f0ddc04' }, 404, 'no such session'],
      [{ kind: 'claude', cwd: P.cc, name: 'Bad Name' }, 400, /^name: 1-32/],
      [{ kind: 'claude', cwd: P.cc, name: 'fixer' }, 409, 'name taken'],
    ]
    const before = b.state().panes.length
    for (const [body, status, text] of cases) {
      const r = await start(body)
      const got = await r.text()
      expect([JSON.stringify(body), r.status]).toEqual([JSON.stringify(body), status])
      if (typeof text === 'string') expect(got).toBe(text)
      else expect(got).toMatch(text)
    }
    installed.delete('codex')
    const missing = await start({ kind: 'codex', cwd: P.codex })
    expect([missing.status, await missing.text()]).toEqual([503, `codex is not installed (not found on the bridge's PATH: ${process.env.PATH})`])
    installed.add('codex')
    // a herdr that fails making the pane (a directory no workspace is in yet)
    mkdirSync(join(home, 'fresh'))
    b.setState({ ...b.state(), fail: { 'workspace create': { code: 'workspace_create_failed', message: 'spawn failed' } } })
    const broken = await start({ kind: 'claude', cwd: join(home, 'fresh') })
    expect([broken.status, await broken.text()]).toEqual([502, expect.stringContaining('workspace_create_failed')])
    b.setState({ ...b.state(), fail: {} })
    expect(b.state().panes.length).toBe(before)
  })

  test('a device needs the start scope', async () => {
    const code = (await (await b.post('/pair/code', {})).json()) as { code: string; scopes: string[] }
    expect(code.scopes).toEqual([...DEFAULT_SCOPES])
    const dev = (await (await b.post('/pair', { code: code.code, device_name: 'p' }, null)).json()) as { token: string }
    const viewerCode = ((await (await b.post('/pair/code', { scopes: ['read'] })).json()) as { code: string }).code
    const viewer = (await (await b.post('/pair', { code: viewerCode, device_name: 'v' }, null)).json()) as { token: string }
    const denied = await b.post('/agent-start', { kind: 'claude', cwd: P.cc }, viewer.token)
    expect([denied.status, await denied.text()]).toEqual([403, 'forbidden: needs scope start'])
    expect((await b.get('/projects', viewer.token)).status).toBe(200)
    expect((await b.post('/agent-start', { kind: 'claude', cwd: '/etc' }, dev.token)).status).toBe(404)
  })
})

describe('POST /agent-stop', () => {
  test("closes an idle agent's pane; a working one only with force; unknown 404", async () => {
    const r = (await (await start({ kind: 'claude', cwd: P.cc, name: 'stopme' })).json()) as { pane_id: string }
    const ok = await b.post('/agent-stop', { pane: r.pane_id })
    expect([ok.status, await ok.json()]).toEqual([200, { stopped: true }])
    expect(paneOf(r.pane_id)).toBeUndefined()
    expect(
      b
        .calls()
        .filter((c) => c[0] === 'pane' && c[1] === 'close')
        .at(-1),
    ).toEqual(['pane', 'close', r.pane_id])
    const w = (await (await start({ kind: 'claude', cwd: P.cc, name: 'busy' })).json()) as { pane_id: string }
    b.updatePane(w.pane_id, (p) => (p.agent!.agent_status = 'working'))
    const refused = await b.post('/agent-stop', { pane: w.pane_id })
    expect([refused.status, await refused.text()]).toEqual([409, 'agent is working'])
    expect(paneOf(w.pane_id)).toBeDefined()
    expect((await b.post('/agent-stop', { pane: w.pane_id, force: true })).status).toBe(200)
    expect(paneOf(w.pane_id)).toBeUndefined()
    const unknown = await b.post('/agent-stop', { pane: 'w9:p9' })
    expect([unknown.status, await unknown.text()]).toEqual([404, 'no such agent'])
    // both are in the audit log
    const rows = ((await b.json('/audit?limit=20')) as { rows: { action: string; status: number }[] }).rows
    expect(rows.filter((x) => x.action === 'agent.stop').map((x) => x.status)).toEqual([404, 200, 409, 200])
    expect(rows.some((x) => x.action === 'agent.start' && x.status === 201)).toBe(true)
  })
})
