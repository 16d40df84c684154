// herdr calls made by the bridge while transcript sockets are open: they must
// grow with panes, never with sockets (one herdr watcher for the whole bridge).
//   bun bench/herdr-calls.ts [seconds]      (default 60 per window)
// The real app, the fake herdr executable (its call log is the count: every
// line is one herdr process spawned), five Claude panes, no herdr socket (so the
// watcher polls the CLI: the costly mode). With 1, 10 and 50 sockets open,
// spread over the panes, the calls made during one window are counted.
// Floor: the watcher's own budget, one `herdr api snapshot` per second for all
// panes. Target: at most that (+1 for a poll already in flight), whatever the
// socket count. Everything lives in a temp dir removed at the end.
import { createLogger } from '../src/server/log'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createApp } from '../src/app'
import { createAuthStore } from '../src/auth/store'
import { createHerdrClient } from '../src/herdr/client'
import { check, finish, info, loadNote } from './verdict'

const ROOT = resolve(import.meta.dir, '..')
const FAKE = join(ROOT, 'fixtures/herdr/herdr')
const TOKEN = 'bench-token'
const SID = '31768c85-8856-4ba3-9323-9014ac9e2d13'
const CWD = '/home/me/cc-subagents/proj'
const WINDOW_S = Number(process.argv[2] ?? 60) || 60
const PANES = 5

const dir = mkdtempSync(join(tmpdir(), 'gothalo-herdr-calls-'))
try {
  const claudeDir = join(dir, 'claude')
  cpSync(join(ROOT, 'fixtures/claude/cc-subagents'), claudeDir, { recursive: true })
  const statePath = join(dir, 'state.json')
  const logPath = join(dir, 'calls.jsonl')
  const panes = Array.from({ length: PANES }, (_, i) => ({
    pane_id: `w1:p${i + 1}`,
    workspace_id: 'w1',
    tab_id: 'w1:t1',
    cwd: CWD,
    agent: {
      agent: 'claude',
      agent_status: 'idle',
      state_change_seq: 1,
      cwd: CWD,
      agent_session: { agent: 'claude', kind: 'id', source: 'herdr:claude', value: SID },
    },
  }))
  writeFileSync(statePath, JSON.stringify({ panes }))
  const auth = createAuthStore({ dbPath: join(dir, 'g.db'), adminToken: TOKEN })
  const app = createApp({
    logger: createLogger({ level: 'error' }), // the bench prints figures, not request lines
    herdr: createHerdrClient({
      bin: FAKE,
      timeoutMs: 10_000,
      env: { ...process.env, FAKE_HERDR_BUN: process.execPath, FAKE_HERDR_STATE: statePath, FAKE_HERDR_LOG: logPath },
    }),
    auth,
    homes: { home: dir, claudeDir, piDir: join(dir, 'pi'), xdgStateHome: join(dir, 'state'), xdgDataHome: join(dir, 'data') },
    version: 'bench',
    log: () => {},
  }).listen({ port: 0, hostname: '127.0.0.1' })
  const calls = (): string[][] => {
    try {
      return readFileSync(logPath, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).argv)
    } catch {
      return []
    }
  }
  console.log(`herdr-calls: ${PANES} Claude panes, the fake herdr CLI (no herdr socket: the watcher polls), windows of ${WINDOW_S} s; ${loadNote()}`)
  const rows: { sockets: number; calls: number; byCommand: Record<string, number> }[] = []
  const open: WebSocket[] = []
  for (const n of [1, 10, 50]) {
    while (open.length < n) {
      const ws = new WebSocket(`ws://127.0.0.1:${app.server!.port}/agent-transcript?pane=w1:p${(open.length % PANES) + 1}&token=${TOKEN}`)
      await new Promise<void>((res, rej) => {
        ws.onmessage = (e) => JSON.parse(e.data as string).type === 'backlog_complete' && res()
        ws.onerror = () => rej(new Error('socket error'))
      })
      open.push(ws)
    }
    await Bun.sleep(1500) // connects are done (each resolved its pane once): count the steady state
    const before = calls().length
    await Bun.sleep(WINDOW_S * 1000)
    const window = calls().slice(before)
    const byCommand: Record<string, number> = {}
    for (const argv of window) byCommand[argv.slice(0, 2).join(' ')] = (byCommand[argv.slice(0, 2).join(' ')] ?? 0) + 1
    rows.push({ sockets: n, calls: window.length, byCommand })
  }
  for (const ws of open) ws.close(1000)
  await app.stop(true)
  auth.close()
  console.log(JSON.stringify({ bench: 'herdr-calls', window_s: WINDOW_S, panes: PANES, rows }))
  info('floor', `the watcher's budget: one \`herdr api snapshot\` a second for all panes = ${WINDOW_S} calls in ${WINDOW_S} s`)
  for (const r of rows)
    check(
      `${r.sockets} socket${r.sockets > 1 ? 's' : ''} open on ${Math.min(r.sockets, PANES)} pane${r.sockets > 1 ? 's' : ''}`,
      r.calls <= WINDOW_S + 1,
      `${r.calls} herdr calls in ${WINDOW_S} s (${
        Object.entries(r.byCommand)
          .map(([c, k]) => `${k}× ${c}`)
          .join(', ') || 'none'
      })`,
      `≤ ${WINDOW_S + 1}: one a second, flat in sockets`,
    )
} finally {
  rmSync(dir, { recursive: true, force: true })
}
finish('herdr-calls')
