// Live check of starting agents (issue 42, docs/bridge.md "Starting agents, second
// round"), needing no herdr: the real Claude Code and pi run in tmux against the
// capture kit's mock model (mock-anthropic.mjs), started with the command line the
// bridge builds. The bridge runs against the fake herdr; this script plays herdr's
// part the fake cannot: it runs the argv `agent start` recorded in the pane's shell
// (tmux), types the prompt the bridge sent through herdr's socket, and reports the
// agent's session once the agent has written it, as herdr does. WS /agent-transcript
// is opened on the pane right after the 201, while the session file does not exist.
// Then the session is resumed the same way (its history shows at once, the next turn
// streams live). Prints what each agent received and what the socket showed.
//
//   CLAUDE_BIN=…/claude PI_BIN=…/pi node_modules/.bin/bun scripts/capture/start-live.ts
//
// Needs tmux and node. Uses the test harness (test/support) for the bridge and the fake herdr.
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ADMIN, FrameQueue, homesIn, startBridge, type Bridge } from '../../test/support/harness'

const CLAUDE_BIN = process.env.CLAUDE_BIN ?? 'claude'
const PI_BIN = process.env.PI_BIN ?? 'pi'
const CC_KEY = 'sk-ant-api03-mockmockmockmockmockmockmockmockmockmockmockmockmockmockmockmockmockmockmockmockmockmock-AAAAAA'
const root = join(tmpdir(), `gothalo-start-live-${process.pid}`)
const home = join(root, 'home')
const proj = join(root, 'proj')
const SOCK = `start-live-${process.pid}`
const port = 20000 + (process.pid % 20000)
mkdirSync(proj, { recursive: true })
mkdirSync(join(home, '.pi/agent'), { recursive: true })

const sh = (argv: string[]) => {
  const r = Bun.spawnSync(argv, { stdout: 'pipe', stderr: 'pipe' })
  return r.stdout.toString()
}
const tmux = (...a: string[]) => sh(['tmux', '-L', SOCK, ...a])
const screen = () => tmux('capture-pane', '-p', '-t', 'live')
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
async function waitScreen(re: RegExp, ms = 40_000): Promise<void> {
  const until = Date.now() + ms
  while (Date.now() < until) {
    if (re.test(screen())) return
    await sleep(250)
  }
  throw new Error(`timed out waiting for ${re} on screen:\n${screen()}`)
}
async function typeLine(text: string) {
  tmux('send-keys', '-t', 'live', '-l', text)
  await sleep(300)
  tmux('send-keys', '-t', 'live', 'Enter')
}
const q = (s: string) => `'${s.replaceAll("'", "'\\''")}'`

// the mock model: each main request gets the next step
const scenario = {
  steps: [
    [{ text: 'First answer from the mock: hello.' }],
    [{ text: 'Second answer from the mock, after the resume.' }],
    [{ text: 'pi: first answer from the mock.' }],
    [{ text: 'pi: second answer from the mock, after the resume.' }],
  ],
  sideText: 'Live start check',
}
writeFileSync(join(root, 'scenario.json'), JSON.stringify(scenario))
const mock = Bun.spawn(['node', join(import.meta.dir, 'mock-anthropic.mjs'), String(port), join(root, 'scenario.json'), join(root, 'mock.log')], {
  stdout: 'ignore',
  stderr: 'inherit',
})
writeFileSync(
  join(home, '.claude.json'),
  JSON.stringify({
    hasCompletedOnboarding: true,
    theme: 'dark',
    customApiKeyResponses: { approved: [CC_KEY.slice(-20)], rejected: [] },
    projects: { [proj]: { hasTrustDialogAccepted: true, allowedTools: [] } },
  }),
)
writeFileSync(
  join(home, '.pi/agent/models.json'),
  JSON.stringify({
    providers: {
      mock: {
        baseUrl: `http://127.0.0.1:${port}`,
        api: 'anthropic-messages',
        apiKey: 'mockkey',
        compat: { supportsEagerToolInputStreaming: false },
        models: [{ id: 'claude-mock-1', name: 'Mock Claude', reasoning: true, input: ['text'], contextWindow: 200000, maxTokens: 8000 }],
      },
    },
  }),
)

const b: Bridge = await startBridge({
  homes: homesIn(home),
  herdrSocket: true,
  state: { panes: [] },
  deps: { projectRoots: [root], agentInstalled: () => true },
})

/** The pane's shell runs the argv herdr would type (argv[0] is the kind; the capture kit's env and, for pi, its mock provider). */
function runInPane(argv: string[]) {
  tmux('kill-session', '-t', 'live')
  const [kind, ...args] = argv
  const cmd =
    kind === 'claude'
      ? `env IS_SANDBOX=1 HOME=${home} ANTHROPIC_API_KEY=${CC_KEY} ANTHROPIC_BASE_URL=http://127.0.0.1:${port} CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 ${CLAUDE_BIN} ${args.map(q).join(' ')}`
      : `env HOME=${home} PI_OFFLINE=1 ${PI_BIN} --provider mock --model claude-mock-1 ${args.map(q).join(' ')}`
  tmux('new-session', '-d', '-s', 'live', '-x', '120', '-y', '40', '-c', proj, `${cmd}; echo EXITED $?; sleep 600`)
}

/** The session files the agent of `kind` wrote for the project. */
function sessionFiles(kind: string): string[] {
  const dir =
    kind === 'claude'
      ? join(home, '.claude/projects', proj.replace(/[^A-Za-z0-9]/g, '-'))
      : join(home, '.pi/agent/sessions', `--${proj.slice(1).replaceAll('/', '-')}--`)
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.jsonl'))
        .map((f) => join(dir, f))
    : []
}

function socketOn(pane: string): FrameQueue {
  return new FrameQueue(`${b.wsBase}/agent-transcript?pane=${encodeURIComponent(pane)}&token=${ADMIN}`)
}
const brief = (f: any) =>
  f.type === 'entry'
    ? `entry seq=${f.entry.seq} live=${f.live} ${f.entry.role}/${f.entry.kind}${f.entry.text ? `: ${JSON.stringify(f.entry.text.slice(0, 70))}` : ''}`
    : f.type === 'hello'
      ? `hello session_id=${JSON.stringify(f.session_id)} total=${f.total}`
      : f.type === 'session_changed'
        ? `session_changed ${JSON.stringify(f.from)} -> ${f.to}`
        : f.type
async function framesUntil(s: FrameQueue, stop: (f: any) => boolean, ms = 60_000): Promise<string[]> {
  return (await s.until(stop, ms)).map(brief)
}

async function round(kind: 'claude' | 'pi', prompt: string, resume?: { id: string; file: string }) {
  const label = resume ? `${kind}, resumed` : `${kind}, fresh`
  console.log(`\n== ${label}`)
  const before = new Set(sessionFiles(kind))
  const t0 = performance.now()
  const r = await b.post('/agent-start', { kind, cwd: proj, prompt, ...(resume ? { resume: resume.id } : {}) })
  const body = (await r.json()) as { pane_id: string; name: string }
  console.log(`POST /agent-start → ${r.status} ${JSON.stringify(body)}`)
  const pane = body.pane_id
  const argv = b.state().panes.find((p) => p.pane_id === pane)!.started_argv!
  console.log(`argv the bridge had herdr start: ${JSON.stringify(argv)}`)
  runInPane(argv)
  // the phone opens the conversation right after the 201
  const t1 = performance.now()
  const s = socketOn(pane)
  await s.opened
  console.log(
    `201 after ${(t1 - t0).toFixed(0)} ms; socket open ${(performance.now() - t1).toFixed(0)} ms after it; session files now: ${sessionFiles(kind).length - before.size} new`,
  )
  console.log('  ' + (await framesUntil(s, (f) => f.type === 'backlog_complete', 10_000)).join('\n  '))
  // herdr's socket delivers the prompt once the agent is ready: typed here
  const sent = b.calls().filter((c) => c[0] === 'agent' && c[1] === 'prompt' && c[2] === body.name)
  console.log(`prompt the bridge sent through herdr: ${JSON.stringify(sent.map((c) => c[3]))}`)
  await waitScreen(kind === 'claude' ? /shift\+tab to cycle|for shortcuts/ : /claude-mock-1/)
  await typeLine(sent[0]![3]!)
  // herdr reports the session once the agent has written it
  let file: string | undefined
  for (let i = 0; i < 240 && !file; i++) {
    file = resume ? resume.file : sessionFiles(kind).find((f) => !before.has(f))
    if (!file) await sleep(250)
  }
  if (!file) throw new Error(`${kind} wrote no session file`)
  const id = kind === 'claude' ? file.split('/').pop()!.slice(0, -6) : file.split('_').pop()!.slice(0, -6)
  b.updatePane(pane, (p) => {
    p.agent!.agent_session =
      kind === 'claude' ? { agent: 'claude', kind: 'id', source: 'herdr:claude', value: id } : { agent: 'pi', kind: 'path', source: 'herdr:pi', value: file! }
  })
  const answer = scenario.steps.flat().map((x) => x.text)
  const got = await framesUntil(s, (f) => f.type === 'entry' && f.entry.role === 'assistant' && answer.includes(f.entry.text), 60_000)
  console.log('  ' + got.join('\n  '))
  s.close()
  await b.post('/agent-stop', { pane, force: true })
  tmux('kill-session', '-t', 'live')
  return { id, file }
}

try {
  for (let i = 0; i < 40 && !existsSync(join(root, 'mock.log')); i++) await sleep(100)
  const cc = await round('claude', 'Say hello, please.')
  await round('claude', 'And once more, after the resume.', cc)
  const pi = await round('pi', 'Say hello, pi.')
  await round('pi', 'Once more, pi, after the resume.', pi)
  console.log(`\nmock requests:\n${sh(['grep', '-E', '^(POST|  ->)', join(root, 'mock.log')])}`)
} finally {
  tmux('kill-server')
  mock.kill()
  await b.stop()
  if (!process.env.KEEP) rmSync(root, { recursive: true, force: true })
}
