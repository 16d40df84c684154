// gothalo --demo: a bundled herdr stand-in and bundled sample sessions, so a
// newcomer without herdr sees every endpoint answer with real-looking data.
// prepareDemo sets it up: it writes the samples (embedded in the binary, see
// samples/index.ts) into a fresh temp dir laid out the way the agents lay them
// out, the screens derived from them, and the fake herdr's state file describing
// one workspace "demo" (data.ts says what each pane is). The live part runs in
// the bridge process (ticker.ts); what a key does to a screen is the stand-in's
// (fake-typing.ts, reactions).
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import {
  BASH_PROMPT,
  BASH_REJECTED,
  BASH_RUNNING,
  DEMO_PANES,
  demoPaths,
  demoState,
  moveHome,
  PI,
  SUBAGENTS,
  TOOLS_MIX,
  WORKING,
  FETCH_PROMPT,
  FETCH_REJECTED,
  FETCH_RUNNING,
  rejectedScreen,
  runningScreen,
} from './data'
import { SAMPLE_FILES } from './samples/index'
import { demoTicker, runLive, writeAtomic } from './ticker'

export interface Demo {
  dir: string
  /** HOME, CLAUDE_CONFIG_DIR, PI_CODING_AGENT_DIR, XDG_* pointing at the samples; FAKE_HERDR_STATE */
  env: Record<string, string>
  /** the session file the live tail appends to */
  liveSession: string
  /** one step of the live demo: append a line, move screens/status on */
  tick(): void
  /** runs tick every `everyMs`; returns the stop function */
  startLive(everyMs?: number): () => void
  /** the short how-to printed at startup; `dataDir` is where the demo bridge keeps its devices */
  howTo(base: string, adminToken: string, pairing?: { dataDir: string; publicUrl?: string; self?: string }): string
  /** Serves herdr's socket API from the demo's state (what typed text goes to); returns its stop. */
  serveSocket(): Promise<() => Promise<void>>
  /** removes the demo dir (samples, state, and the demo's own data dir) */
  cleanup(): void
}

export async function prepareDemo(): Promise<Demo> {
  // (its real path: the project listing compares the sessions' folders with the root's real path)
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'gothalo-demo-')))
  const paths = demoPaths(dir)
  // the samples' projects move into the demo's home, the project root: recent projects to offer
  for (const [rel, embedded] of SAMPLE_FILES) {
    const to = join(dir, moveHome(rel, paths.home))
    mkdirSync(dirname(to), { recursive: true })
    writeFileSync(to, moveHome(await Bun.file(embedded).text(), paths.home))
  }
  for (const recorded of [SUBAGENTS.cwd, TOOLS_MIX.cwd, WORKING.cwd, PI.cwd, '/home/me/demo/proj'])
    mkdirSync(moveHome(recorded, paths.home), { recursive: true })
  mkdirSync(join(dir, 'screens/derived'), { recursive: true })
  writeFileSync(join(dir, `${BASH_RUNNING}.txt`), runningScreen(readFileSync(join(dir, `${BASH_PROMPT}.txt`), 'utf8')))
  writeFileSync(join(dir, `${FETCH_RUNNING}.txt`), runningScreen(readFileSync(join(dir, `${FETCH_PROMPT}.txt`), 'utf8')))
  writeFileSync(join(dir, `${BASH_REJECTED}.txt`), rejectedScreen(readFileSync(join(dir, `${BASH_PROMPT}.txt`), 'utf8')))
  writeFileSync(join(dir, `${FETCH_REJECTED}.txt`), rejectedScreen(readFileSync(join(dir, `${FETCH_PROMPT}.txt`), 'utf8')))
  mkdirSync(paths.home, { recursive: true })
  writeAtomic(paths.statePath, JSON.stringify(demoState(paths.piSession, paths.home), null, 1))
  const tick = demoTicker(dir)

  return {
    dir,
    env: {
      FAKE_HERDR_STATE: paths.statePath,
      // herdr's API socket, served by serveSocket(): typed text goes there, as with a real herdr
      HERDR_SOCKET_PATH: paths.socketPath,
      HOME: paths.home,
      CLAUDE_CONFIG_DIR: paths.claudeDir,
      PI_CODING_AGENT_DIR: paths.piDir,
      XDG_STATE_HOME: join(paths.home, '.local', 'state'),
      XDG_DATA_HOME: join(paths.home, '.local', 'share'),
    },
    liveSession: paths.liveSession,
    tick,
    startLive(everyMs = 3000) {
      return runLive(tick, everyMs)
    },
    async serveSocket() {
      const { startFakeHerdrSocket } = await import('./fake-herdr-socket')
      const sock = await startFakeHerdrSocket({ statePath: paths.statePath, socketPath: paths.socketPath })
      return () => sock.close()
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true })
    },
    howTo(base, token, pairing) {
      const ws = base.replace(/^http/, 'ws')
      const p = DEMO_PANES
      const self = pairing?.self ?? 'gothalo'
      const pairLines = pairing
        ? [
            `  pair a phone: ${self} pair --data-dir ${pairing.dataDir}${pairing.publicUrl ? '' : ' --public-url <the address the phone uses>'}`,
            '    (prints a code, its URL and a QR code; the demo keeps its devices in that data dir)',
          ]
        : []
      return [
        'demo: one workspace "demo" with five panes: ' +
          `${p.working} Claude working (its transcript grows every few seconds), ${p.blocked} Claude blocked on a Bash prompt, ` +
          `${p.done} Claude done, ${p.pi} pi, ${p.shell} a shell`,
        `  admin token: ${token}`,
        `  curl -s -H 'Authorization: Bearer ${token}' ${base}/snapshot`,
        `  curl -s -H 'Authorization: Bearer ${token}' '${base}/agent-state?pane=${p.blocked}'`,
        `  curl -s -H 'Authorization: Bearer ${token}' -H 'content-type: application/json' -d '{"agent":"${p.blocked}","seq":SEQ}' ${base}/approve` +
          '   (SEQ: the pane state_change_seq from /snapshot)',
        `  websocat '${ws}/agent-transcript?pane=${p.working}&token=${token}'`,
        `  websocat '${ws}/events?token=${token}'   (every pane's state, live: approve the blocked pane and watch it move on)`,
        `  ${base}/swagger for every endpoint`,
        ...pairLines,
      ].join('\n')
    },
  }
}
