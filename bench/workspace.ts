// The workspace the request benches run against: ten Claude Code panes with
// real screens (two of them blocked), like a busy day.
import { join } from 'node:path'
import { runFake, type FakeState } from '../src/demo/fake-herdr'
import { createApp } from '../src/app'
import type { AuthStore } from '../src/auth/types'
import type { HerdrClient } from '../src/herdr/client'
import { createLogger } from '../src/server/log'

const SCREENS = ['cc-working/04-working-c', 'cc-bash-prompt/01-bash-prompt', 'cc-askuser/01-question', 'cc-long/03-end', 'cc-plan/01-plan-approval']

export function busyWorkspace(root: string): FakeState {
  return {
    workspaces: [
      { workspace_id: 'w1', number: 1, label: 'bench', focused: true, pane_count: 10, tab_count: 1, active_tab_id: 'w1:t1', agent_status: 'working' },
    ],
    tabs: [{ tab_id: 'w1:t1', workspace_id: 'w1', number: 1, label: 'main', focused: true, pane_count: 10, agent_status: 'working' }],
    panes: Array.from({ length: 10 }, (_, i) => ({
      pane_id: `w1:p${i + 1}`,
      workspace_id: 'w1',
      tab_id: 'w1:t1',
      cwd: `/home/me/p${i}`,
      screen_file: join(root, 'fixtures/screens', `${SCREENS[i % SCREENS.length]}.txt`),
      agent: { agent: 'claude', agent_status: i % 5 === 1 ? 'blocked' : 'working', state_change_seq: i, terminal_title_stripped: `task ${i}` },
    })),
  }
}

/** The bridge as the request benches run it: quiet (they print figures, not request lines), listening on a free port. */
export function benchBridge(o: { herdr: HerdrClient; auth: AuthStore; dir: string }) {
  const { dir } = o
  return createApp({
    logger: createLogger({ level: 'error' }),
    herdr: o.herdr,
    auth: o.auth,
    homes: { home: dir, claudeDir: dir, piDir: dir, xdgStateHome: dir, xdgDataHome: dir },
    version: 'bench',
    log: () => {},
  }).listen({ port: 0, hostname: '127.0.0.1' })
}

/** The fake's answers without a process, over `state`: isolates what the bridge itself costs. */
export function inProcessHerdr(state: FakeState, dir: string): HerdrClient {
  const call = (argv: string[]) => {
    const { out } = runFake(argv, structuredClone(state), dir)
    if (out.code !== 0) throw new Error(out.stderr)
    return out.stdout
  }
  const notHere = async (): Promise<never> => {
    throw new Error('not in this bench')
  }
  return {
    agentGet: async (t: string) => JSON.parse(call(['agent', 'get', t])).result.agent,
    agentRead: async (t: string, o?: { source?: string }) => call(['agent', 'read', t, '--source', o?.source ?? 'recent']),
    agentSendKeys: async () => {},
    paneSendText: async () => {},
    paneSendKeys: async () => {},
    paneSendInput: async () => {},
    paneRead: async (p: string) => call(['pane', 'read', p, '--source', 'visible']),
    snapshot: async () => JSON.parse(call(['api', 'snapshot'])).result.snapshot,
    version: async () => '0.8.2',
    workspaceCreate: notHere,
    tabCreate: notHere,
    agentStart: notHere,
    agentPrompt: async () => {},
    paneClose: async () => {},
  } as unknown as HerdrClient
}
