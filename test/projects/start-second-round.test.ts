// Starting agents, second round (docs/bridge.md): the new agent's conversation
// opens at once (hello total 0 before the agent wrote its session, then its
// entries), a pane the bridge made is one /agent-stop can close whatever runs in
// it, a session live in a pane is not started twice, the audit row of a start
// names its pane and name, and a 503 names the PATH searched. The fake herdr, like
// herdr, reports an agent's session only once the agent has written it
// (FakePane.session_written): the test writes it when it chooses.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { homesIn, ROOT, startBridge, tempDir, type Bridge } from '../support/harness'
import { connect, FAST, readOpening, upgradeStatus } from '../support/transcript-socket'
import { encodeClaudeCwd } from '../../src/transcript/kinds/claude/source-resolve'
import { encodePiCwd } from '../../src/transcript/kinds/pi/normalize'
import { createStartedPanes } from '../../src/projects/started'
import type { AgentHomes } from '../../src/transcript/source'

const FIX = join(ROOT, 'fixtures')
const OLD_CC = '7444533a-645f-44b8-9f33-73e27f0ddc04'
const NEW_CC = '5d0c7b3e-1f2a-4c1e-9a77-0b9e4c2d1a01'
let b: Bridge
let home: string
let homes: AgentHomes
/** a project with an older Claude Code session in it, and one pi has never been run in */
let ccDir: string
let piDir: string
/** Claude Code's session, its /home/me/ paths moved under the temp home */
let ccLines: string
let piLines: string

beforeAll(async () => {
  home = tempDir('gothalo-start2-home-')
  homes = homesIn(home)
  ccDir = join(home, 'cc')
  piDir = join(home, 'pi')
  mkdirSync(ccDir, { recursive: true })
  mkdirSync(piDir, { recursive: true })
  ccLines = readFileSync(join(FIX, 'claude/cc-tools-mix/projects/-home-me-cc-tools-mix-proj', `${OLD_CC}.jsonl`), 'utf8').replaceAll(
    '/home/me/cc-tools-mix/proj',
    ccDir,
  )
  const piFixture = join(FIX, 'pi/pi-basic/sessions/--home-me-pi-basic-proj--')
  piLines = readFileSync(join(piFixture, readdirSync(piFixture)[0]!), 'utf8').replaceAll('/home/me/pi-basic/proj', piDir)
  // the older session of the directory: a fresh start must not show it
  const ccProject = join(homes.claudeDir, 'projects', encodeClaudeCwd(ccDir))
  mkdirSync(ccProject, { recursive: true })
  writeFileSync(join(ccProject, `${OLD_CC}.jsonl`), ccLines)
  b = await startBridge({
    homes,
    herdrSocket: true,
    timing: FAST,
    state: {
      workspaces: [{ workspace_id: 'w1', number: 1, label: 'x', focused: true, pane_count: 1, tab_count: 1, active_tab_id: 'w1:t1', agent_status: 'idle' }],
      tabs: [{ tab_id: 'w1:t1', workspace_id: 'w1', number: 1, label: '1', focused: true, pane_count: 1, agent_status: 'idle' }],
      panes: [{ pane_id: 'w1:p1', workspace_id: 'w1', tab_id: 'w1:t1', cwd: home, screen: '$ ' }],
    },
    deps: { projectRoots: [home], agentInstalled: () => true },
  })
})
afterAll(() => b?.stop())

const start = async (body: unknown) => {
  const r = await b.post('/agent-start', body)
  expect(r.status).toBe(201)
  return (await r.json()) as { pane_id: string; name: string }
}

/** herdr reports `session` for the pane once `written` exists (the agent wrote it). */
function reportWhenWritten(pane: string, session: { kind: 'id' | 'path'; value: string }, written: string) {
  b.updatePane(pane, (p) => {
    p.agent!.agent_session = { agent: p.agent!.agent, kind: session.kind, source: `herdr:${p.agent!.agent}`, value: session.value }
    p.session_written = written
  })
}

describe('the new agent opens at once', () => {
  test('Claude Code, started fresh: hello total 0 (not the older session), then its session once written', async () => {
    const { pane_id } = await start({ kind: 'claude', cwd: ccDir })
    const file = join(homes.claudeDir, 'projects', encodeClaudeCwd(ccDir), `${NEW_CC}.jsonl`)
    reportWhenWritten(pane_id, { kind: 'id', value: NEW_CC }, file)
    const q = await connect(b, pane_id)
    const first = await readOpening(q)
    expect(first.hello).toMatchObject({ type: 'hello', pane: pane_id, agent_kind: 'claude', session_id: '', total: 0 })
    expect(first.entries).toEqual([])
    // Claude Code takes the prompt and writes its session: the socket moves to it
    writeFileSync(file, ccLines)
    const changed = await q.until((f) => f.type === 'session_changed', 10_000)
    expect(changed.at(-1)).toEqual({ type: 'session_changed', pane: pane_id, from: '', to: NEW_CC })
    const second = await readOpening(q)
    expect(second.hello.session_id).toBe(NEW_CC)
    expect(second.hello.total).toBeGreaterThan(0)
    expect(second.entries.at(-1).seq).toBe(second.hello.total)
    q.close()
  })

  test("pi, started fresh: the socket opens on the session herdr just reported (not the watcher's older copy), and follows /new", async () => {
    const { pane_id } = await start({ kind: 'pi', cwd: piDir })
    const sessions = join(homes.piDir, 'sessions', encodePiCwd(piDir))
    mkdirSync(sessions, { recursive: true })
    const id1 = '01b00000-0000-7000-8000-000000000001'
    const file1 = join(sessions, `2026-12-06T00-00-00-000Z_${id1}.jsonl`)
    // pi reports its file before it writes it: the report comes now, the file later
    const reported = join(b.dir, 'pi-reported-1')
    reportWhenWritten(pane_id, { kind: 'path', value: file1 }, reported)
    writeFileSync(reported, '')
    const q = await connect(b, pane_id)
    const first = await readOpening(q)
    expect(first.hello).toMatchObject({ session_id: id1, total: 0 })
    // the entries follow as pi writes them, on the same session
    writeFileSync(file1, piLines)
    const total = piLines.split('\n').filter(Boolean).length
    const live = await q.until((f) => f.type === 'entry' && f.live, 10_000)
    expect(live.at(-1).entry.seq).toBe(1)
    expect(live.some((f) => f.type === 'session_changed')).toBe(false)
    expect(total).toBeGreaterThan(1)
    // /new: pi reports a new file; a socket opened right after the report opens, and the first one hears session_changed
    const id2 = '01b00000-0000-7000-8000-000000000002'
    const file2 = join(sessions, `2026-12-06T00-01-00-000Z_${id2}.jsonl`)
    b.updatePane(pane_id, (p) => (p.agent!.agent_session!.value = file2))
    const q2 = await connect(b, pane_id)
    const other = await readOpening(q2)
    // on the watcher's copy (id1) until its next read, then on id2: either way it ends on id2
    if (other.hello.session_id !== id2) {
      expect(other.hello.session_id).toBe(id1)
      await q2.until((f) => f.type === 'session_changed' && f.to === id2, 10_000)
    }
    const changed = await q.until((f) => f.type === 'session_changed', 10_000)
    expect(changed.at(-1)).toEqual({ type: 'session_changed', pane: pane_id, from: id1, to: id2 })
    q.close()
    q2.close()
  })

  test('a pane the bridge did not start, its agent with no session yet: open empty, then the session once written', async () => {
    const dir = join(home, 'other')
    mkdirSync(dir, { recursive: true })
    b.setState({
      ...b.state(),
      panes: [
        ...b.state().panes,
        {
          pane_id: 'w1:p9',
          workspace_id: 'w1',
          tab_id: 'w1:t1',
          cwd: dir,
          agent: { agent: 'claude', agent_status: 'idle', state_change_seq: 3, cwd: dir } as never,
        },
      ],
    })
    const id = '9a0c7b3e-1f2a-4c1e-9a77-0b9e4c2d1a09'
    const file = join(homes.claudeDir, 'projects', encodeClaudeCwd(dir), `${id}.jsonl`)
    reportWhenWritten('w1:p9', { kind: 'id', value: id }, file)
    const q = await connect(b, 'w1:p9')
    expect((await readOpening(q)).hello).toMatchObject({ session_id: '', total: 0 })
    mkdirSync(join(homes.claudeDir, 'projects', encodeClaudeCwd(dir)), { recursive: true })
    writeFileSync(file, ccLines.replaceAll(ccDir, dir))
    await q.until((f) => f.type === 'session_changed' && f.to === id, 10_000)
    expect((await readOpening(q)).hello.total).toBeGreaterThan(0)
    q.close()
  })

  test('codex, started fresh: hello total 0, then its rollout once written', async () => {
    const dir = join(home, 'cx')
    mkdirSync(dir, { recursive: true })
    const { pane_id } = await start({ kind: 'codex', cwd: dir })
    const id = '01a23781-9dc3-72c0-a1ce-ace7a4ebd902'
    const day = join(homes.codexDir ?? join(home, '.codex'), 'sessions/2026/12/06')
    const file = join(day, `rollout-2026-12-06T01-00-00-${id}.jsonl`)
    reportWhenWritten(pane_id, { kind: 'id', value: id }, file)
    const q = await connect(b, pane_id)
    expect((await readOpening(q)).hello).toMatchObject({ agent_kind: 'codex', session_id: '', total: 0 })
    mkdirSync(day, { recursive: true })
    const rollout = readFileSync(join(FIX, 'codex/codex-resume/sessions/2026/12/02', `rollout-2026-12-02T16-06-11-${id}.jsonl`), 'utf8')
    writeFileSync(file, rollout.replaceAll('/home/me/codex-resume/proj', dir))
    await q.until((f) => f.type === 'session_changed' && f.from === '' && f.to === id, 10_000)
    expect((await readOpening(q)).hello.total).toBeGreaterThan(0)
    q.close()
  })

  test('404 only when herdr, asked, says the pane shows no agent', async () => {
    expect(await upgradeStatus(b, 'w1:p1')).toEqual({ status: 404, body: 'no such agent' })
    expect(await upgradeStatus(b, 'w7:p7')).toEqual({ status: 404, body: 'no such agent' })
    // a subagent that is not there is still no transcript
    const { pane_id } = await start({ kind: 'claude', cwd: ccDir })
    expect(await upgradeStatus(b, pane_id, '&subagent=a0')).toEqual({ status: 404, body: 'no transcript file for pane' })
  })
})

describe('a pane the bridge made, and the start around it', () => {
  test('a start that timed out: 504 says the prompt was not sent; /agent-stop closes the shell left in its pane', async () => {
    b.setState({ ...b.state(), start: { codex: 'not-on-path' } })
    const r = await b.post('/agent-start', { kind: 'codex', cwd: ccDir, prompt: 'fix it' })
    expect(r.status).toBe(504)
    const text = await r.text()
    expect(text).toMatch(/its pane (\S+) is left running; the prompt was not sent$/)
    const pane = /its pane (\S+) is left/.exec(text)![1]!
    expect(b.state().panes.find((p) => p.pane_id === pane)?.agent).toBeUndefined()
    // its audit row names the pane it made and the agent's made-up name, as a 201's does
    const rows = ((await b.json('/audit?limit=50')) as { rows: { action: string; status: number; pane: string | null; detail: { name?: string } }[] }).rows
    const row = rows.find((x) => x.action === 'agent.start' && x.status === 504)
    expect(row?.pane).toBe(pane)
    expect(row?.detail.name).toMatch(/^codex-[0-9a-f]{4}$/)
    expect(b.calls().some((c) => c[1] === 'prompt' && c.includes('fix it'))).toBe(false)
    const stop = await b.post('/agent-stop', { pane })
    expect([stop.status, await stop.json()]).toEqual([200, { stopped: true }])
    expect(b.state().panes.some((p) => p.pane_id === pane)).toBe(false)
    // forgotten once closed; a shell pane the bridge did not make is no agent
    expect((await b.post('/agent-stop', { pane })).status).toBe(404)
    const other = await b.post('/agent-stop', { pane: 'w1:p1' })
    expect([other.status, await other.text()]).toEqual([404, 'no such agent'])
    expect(b.state().panes.some((p) => p.pane_id === 'w1:p1')).toBe(true)
    b.setState({ ...b.state(), start: {} })
  })

  test('a pane id herdr hands out again is not the pane the bridge made', async () => {
    b.setState({ ...b.state(), start: { codex: 'not-on-path' } })
    const r = await b.post('/agent-start', { kind: 'codex', cwd: ccDir })
    const pane = /its pane (\S+) is left/.exec(await r.text())![1]!
    b.setState({ ...b.state(), start: {} })
    // closed behind the bridge's back, and a new terminal under the same id
    b.updatePane(pane, (p) => (p.terminal_id = 'term_someone_else'))
    expect((await b.post('/agent-stop', { pane })).status).toBe(404)
    expect(b.state().panes.some((p) => p.pane_id === pane)).toBe(true)
  })

  test('the panes are kept in the database: a bridge reopening it still knows them', () => {
    const db = join(tempDir('gothalo-started-'), 'gothalo.db')
    const one = createStartedPanes(db)
    one.add({ pane_id: 'w3:p1', terminal_id: 'term_1', kind: 'pi', name: 'pi-1a2b', session: '/s/x.jsonl', started_at: 5 })
    one.close()
    const two = createStartedPanes(db)
    expect(two.get('w3:p1')).toEqual({ pane_id: 'w3:p1', terminal_id: 'term_1', kind: 'pi', name: 'pi-1a2b', session: '/s/x.jsonl', started_at: 5 })
    two.remove('w3:p1')
    expect(two.get('w3:p1')).toBeUndefined()
    two.close()
  })

  test('resuming a session a live pane shows: 409 naming the pane, nothing made', async () => {
    b.setState({
      ...b.state(),
      panes: [
        ...b.state().panes,
        {
          pane_id: 'w1:p8',
          workspace_id: 'w1',
          tab_id: 'w1:t1',
          cwd: ccDir,
          agent: { agent: 'claude', agent_status: 'idle', cwd: ccDir, agent_session: { agent: 'claude', kind: 'id', value: OLD_CC } } as never,
        },
      ],
    })
    const before = b.calls().length
    const r = await b.post('/agent-start', { kind: 'claude', cwd: ccDir, resume: OLD_CC })
    expect([r.status, await r.text()]).toEqual([409, 'session is live in pane w1:p8'])
    expect(
      b
        .calls()
        .slice(before)
        .filter((c) => ['workspace', 'tab'].includes(c[0]!) || c[1] === 'start'),
    ).toEqual([])
    // once that pane is gone, it resumes
    b.setState({ ...b.state(), panes: b.state().panes.filter((p) => p.pane_id !== 'w1:p8') })
    const ok = await start({ kind: 'claude', cwd: ccDir, resume: OLD_CC })
    expect(b.state().panes.find((p) => p.pane_id === ok.pane_id)?.started_argv).toEqual(['claude', '--resume', OLD_CC])
  })

  test('the audit row of a start: its pane in the pane column, the name (given or made up) in the detail', async () => {
    const made = await start({ kind: 'claude', cwd: ccDir })
    const given = await start({ kind: 'pi', cwd: piDir, name: 'docs' })
    const rows = ((await b.json('/audit?limit=50')) as { rows: { action: string; status: number; pane: string | null; detail: { name?: string } }[] }).rows
    const starts = rows.filter((x) => x.action === 'agent.start' && x.status === 201)
    expect(starts.find((x) => x.pane === made.pane_id)?.detail.name).toBe(made.name)
    expect(made.name).toMatch(/^claude-[0-9a-f]{4}$/)
    expect(starts.find((x) => x.pane === given.pane_id)?.detail.name).toBe('docs')
  })
})

describe('not installed', () => {
  test('503 names the PATH searched', async () => {
    const c = await startBridge({ homes: homesIn(home), deps: { projectRoots: [home], agentPath: '/nowhere/bin:/none' } })
    try {
      const r = await c.post('/agent-start', { kind: 'claude', cwd: ccDir })
      expect([r.status, await r.text()]).toEqual([503, "claude is not installed (not found on the bridge's PATH: /nowhere/bin:/none)"])
      expect(c.calls().filter((x) => x[0] === 'workspace' || x[0] === 'tab')).toEqual([])
    } finally {
      await c.stop()
    }
  })
})
