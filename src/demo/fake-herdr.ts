// A stand-in for the `herdr` CLI, driven by a JSON state file. It reproduces the
// real CLI's output shapes (docs/reference/herdr-cli.md): one compact JSON line with keys sorted
// at every level on stdout and exit 0; server errors on stderr with exit 1; the two
// struct-ordered errors (server_not_running, protocol_mismatch); plain-text usage
// errors with exit 2. Every invocation is appended to a log so tests can see which
// keys and text were sent. Tests run it through fixtures/herdr/herdr; `gothalo
// --demo` runs it by re-executing itself.
import { existsSync, readFileSync } from 'node:fs'
import { isAbsolute, join } from 'node:path'
import type { AgentInfo, AgentStatus, PaneInfo, TabInfo, WorkspaceInfo } from '../herdr/types'
import { typeInto, withTyping, type Typing } from './fake-typing'

/** A pane may echo typing and cycle Claude Code's footer mode (fake-typing.ts). */
export interface FakePane extends Typing {
  pane_id: string
  workspace_id: string
  tab_id: string
  terminal_id?: string
  focused?: boolean
  cwd?: string
  label?: string
  /** present → the pane hosts an agent */
  agent?: Partial<AgentInfo> & { agent: string; agent_status: AgentStatus }
  /** visible screen text (or screen_file, relative to the state file) */
  screen?: string
  screen_file?: string
  /** the same screen with SGR codes */
  ansi_file?: string
  /** visible screen plus scrollback */
  recent_file?: string
  /** the argv `agent start` typed into this pane's shell (the fake's record; herdr prints it once) */
  started_argv?: string[]
  /** how many file paths were pasted into this pane's agent (each shows its placeholder) */
  pasted?: number
  /**
   * Like herdr, the agent's session (agent.agent_session) is reported only once the
   * agent has written it: while this file does not exist, agent_session is left out.
   * The test chooses when by writing the file.
   */
  session_written?: string
  /** 0.9 mode: herdr's `PaneInfo.restore_error` (a native session restore that failed) */
  restore_error?: string
}

export interface FakeReaction {
  pane: string
  /** which input triggers it */
  on: 'send-keys' | 'send-text'
  /** the keys joined by spaces, or the text */
  match: string
  /** merged into the pane (agent fields merged into its agent) */
  set: Partial<FakePane>
  /** keep firing after the first match (default: once) */
  repeat?: boolean
  /**
   * only while the pane shows this screen_file: reactions then form the dialog's own
   * state machine (each key moves from one captured screen to the next)
   */
  when?: string
}

export interface FakeState {
  /** the server's herdr version and protocol (ping, snapshot): 0.8.2 / 20 by default; 0.9.x / 22 is the 0.9 mode */
  version?: string
  protocol?: number
  /**
   * the CLI binary's, when it is not the server's (after `herdr update` without a restart): a
   * different protocol makes every socket-backed CLI call fail with protocol_mismatch
   */
  cli_version?: string
  cli_protocol?: number
  /** `protocol_mismatch`: as if the CLI were one release ahead of the server (22 vs 20, 20 vs 19) */
  server?: 'running' | 'not_running' | 'protocol_mismatch'
  /** command prefixes ("agent get", "agent read", "*") that hang until killed */
  hang?: string[]
  /** command prefix → a server error reported for it */
  fail?: Record<string, { code: string; message: string }>
  workspaces?: WorkspaceInfo[]
  tabs?: TabInfo[]
  panes: FakePane[]
  reactions?: FakeReaction[]
  /**
   * How `agent start` goes, per kind (default ready): `blocked` stops at a dialog during startup
   * (agent_not_ready, the pane showing `blocked_screen_file`), `timeout` never becomes ready,
   * `exited` is an agent process that exits before it is interactive (herdr clears its name at once,
   * yet the CLI answers only at its deadline, `timeout`: the pane a shell again), `not-on-path` a
   * program the pane's shell cannot find (the pane stays a shell saying so, and the start times out).
   */
  start?: Record<string, 'ready' | 'blocked' | 'timeout' | 'exited' | 'not-on-path'>
  /** the screen a pane shows when its agent is blocked during startup */
  blocked_screen_file?: string
}

/** herdr's agent name rule (src/app/agents.rs `start_agent`). */
const AGENT_NAME = /^[a-z][a-z0-9_-]{0,31}$/
/** the kinds `herdr agent start` launches (a few of herdr's list) */
const STARTABLE = ['pi', 'claude', 'codex', 'opencode', 'gemini', 'cursor', 'amp']

/** Deep copy with object keys sorted, as herdr's CLI prints them. */
export function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys)
  if (v && typeof v === 'object') {
    const o: Record<string, unknown> = {}
    for (const k of Object.keys(v as object).sort()) {
      const x = (v as Record<string, unknown>)[k]
      if (x !== undefined) o[k] = sortKeys(x)
    }
    return o
  }
  return v
}

const NAMED_KEYS = new Set(
  'enter return esc escape tab backspace bs space left right up down minus plus comma period slash backslash quote double_quote double-quote semicolon colon percent ampersand backtick'.split(
    ' ',
  ),
)
const MODIFIERS = new Set('ctrl control shift alt option meta cmd command super hyper'.split(' '))

/** herdr's key syntax (docs/reference/herdr-cli.md §6.1): mod+mod+key, named keys, one printable char. */
export function validKey(key: string): boolean {
  if (key === '+' || /^[cC]-c$/.test(key)) return true
  const parts = key.split('+')
  const base = parts.pop()!
  if (!parts.every((m) => MODIFIERS.has(m.toLowerCase()))) return false
  if ([...base].length === 1) return base >= ' '
  const b = base.toLowerCase()
  return NAMED_KEYS.has(b) || /^f\d+$/.test(b)
}

interface Out {
  stdout: string
  stderr: string
  code: number
  hang?: boolean
}

const ok = (id: string, result: unknown): Out => ({ stdout: JSON.stringify(sortKeys({ id, result })) + '\n', stderr: '', code: 0 })
const err = (id: string, code: string, message: string): Out => ({
  stdout: '',
  stderr: JSON.stringify(sortKeys({ error: { code, message }, id })) + '\n',
  code: 1,
})
/** The two errors the CLI prints from a typed struct: `id` first, keys not sorted (docs/reference/herdr-cli.md §1). */
const structErr = (id: string, code: string, message: string): Out => ({
  stdout: '',
  stderr: JSON.stringify({ id, error: { code, message } }) + '\n',
  code: 1,
})
const usage = (text: string): Out => ({ stdout: '', stderr: text + '\n', code: 2 })

/** The agent's session as herdr reports it: not before the agent wrote it (FakePane.session_written). */
function reportedSession(p: FakePane) {
  return p.session_written !== undefined && !existsSync(p.session_written) ? undefined : p.agent?.agent_session
}

/** herdr 0.9 (protocol 22) and later: the record fields 0.9.2 added (docs/reference/herdr-0.9.md §1.2 #9). */
export const isHerdr09 = (state: Pick<FakeState, 'protocol'> | undefined) => (state?.protocol ?? 20) >= 22

/**
 * The CLI's refusal when its protocol and the server's differ (docs/reference/herdr-0.9.md §1.2 #1):
 * the message with its literal newline, or undefined when they agree.
 */
export function protocolMismatch(state: FakeState): string | undefined {
  const client = state.cli_protocol ?? state.protocol ?? 20
  let server = state.protocol ?? 20
  if (client === server) {
    if (state.server !== 'protocol_mismatch') return undefined
    server = server >= 22 ? 20 : server - 1 // the shorthand: the server one release behind
  }
  return client > server
    ? `client protocol ${client} is newer than server protocol ${server}; restart the Herdr server before using this command.\nRun \`herdr server stop\` and start herdr again.`
    : `client protocol ${client} is older than server protocol ${server}; upgrade the Herdr client before using this command.\nRun \`herdr update\`.`
}

/** `ping`'s capabilities: 0.8.2 has two, 0.9 five and more (an open map; §1.1). */
export function pingCapabilities(state: FakeState): Record<string, boolean | number> {
  return isHerdr09(state)
    ? {
        live_handoff: true,
        detached_server_daemon: false,
        endpoint_protocol_generation: 1,
        surface_interest: true,
        health_check: true,
        ssh_agent_registration: true,
      }
    : { live_handoff: true, detached_server_daemon: true }
}

export function agentInfo(p: FakePane, state?: Pick<FakeState, 'protocol'>): AgentInfo {
  const a = p.agent!
  return {
    // 0.9.2's AgentInfo.completion_seq (u64): unknown to the bridge's schema, so it must pass untouched
    ...(isHerdr09(state) ? { completion_seq: (a as { completion_seq?: number }).completion_seq ?? 0 } : {}),
    ...a,
    agent_session: reportedSession(p),
    cwd: a.cwd ?? p.cwd,
    focused: p.focused ?? false,
    pane_id: p.pane_id,
    revision: a.revision ?? 0,
    state_change_seq: a.state_change_seq ?? 0,
    tab_id: p.tab_id,
    terminal_id: p.terminal_id ?? `term_${p.pane_id.replace(/\W/g, '')}`,
    workspace_id: p.workspace_id,
  } as AgentInfo
}

export function paneInfo(p: FakePane, state?: Pick<FakeState, 'protocol'>): PaneInfo {
  const a = p.agent
  return {
    ...(isHerdr09(state) && p.restore_error !== undefined ? { restore_error: p.restore_error } : {}),
    pane_id: p.pane_id,
    terminal_id: p.terminal_id ?? `term_${p.pane_id.replace(/\W/g, '')}`,
    workspace_id: p.workspace_id,
    tab_id: p.tab_id,
    focused: p.focused ?? false,
    cwd: p.cwd,
    label: p.label,
    agent: a?.agent,
    title: a?.title,
    terminal_title: a?.terminal_title,
    terminal_title_stripped: a?.terminal_title_stripped,
    agent_status: a?.agent_status ?? 'unknown',
    agent_session: reportedSession(p),
    revision: a?.revision ?? 0,
  }
}

/** herdr's text format: rows right-trimmed, trailing blank rows dropped, final \n. */
function asScreenText(text: string): string {
  const rows = text.split('\n').map((r) => r.replace(/[ \u00a0]+$/, ''))
  while (rows.length && rows[rows.length - 1] === '') rows.pop()
  return rows.length ? rows.join('\n') + '\n' : ''
}

function readFileRel(base: string, f: string | undefined): string | undefined {
  if (f === undefined) return undefined
  try {
    return readFileSync(isAbsolute(f) ? f : join(base, f), 'utf8')
  } catch {
    return undefined
  }
}

/** Parses `--flag value` options after the positionals; undefined on a usage error. */
function parseOpts(args: string[], allowed: string[], bools: string[] = []) {
  const pos: string[] = []
  const opts: Record<string, string | true> = {}
  for (let i = 0; i < args.length; i++) {
    const a = args[i]
    if (a.startsWith('--')) {
      if (bools.includes(a)) opts[a] = true
      else if (allowed.includes(a)) {
        if (i + 1 >= args.length) return { error: `missing value for ${a}` }
        opts[a] = args[++i]
      } else return { error: `unknown option: ${a}` }
    } else pos.push(a)
  }
  return { pos, opts }
}

export function runFake(argv: string[], state: FakeState, base: string): { out: Out; changed: boolean } {
  let changed = false
  const [group, sub, ...rest] = argv
  const cmd = `${group ?? ''} ${sub ?? ''}`.trim()
  if (group === '--version' || group === '-V')
    return { out: { stdout: `herdr ${state.cli_version ?? state.version ?? '0.8.2'}\n`, stderr: '', code: 0 }, changed }
  const ids: Record<string, string> = {
    'agent get': 'cli:agent:get',
    'agent read': 'cli:agent:read',
    'agent send-keys': 'cli:agent:send-keys',
    'agent list': 'cli:agent:list',
    'api snapshot': 'cli:api:snapshot',
    'pane get': 'cli:pane:get',
    'pane read': 'cli:pane:read',
    'pane send-keys': 'cli:request',
    'pane send-text': 'cli:request',
    'pane run': 'cli:request',
    'workspace create': 'cli:workspace:create',
    'tab create': 'cli:tab:create',
    'agent start': 'cli:agent:start',
    'pane close': 'cli:pane:close',
  }
  const id = ids[cmd]
  if (!id) return { out: usage(`usage: herdr <command>\nunknown command: ${argv.join(' ')}`), changed }

  // Usage errors come before any server contact.
  const usages: Record<string, string> = {
    'agent get': 'usage: herdr agent get <target>',
    'agent read': 'usage: herdr agent read <target> [--source visible|recent|recent-unwrapped|detection] [--lines N] [--format text|ansi] [--ansi]',
    'agent send-keys': 'usage: herdr agent send-keys <target> <key> [key ...]',
    'agent list': 'usage: herdr agent list',
    'api snapshot': 'usage: herdr api snapshot',
    'pane get': 'usage: herdr pane get <pane_id>',
    'pane read': 'usage: herdr pane read <pane_id> [--source ...] [--lines N] [--format text|ansi] [--ansi] [--raw]',
    'pane send-keys': 'usage: herdr pane send-keys <pane_id> <key> [key ...]',
    'pane send-text': 'usage: herdr pane send-text <pane_id> <text...>',
    'pane run': 'usage: herdr pane run <pane_id> <command...>',
    'workspace create': 'usage: herdr workspace create [--cwd PATH] [--label TEXT] [--env KEY=VALUE]... [--focus|--no-focus]',
    'tab create': 'usage: herdr tab create [--workspace ID] [--cwd PATH] [--label TEXT] [--env KEY=VALUE]... [--focus|--no-focus]',
    'agent start': 'usage: herdr agent start <name> --kind KIND --pane ID [--timeout MS] [-- <agent-args...>]',
    'pane close': 'usage: herdr pane close <pane_id>',
  }
  const isRead = cmd === 'agent read' || cmd === 'pane read'
  // `agent start`: everything after `--` is the agent's own arguments
  const dd = cmd === 'agent start' ? rest.indexOf('--') : -1
  const agentArgs = dd >= 0 ? rest.slice(dd + 1) : []
  const words = dd >= 0 ? rest.slice(0, dd) : rest
  const parsed = isRead
    ? parseOpts(rest, ['--source', '--lines', '--format'], cmd === 'pane read' ? ['--ansi', '--raw'] : ['--ansi'])
    : cmd === 'workspace create' || cmd === 'tab create'
      ? parseOpts(words, ['--cwd', '--label', '--workspace', '--env'], ['--focus', '--no-focus'])
      : cmd === 'agent start'
        ? parseOpts(words, ['--kind', '--pane', '--timeout'], [])
        : { pos: rest, opts: {} as Record<string, string | true> }
  if ('error' in parsed) return { out: usage(parsed.error!), changed }
  const { pos, opts } = parsed as { pos: string[]; opts: Record<string, string | true> }
  const arity: Record<string, [number, number]> = {
    'agent get': [1, 1],
    'agent read': [1, 1],
    'agent send-keys': [2, Infinity],
    'agent list': [0, 0],
    'api snapshot': [0, 0],
    'pane get': [1, 1],
    'pane read': [1, 1],
    'pane send-keys': [2, Infinity],
    'pane send-text': [2, Infinity],
    'pane run': [2, Infinity],
    'workspace create': [0, 0],
    'tab create': [0, 0],
    'agent start': [1, 1],
    'pane close': [1, 1],
  }
  const [lo, hi] = arity[cmd]
  if (pos.length < lo || pos.length > hi) return { out: usage(usages[cmd]), changed }
  if (cmd === 'agent start') {
    if (opts['--kind'] === undefined) return { out: usage('missing required --kind'), changed }
    if (opts['--pane'] === undefined) return { out: usage('missing required --pane'), changed }
    if (!STARTABLE.includes(String(opts['--kind']))) return { out: usage(`unsupported interactive agent kind: ${opts['--kind']}`), changed }
  }

  if (state.hang?.some((h) => h === '*' || cmd.startsWith(h))) return { out: { stdout: '', stderr: '', code: 0, hang: true }, changed }
  if (state.server === 'not_running')
    return {
      out: structErr(id, 'server_not_running', 'no herdr server is running at /home/u/.config/herdr/herdr.sock; run `herdr` to start or attach it'),
      changed,
    }
  const mismatch = protocolMismatch(state)
  if (mismatch) return { out: structErr(id, 'protocol_mismatch', mismatch), changed }
  const forced = Object.entries(state.fail ?? {}).find(([k]) => k === '*' || cmd.startsWith(k))
  if (forced) return { out: err(id, forced[1].code, forced[1].message), changed }

  const panes = state.panes
  const byPane = (t: string) => panes.find((p) => p.pane_id === t)
  const agentPane = (t: string) => panes.find((p) => p.agent && (p.pane_id === t || p.agent.name === t))

  switch (cmd) {
    case 'agent get': {
      const p = agentPane(pos[0])
      if (!p) return { out: err(id, 'agent_not_found', `agent target ${pos[0]} not found`), changed }
      return { out: ok(id, { agent: agentInfo(p, state), type: 'agent_info' }), changed }
    }
    case 'agent list':
      return { out: ok(id, { agents: panes.filter((p) => p.agent).map((p) => agentInfo(p, state)), type: 'agent_list' }), changed }
    case 'pane get': {
      const p = byPane(pos[0])
      if (!p) return { out: err(id, 'pane_not_found', `pane ${pos[0]} not found`), changed }
      return { out: ok(id, { pane: paneInfo(p, state), type: 'pane_info' }), changed }
    }
    case 'agent read':
    case 'pane read': {
      const p = cmd === 'agent read' ? agentPane(pos[0]) : byPane(pos[0])
      if (!p)
        return {
          out: cmd === 'agent read' ? err(id, 'agent_not_found', `agent target ${pos[0]} not found`) : err(id, 'pane_not_found', `pane ${pos[0]} not found`),
          changed,
        }
      const source = (opts['--source'] as string | undefined) ?? 'recent'
      if (!['visible', 'recent', 'recent-unwrapped', 'recent_unwrapped', 'detection'].includes(source)) {
        const m = `invalid read source: ${source}`
        return { out: cmd === 'agent read' ? { stdout: '', stderr: `Error: Custom { kind: Other, error: "${m}" }\n`, code: 1 } : usage(m), changed }
      }
      const linesOpt = opts['--lines'] as string | undefined
      if (linesOpt !== undefined && !/^\d+$/.test(linesOpt)) {
        const m = `invalid lines value: ${linesOpt}`
        return { out: cmd === 'agent read' ? { stdout: '', stderr: `Error: Custom { kind: Other, error: "${m}" }\n`, code: 1 } : usage(m), changed }
      }
      const format = (opts['--format'] as string | undefined) ?? (opts['--ansi'] || opts['--raw'] ? 'ansi' : 'text')
      const altScreen = p.agent && ['claude', 'opencode'].includes(p.agent.agent)
      const recentish = source.startsWith('recent')
      if (cmd === 'agent read' && altScreen && linesOpt !== undefined && recentish && !['idle', 'done'].includes(p.agent!.agent_status))
        return {
          out: err(
            id,
            'agent_not_idle',
            `cannot read ${linesOpt} lines while ${p.pane_id} is ${p.agent!.agent_status}: its alternate-screen history can only be captured by scrolling while idle. Wait and retry, or use --source visible`,
          ),
          changed,
        }
      const visible = p.screen ?? readFileRel(base, p.screen_file) ?? ''
      let text: string
      if (format === 'ansi' && source !== 'detection') text = readFileRel(base, p.ansi_file) ?? visible
      else if (recentish) text = readFileRel(base, p.recent_file) ?? visible
      else text = visible
      text = withTyping(text, p)
      let rows = asScreenText(text).split('\n')
      if (rows[rows.length - 1] === '') rows.pop()
      const n = linesOpt !== undefined ? Math.min(Number(linesOpt), 1000) : recentish ? 80 : undefined
      if (n !== undefined) rows = rows.slice(Math.max(0, rows.length - n))
      return { out: { stdout: rows.length ? rows.join('\n') + '\n' : '', stderr: '', code: 0 }, changed }
    }
    case 'agent send-keys':
    case 'pane send-keys':
    case 'pane send-text':
    case 'pane run': {
      const target = pos[0]
      const isAgent = cmd === 'agent send-keys'
      const p = isAgent ? agentPane(target) : byPane(target)
      if (!p)
        return {
          out: isAgent ? err(id, 'agent_not_found', `agent target ${target} not found`) : err(id, 'pane_not_found', `pane ${target} not found`),
          changed,
        }
      const payload = pos.slice(1)
      if (cmd.endsWith('send-keys')) {
        const bad = payload.find((k) => !validKey(k))
        if (bad !== undefined) return { out: err(id, 'invalid_key', `unsupported key ${bad}`), changed }
      }
      const match = payload.join(' ')
      for (const r of state.reactions ?? []) {
        if (r.pane !== p.pane_id || r.match !== match) continue
        if (r.when !== undefined && p.screen_file !== r.when) continue
        if (!(r.on === 'send-keys' ? cmd.endsWith('send-keys') : !cmd.endsWith('send-keys'))) continue
        const { agent, ...paneFields } = r.set
        Object.assign(p, paneFields)
        if (agent && p.agent) Object.assign(p.agent, agent)
        if (!r.repeat) state.reactions = state.reactions!.filter((x) => x !== r)
        changed = true
        break
      }
      // No reaction: the terminal shows what was typed (panes that echo), Shift+Tab cycles the mode.
      if (!changed && cmd !== 'pane run') {
        const typed = typeInto(
          p,
          cmd.endsWith('send-keys') ? { keys: payload } : { text: payload.join(' ') },
          p.screen ?? readFileRel(base, p.screen_file) ?? '',
        )
        if (typed) {
          Object.assign(p, typed.typing)
          // a prompt submitted to an agent starts a turn
          if (typed.submittedPrompt !== undefined && p.agent && p.agent.agent_status !== 'working') {
            p.agent.agent_status = 'working'
            p.agent.state_change_seq = (p.agent.state_change_seq ?? 0) + 1
          }
          changed = true
        }
      }
      return { out: isAgent ? ok(id, { type: 'ok' }) : { stdout: '', stderr: '', code: 0 }, changed }
    }
    case 'api snapshot':
      return { out: ok(id, { snapshot: snapshotOf(state), type: 'session_snapshot' }), changed }
    case 'workspace create': {
      const ws = state.workspaces ?? (state.workspaces = [])
      const n = Math.max(0, ...ws.map((w) => Number(w.workspace_id.slice(1)) || 0), ...panes.map((p) => Number(p.workspace_id.slice(1)) || 0)) + 1
      const wid = `w${n}`
      const cwd = typeof opts['--cwd'] === 'string' ? opts['--cwd'] : '/home/u'
      const label = typeof opts['--label'] === 'string' ? opts['--label'] : String(n)
      const workspace: WorkspaceInfo = {
        workspace_id: wid,
        number: n,
        label,
        focused: false,
        pane_count: 1,
        tab_count: 1,
        active_tab_id: `${wid}:t1`,
        agent_status: 'unknown',
      }
      const tab: TabInfo = { tab_id: `${wid}:t1`, workspace_id: wid, number: 1, label: '1', focused: false, pane_count: 1, agent_status: 'unknown' }
      ws.push(workspace)
      ;(state.tabs ?? (state.tabs = [])).push(tab)
      const pane: FakePane = { pane_id: `${wid}:p1`, workspace_id: wid, tab_id: tab.tab_id, cwd, screen: '$ ' }
      panes.push(pane)
      changed = true
      return { out: ok(id, { root_pane: paneInfo(pane, state), tab, type: 'workspace_created', workspace }), changed }
    }
    case 'tab create': {
      const wid = typeof opts['--workspace'] === 'string' ? opts['--workspace'] : undefined
      const known = new Set([...(state.workspaces ?? []).map((w) => w.workspace_id), ...panes.map((p) => p.workspace_id)])
      if (!wid) return { out: err(id, 'workspace_not_found', 'no active workspace'), changed }
      if (!known.has(wid)) return { out: err(id, 'workspace_not_found', `workspace ${wid} not found`), changed }
      const tabs = state.tabs ?? (state.tabs = [])
      const n =
        Math.max(
          0,
          ...tabs.filter((t) => t.workspace_id === wid).map((t) => t.number ?? 0),
          ...panes.filter((p) => p.workspace_id === wid).map((p) => Number(p.tab_id.split(':t')[1]) || 0),
        ) + 1
      const tab: TabInfo = {
        tab_id: `${wid}:t${n}`,
        workspace_id: wid,
        number: n,
        label: typeof opts['--label'] === 'string' ? opts['--label'] : String(n),
        focused: false,
        pane_count: 1,
        agent_status: 'unknown',
      }
      tabs.push(tab)
      const pn = Math.max(0, ...panes.filter((p) => p.workspace_id === wid).map((p) => Number(p.pane_id.split(':p')[1]) || 0)) + 1
      const pane: FakePane = {
        pane_id: `${wid}:p${pn}`,
        workspace_id: wid,
        tab_id: tab.tab_id,
        cwd: typeof opts['--cwd'] === 'string' ? opts['--cwd'] : '/home/u',
        screen: '$ ',
      }
      panes.push(pane)
      changed = true
      return { out: ok(id, { root_pane: paneInfo(pane, state), tab, type: 'tab_created' }), changed }
    }
    case 'agent start': {
      const name = pos[0]!
      const kind = String(opts['--kind'])
      const paneId = String(opts['--pane'])
      if (!AGENT_NAME.test(name))
        return {
          out: err(id, 'invalid_agent_name', `invalid agent name ${name}: use 1-32 lower-case letters, digits, - or _, starting with a letter`),
          changed,
        }
      if (panes.some((p) => p.agent?.name === name)) return { out: err(id, 'agent_name_taken', `agent name ${name} is already in use`), changed }
      const p = byPane(paneId)
      if (!p) return { out: err(id, 'agent_pane_not_found', `agent target pane ${paneId} not found`), changed }
      if (p.agent) return { out: err(id, 'agent_pane_busy', `agent target pane ${paneId} is not an available shell`), changed }
      const timeout = opts['--timeout'] === undefined ? 30000 : Number(opts['--timeout'])
      if (!(timeout > 3000 && timeout <= 300000))
        return { out: err(id, 'invalid_agent_timeout', 'agent start timeout must be greater than 3000ms and at most 300000ms'), changed }
      const how = state.start?.[kind] ?? 'ready'
      const seq = Math.max(0, ...panes.map((x) => x.agent?.state_change_seq ?? 0)) + 1
      const argv = [kind, ...agentArgs]
      p.started_argv = argv
      changed = true
      if (how === 'exited') {
        // herdr clears the name as the process exits; the CLI, finding no agent by that name nor in
        // the pane, polls on to its deadline (herdr src/terminal/state.rs reconcile_managed_agent_at,
        // src/cli/agent.rs wait_for_named_agent): a timeout, the pane a shell again
        p.screen = `$ ${argv.join(' ')}\nError: ${kind} could not start\n$ `
        return { out: err(id, 'timeout', 'timed out waiting for agent startup'), changed }
      }
      if (how === 'not-on-path') {
        // the shell typed the command and said it has no such program: still a shell, no agent
        p.screen = `$ ${argv.join(' ')}\nbash: ${kind}: command not found\n$ `
        return { out: err(id, 'timeout', 'timed out waiting for agent startup'), changed }
      }
      if (how === 'timeout') {
        // the agent keeps running, unnamed
        p.agent = { agent: kind, agent_status: 'working', state_change_seq: seq } as FakePane['agent']
        return { out: err(id, 'timeout', 'timed out waiting for agent startup'), changed }
      }
      if (how === 'blocked') {
        p.agent = { agent: kind, name, agent_status: 'blocked', state_change_seq: seq, launch_pending: true } as FakePane['agent']
        if (state.blocked_screen_file) p.screen_file = state.blocked_screen_file
        return { out: err(id, 'agent_not_ready', `agent ${name} is blocked during startup and is not ready for prompts`), changed }
      }
      p.agent = { agent: kind, name, agent_status: 'idle', state_change_seq: seq, interactive_ready: true } as FakePane['agent']
      return { out: ok(id, { agent: agentInfo(p, state), argv, type: 'agent_started' }), changed }
    }
    case 'pane close': {
      const i = panes.findIndex((p) => p.pane_id === pos[0])
      if (i < 0) return { out: err(id, 'pane_not_found', `pane ${pos[0]} not found`), changed }
      panes.splice(i, 1)
      changed = true
      return { out: ok(id, { type: 'ok' }), changed }
    }
  }
  return { out: usage('usage: herdr <command>'), changed }
}

/** `session.snapshot` / `herdr api snapshot`'s result for a state. */
export function snapshotOf(state: FakeState) {
  const panes = state.panes
  return {
    agents: panes.filter((p) => p.agent).map((p) => agentInfo(p, state)),
    focused_pane_id: panes.find((p) => p.focused)?.pane_id,
    layouts: [],
    panes: panes.map((p) => paneInfo(p, state)),
    protocol: state.protocol ?? 20,
    tabs: state.tabs ?? [],
    version: state.version ?? '0.8.2',
    workspaces: state.workspaces ?? [],
  }
}
