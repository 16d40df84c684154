// GET /projects on a machine with years of sessions (issue 28): 2,000 session
// files across 100 projects (Claude Code, pi, codex), listed cold (the first
// listing of a process: every head read) and warm (nothing changed: stats only),
// against a floor taken in the same run: listing the same directories and
// stat-ing the same files. Targets: cold < 200 ms, warm < 20 ms.
// Usage: bun bench/projects.ts
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SessionFinder, projectsOf } from '../src/projects/listing'
import { rootsOf } from '../src/projects/roots'
import { check, finish, info, loadNote } from './verdict'

const home = join(tmpdir(), `gothalo-bench-projects-${process.pid}`)
const homes = {
  home,
  claudeDir: join(home, '.claude'),
  piDir: join(home, '.pi/agent'),
  codexDir: join(home, '.codex'),
  xdgStateHome: join(home, '.local/state'),
  xdgDataHome: join(home, '.local/share'),
}
const PROJECTS = 100
const FILES = 2000
const pad = 'x'.repeat(400)
const uuid = (i: number) => `${(0x10000000 + i).toString(16)}-0000-4000-8000-${(0x100000000000 + i).toString(16)}`

// Real-sized heads: Claude's prompt after a snapshot line; codex's after a session_meta carrying ~12 KB of instructions; pi's after its header.
function claudeFile(cwd: string, i: number): string {
  const lines = [
    JSON.stringify({ type: 'file-history-snapshot', messageId: `m${i}`, snapshot: { trackedFileBackups: {}, timestamp: '2026-01-01T00:00:00Z' } }),
    JSON.stringify({
      type: 'user',
      cwd,
      sessionId: uuid(i),
      uuid: `u${i}`,
      timestamp: '2026-01-01T00:00:01Z',
      message: { role: 'user', content: `Please look at issue ${i} and fix the failing test in the parser ${pad}` },
    }),
  ]
  for (let k = 0; k < 60; k++)
    lines.push(
      JSON.stringify({
        type: 'assistant',
        cwd,
        uuid: `a${i}-${k}`,
        timestamp: '2026-01-01T00:00:02Z',
        message: { role: 'assistant', content: [{ type: 'text', text: `step ${k} ${pad}` }] },
      }),
    )
  return lines.join('\n') + '\n'
}
function codexFile(cwd: string, i: number): string {
  const meta = {
    timestamp: '2026-01-01T00:00:00Z',
    type: 'session_meta',
    payload: { id: uuid(i), cwd, cli_version: '0.171.0', base_instructions: { text: 'i'.repeat(12_000) } },
  }
  const user = (text: string) =>
    JSON.stringify({
      timestamp: '2026-01-01T00:00:01Z',
      type: 'response_item',
      payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
    })
  const lines = [
    JSON.stringify(meta),
    user(`<environment_context>\n  <cwd>${cwd}</cwd>\n  <shell>bash</shell>\n</environment_context>`),
    user(`Refactor module ${i} ${pad}`),
  ]
  for (let k = 0; k < 40; k++)
    lines.push(JSON.stringify({ timestamp: '2026-01-01T00:00:02Z', type: 'event_msg', payload: { type: 'agent_message', message: `done ${k} ${pad}` } }))
  return lines.join('\n') + '\n'
}
function piFile(cwd: string, i: number): string {
  const lines = [
    JSON.stringify({ type: 'session', version: 3, id: uuid(i), timestamp: '2026-01-01T00:00:00Z', cwd }),
    JSON.stringify({
      type: 'message',
      id: `p${i}`,
      parentId: null,
      timestamp: '2026-01-01T00:00:01Z',
      message: { role: 'user', content: [{ type: 'text', text: `Write docs for part ${i} ${pad}` }], timestamp: 1 },
    }),
  ]
  for (let k = 0; k < 40; k++)
    lines.push(
      JSON.stringify({
        type: 'message',
        id: `q${i}-${k}`,
        parentId: `p${i}`,
        timestamp: '2026-01-01T00:00:02Z',
        message: { role: 'assistant', content: [{ type: 'text', text: `ok ${k} ${pad}` }], timestamp: 2 },
      }),
    )
  return lines.join('\n') + '\n'
}

rmSync(home, { recursive: true, force: true })
const dirs: string[] = []
for (let f = 0; f < FILES; f++) {
  const proj = f % PROJECTS
  const cwd = join(home, 'work', `project-${proj}`)
  if (f < PROJECTS) mkdirSync(cwd, { recursive: true })
  const kind = f % 4 === 3 ? 'codex' : f % 4 === 2 ? 'pi' : 'claude'
  let dir: string
  if (kind === 'claude') dir = join(homes.claudeDir, 'projects', cwd.replaceAll('/', '-'))
  else if (kind === 'pi') dir = join(homes.piDir, 'sessions', `--${cwd.slice(1).replaceAll('/', '-')}--`)
  else dir = join(homes.codexDir, 'sessions', '2026', String(1 + (f % 12)).padStart(2, '0'), String(1 + (f % 28)).padStart(2, '0'))
  mkdirSync(dir, { recursive: true })
  dirs.push(dir)
  const name =
    kind === 'claude' ? `${uuid(f)}.jsonl` : kind === 'pi' ? `2026-01-01T00-00-00-000Z_${uuid(f)}.jsonl` : `rollout-2026-01-01T00-00-00-${uuid(f)}.jsonl`
  writeFileSync(join(dir, name), kind === 'claude' ? claudeFile(cwd, f) : kind === 'pi' ? piFile(cwd, f) : codexFile(cwd, f))
}

/** The floor: list the same directories (the stores' trees) and stat every file in them. */
function floor(): number {
  const t0 = performance.now()
  const walk = (d: string, depth: number) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name)
      if (e.isDirectory() && depth > 0) walk(p, depth - 1)
      else if (e.isFile()) statSync(p)
    }
  }
  walk(join(homes.claudeDir, 'projects'), 1)
  walk(join(homes.piDir, 'sessions'), 1)
  walk(join(homes.codexDir, 'sessions'), 3)
  return performance.now() - t0
}

const roots = rootsOf([home])
const floors = [floor(), floor(), floor()]
const finder = new SessionFinder(homes)
let t0 = performance.now()
const cold = projectsOf(await finder.find(), [], roots, Date.now())
const coldMs = performance.now() - t0
const warms: number[] = []
for (let i = 0; i < 20; i++) {
  t0 = performance.now()
  projectsOf(await finder.find(), [], roots, Date.now())
  warms.push(performance.now() - t0)
}
warms.sort((a, b) => a - b)
const warmMs = warms[10]!
const floorMs = [...floors].sort((a, b) => a - b)[1]!
const untitled = cold.flatMap((p) => p.sessions.filter((s) => !s.title).map((s) => s.agent_kind))
if (cold.length !== 50 || untitled.length) throw new Error(`the listing is wrong: ${cold.length} projects, untitled: ${[...new Set(untitled)].join(',')}`)
console.log(`projects: ${loadNote()}`)
info('files, projects', `${FILES} session files across ${PROJECTS} projects (the listing shows the newest 50)`)
info('floor: list the directories and stat the files', `${floorMs.toFixed(1)} ms`)
check('cold (every head read)', coldMs < 200, `${coldMs.toFixed(1)} ms = ${(coldMs / floorMs).toFixed(1)}x the floor`, '< 200 ms')
check('warm (nothing changed)', warmMs < 20, `${warmMs.toFixed(1)} ms = ${(warmMs / floorMs).toFixed(2)}x the floor`, '< 20 ms')
finder.close()
rmSync(home, { recursive: true, force: true })
finish('projects')
