// herdr's socket API (docs/reference/herdr-cli.md §8) for the fake herdr, driven by the same
// state file as the fake CLI: newline-delimited JSON on a unix socket, one request
// per connection, replies in struct order (`id` first, `type` first in `result`).
// `events.subscribe` keeps its connection and pushes events on a 100 ms tick, like
// herdr's hub: `pane.agent_status_changed` per subscribed pane (dot name, no `type`
// in data) and the generic snake_case events (`pane_created`, `pane_closed`,
// `pane_agent_detected`). Every request is appended to the fake's call log as
// `{"argv":["socket",<method>]}`, so tests count socket calls beside CLI calls.
// Tests start it in-process; `herdr server` in the fake CLI runs it in the foreground.
// The state's `protocol` picks herdr's release: 20 (0.8.2) or 22 (0.9.x: a larger
// `ping`, the 0.9.2 record fields, and `events_lost` on demand). Neither replays past
// events to a new subscriber: `subscription_started` comes first, then live events only.
import { appendFileSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { createServer, type Server, type Socket } from 'node:net'
import { agentInfo, isHerdr09, paneInfo, pingCapabilities, runFake, snapshotOf, type FakePane, type FakeState } from './fake-herdr'

export interface FakeHerdrSocketOptions {
  statePath: string
  socketPath: string
  logPath?: string
  /** herdr's event hub tick (100 ms) */
  tickMs?: number
}

export interface FakeHerdrSocket {
  /** open event subscriptions */
  subscribers(): number
  /** Writes a raw line to every open subscription: a frame herdr itself would not push (tests of the bridge's checks). */
  push(line: string): void
  /**
   * herdr 0.9.2's eviction of a subscriber that fell behind: every open subscription gets
   * its `events_lost` error line, then its connection closes (docs/reference/herdr-0.9.md §2.2).
   * Throws in the 0.8 mode, where herdr loses events silently.
   */
  loseEvents(): void
  /**
   * Holds the replies to the next requests of `method` (computed from the state when they
   * arrive, as herdr would) until release(): a test can change herdr while a reply is in flight.
   */
  hold(method: string): { reached: Promise<void>; release(): void }
  close(): Promise<void>
}

function readState(path: string): FakeState | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8'))
  } catch {
    return undefined
  }
}

/** What `pane.agent_status_changed` watches of a pane: status and the presentation fields. */
function statusKey(p: FakePane | undefined): string {
  if (!p) return ''
  const a = p.agent
  return JSON.stringify([a?.agent_status ?? 'unknown', a?.title, a?.display_agent, a?.state_labels])
}

export async function startFakeHerdrSocket(o: FakeHerdrSocketOptions): Promise<FakeHerdrSocket> {
  const tickMs = o.tickMs ?? 100
  /** open subscriptions: their socket → how to end them */
  const subs = new Map<Socket, () => void>()
  /** each subscription's request id (its events_lost line carries it) */
  const subIds = new Map<Socket, string>()
  /** held methods → the replies waiting */
  const holds = new Map<string, { waiting: (() => void)[]; reach: () => void }>()
  const heldSocks = new WeakMap<Socket, { waiting: (() => void)[]; reach: () => void }>()
  const endWith = (sock: Socket, line: string) => {
    const h = heldSocks.get(sock)
    if (!h) return void sock.end(line)
    h.waiting.push(() => sock.end(line))
    h.reach()
  }
  const log = (method: string) => {
    if (o.logPath) appendFileSync(o.logPath, JSON.stringify({ argv: ['socket', method] }) + '\n')
  }
  const reply = (sock: Socket, id: string, result: Record<string, unknown>) => endWith(sock, JSON.stringify({ id, result }) + '\n')
  const fail = (sock: Socket, id: string, code: string, message: string) => endWith(sock, JSON.stringify({ id, error: { code, message } }) + '\n')

  function subscribe(sock: Socket, id: string, list: unknown) {
    const state = readState(o.statePath)
    if (!state || !Array.isArray(list)) return fail(sock, id, 'invalid_request', 'invalid request: subscriptions')
    const statusPanes = new Set<string>()
    const generic = new Set<string>()
    for (const [i, s] of list.entries()) {
      const sub = s as { type?: string; pane_id?: string }
      if (sub.type === 'pane.agent_status_changed') {
        if (!state.panes.some((p) => p.pane_id === sub.pane_id)) return fail(sock, `${id}:sub:${i}:probe`, 'pane_not_found', `pane ${sub.pane_id} not found`)
        statusPanes.add(sub.pane_id!)
      } else if (typeof sub.type === 'string') generic.add(sub.type)
      else return fail(sock, id, 'invalid_request', 'invalid request: subscription type')
    }
    sock.write(JSON.stringify({ id, result: { type: 'subscription_started' } }) + '\n')
    subIds.set(sock, id)
    let last = new Map(state.panes.map((p) => [p.pane_id, p]))
    const tick = () => {
      const now = readState(o.statePath)
      if (!now) return
      const cur = new Map(now.panes.map((p) => [p.pane_id, p]))
      const out: unknown[] = []
      for (const [pid, p] of cur) {
        const before = last.get(pid)
        if (!before && generic.has('pane.created')) out.push({ event: 'pane_created', data: { type: 'pane_created', pane: paneInfo(p, now) } })
        if (before && (before.agent?.agent ?? '') !== (p.agent?.agent ?? '') && generic.has('pane.agent_detected'))
          out.push({
            event: 'pane_agent_detected',
            data: p.agent
              ? { type: 'pane_agent_detected', pane_id: pid, workspace_id: p.workspace_id, agent: p.agent.agent }
              : {
                  type: 'pane_agent_detected',
                  pane_id: pid,
                  workspace_id: p.workspace_id,
                  agent: before.agent!.agent,
                  released: true,
                  final_status: before.agent!.agent_status,
                },
          })
        if (before && statusPanes.has(pid) && statusKey(before) !== statusKey(p)) {
          const a = p.agent
          out.push({
            event: 'pane.agent_status_changed',
            data: { pane_id: pid, workspace_id: p.workspace_id, agent_status: a?.agent_status ?? 'unknown', agent: a?.agent, title: a?.title },
          })
        }
      }
      for (const [pid, p] of last)
        if (!cur.has(pid) && generic.has('pane.closed'))
          out.push({ event: 'pane_closed', data: { type: 'pane_closed', pane_id: pid, workspace_id: p.workspace_id } })
      last = cur
      if (out.length && !sock.destroyed) sock.write(out.map((e) => JSON.stringify(e)).join('\n') + '\n')
    }
    const timer = setInterval(tick, tickMs)
    const end = () => {
      clearInterval(timer)
      subs.delete(sock)
      subIds.delete(sock)
      sock.destroy()
    }
    subs.set(sock, end)
    sock.on('close', end)
    sock.on('error', end)
  }

  /**
   * `pane.send_text`: the same rules, errors and reactions as `herdr pane
   * send-text` (runFake), logged as that command's argv so tests read one call log.
   */
  function sendText(sock: Socket, id: string, params: Record<string, unknown>) {
    const argv = ['pane', 'send-text', String(params.pane_id ?? ''), String(params.text ?? '')]
    if (o.logPath) appendFileSync(o.logPath, JSON.stringify({ argv, via: 'socket' }) + '\n')
    const state = readState(o.statePath)
    if (!state) return fail(sock, id, 'internal', 'fake herdr: cannot read state')
    const { out, changed } = runFake(argv, state, dirname(o.statePath))
    if (out.hang) return // never answers
    if (changed) {
      const tmp = `${o.statePath}.${process.pid}.sock.tmp`
      writeFileSync(tmp, JSON.stringify(state, null, 1))
      renameSync(tmp, o.statePath)
    }
    if (out.code !== 0) {
      let e: { code?: string; message?: string } | undefined
      try {
        e = JSON.parse(out.stderr.split('\n')[0]).error
      } catch {}
      return fail(sock, id, e?.code ?? 'invalid_request', e?.message ?? out.stderr.trim())
    }
    return reply(sock, id, { type: 'ok' })
  }

  function handle(sock: Socket, line: string) {
    let req: { id?: unknown; method?: unknown; params?: Record<string, unknown> }
    try {
      req = JSON.parse(line)
    } catch {
      return fail(sock, '', 'invalid_request', 'invalid request: expected JSON')
    }
    const id = typeof req.id === 'string' ? req.id : ''
    const method = typeof req.method === 'string' ? req.method : ''
    if (method === 'pane.send_text') return sendText(sock, id, req.params ?? {})
    log(method)
    const state = readState(o.statePath)
    if (!state) return fail(sock, id, 'internal', 'fake herdr: cannot read state')
    if (state.hang?.some((h) => h === '*' || h === `socket ${method}`)) return // never answers
    const params = req.params ?? {}
    const held = holds.get(method)
    if (held) heldSocks.set(sock, held)
    switch (method) {
      case 'ping':
        return reply(sock, id, {
          type: 'pong',
          version: state.version ?? '0.8.2',
          protocol: state.protocol ?? 20,
          capabilities: pingCapabilities(state),
        })
      case 'session.snapshot':
        return reply(sock, id, { type: 'session_snapshot', snapshot: snapshotOf(state) })
      case 'agent.list':
        return reply(sock, id, { type: 'agent_list', agents: state.panes.filter((p) => p.agent).map((p) => agentInfo(p, state)) })
      case 'agent.get': {
        const t = params.target
        const p = state.panes.find((x) => x.agent && (x.pane_id === t || x.agent.name === t))
        if (!p) return fail(sock, id, 'agent_not_found', `agent target ${String(t)} not found`)
        return reply(sock, id, { type: 'agent_info', agent: agentInfo(p, state) })
      }
      case 'events.subscribe':
        return subscribe(sock, id, params.subscriptions)
      case 'pane.send_input': {
        // a bracketed paste: logged with its text; a path to an image or PDF pasted into an agent shows its placeholder
        const pane = String(params.pane_id ?? '')
        const text = String(params.text ?? '')
        if (o.logPath) appendFileSync(o.logPath, JSON.stringify({ argv: ['pane', 'send-input', pane, text], via: 'socket' }) + '\n')
        const p = state.panes.find((x) => x.pane_id === pane)
        if (!p) return fail(sock, id, 'pane_not_found', 'pane not found')
        const ext = /\.(png|jpe?g|gif|webp|pdf)$/i.exec(text.trim())?.[1]?.toLowerCase()
        if (p.agent && ext && text.trim().startsWith('/')) {
          const n = (p.pasted ?? 0) + 1
          p.pasted = n
          const chip = p.agent.agent === 'opencode' ? (ext === 'pdf' ? `[PDF ${n}]` : `[Image ${n}]`) : `[Image #${n}]`
          p.typed = `${p.typed ?? ''}${chip} `
          p.echo ??= 'composer'
        } else p.typed = `${p.typed ?? ''}${text}`
        const tmp = `${o.statePath}.${process.pid}.sock.tmp`
        writeFileSync(tmp, JSON.stringify(state, null, 1))
        renameSync(tmp, o.statePath)
        return reply(sock, id, { type: 'ok' })
      }
      case 'agent.prompt': {
        // logged with its text, as `pane.send_text` is, so tests can see what the agent was asked
        const t = params.target
        if (o.logPath) appendFileSync(o.logPath, JSON.stringify({ argv: ['agent', 'prompt', String(t), String(params.text ?? '')], via: 'socket' }) + '\n')
        const p = state.panes.find((x) => x.agent && (x.pane_id === t || x.agent.name === t))
        if (!p?.agent) return fail(sock, id, 'agent_not_found', `agent target ${String(t)} not found`)
        if (typeof params.text !== 'string' || params.text === '') return fail(sock, id, 'empty_agent_prompt', 'agent prompt text must not be empty')
        if (p.agent.launch_pending) return fail(sock, id, 'agent_not_ready', `agent ${String(t)} is not an active named agent`)
        if (p.agent.agent_status === 'blocked') return fail(sock, id, 'agent_blocked', `agent ${String(t)} is blocked and requires interactive input`)
        p.agent.agent_status = 'working'
        p.agent.state_change_seq = (p.agent.state_change_seq ?? 0) + 1
        const tmp = `${o.statePath}.${process.pid}.sock.tmp`
        writeFileSync(tmp, JSON.stringify(state, null, 1))
        renameSync(tmp, o.statePath)
        return reply(sock, id, { type: 'agent_prompted', agent: agentInfo(p, state) })
      }
      default:
        return fail(sock, '', 'invalid_request', `invalid request: unknown method ${method}`)
    }
  }

  if (existsSync(o.socketPath)) rmSync(o.socketPath)
  const open = new Set<Socket>()
  const server: Server = createServer((sock) => {
    open.add(sock)
    sock.on('close', () => open.delete(sock))
    let buf = ''
    let got = false
    sock.on('error', () => {})
    sock.on('data', (d) => {
      if (got) return // one request per connection
      buf += d.toString()
      const i = buf.indexOf('\n')
      if (i < 0) return
      got = true
      handle(sock, buf.slice(0, i))
    })
  })
  await new Promise<void>((res, rej) => {
    server.once('error', rej)
    server.listen(o.socketPath, () => res())
  })
  return {
    subscribers: () => subs.size,
    push(line) {
      for (const sock of subs.keys()) if (!sock.destroyed) sock.write(line + '\n')
    },
    loseEvents() {
      if (!isHerdr09(readState(o.statePath))) throw new Error('fake herdr: events_lost exists from herdr 0.9.2 (protocol 22)')
      for (const [sock, end] of [...subs]) {
        const id = subIds.get(sock) ?? ''
        const line = {
          id,
          error: { code: 'events_lost', message: 'event subscription fell behind retained history; resubscribe and resync with session.snapshot' },
        }
        sock.end(JSON.stringify(line) + '\n', () => end())
      }
    },
    hold(method) {
      let reach!: () => void
      const reached = new Promise<void>((r) => (reach = r))
      const h = { waiting: [] as (() => void)[], reach }
      holds.set(method, h)
      return {
        reached,
        release() {
          if (holds.get(method) === h) holds.delete(method)
          for (const w of h.waiting.splice(0)) w()
        },
      }
    },
    async close() {
      for (const end of [...subs.values()]) end()
      // server.close waits for every connection: end them all (a request may be mid-reply)
      const closed = new Promise<void>((res) => server.close(() => res()))
      for (const sock of open) sock.destroy()
      await closed
      if (existsSync(o.socketPath)) rmSync(o.socketPath)
    },
  }
}
