// Two or three real bridges on one machine: a home bridge that merges the others
// (its machines.json in a data dir of its own), each with its own fake herdr and HOME.
import type { ServerWebSocket } from 'bun'
import { createHash } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { createServer, type Socket } from 'node:net'
import { join } from 'node:path'
import { runMachinesCommand } from '../../src/cli/machines'
import { parseSettings } from '../../src/cli/config'
import type { FakePane } from '../../src/demo/fake-herdr'
import type { TunnelOptions } from '../../src/machines/ssh'
import { pairDevice, startBridge, tempDir, type Bridge, type BridgeOptions } from '../support/harness'

export interface Home extends Bridge {
  dataDir: string
}

export async function startHome(panes: FakePane[], o: BridgeOptions = {}, tunnel?: TunnelOptions, silenceMs?: number): Promise<Home> {
  const dataDir = join(tempDir('gothalo-home-'), 'data')
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const b = await startBridge({
    state: { panes },
    herdrSocket: true,
    ...o,
    deps: { machines: { dataDir, pollMs: 50, backoffMs: { min: 50, max: 400 }, tunnel, silenceMs }, ...o.deps },
  })
  return Object.assign(b, { dataDir })
}

/** `gothalo machines add LABEL <remote> --code <a code made there>`, as the shell would run it. */
export async function addMachine(home: Home, label: string, remote: Bridge, scopes?: string[]): Promise<string[]> {
  const { code } = (await (await remote.post('/pair/code', scopes ? { scopes } : {})).json()) as { code: string }
  const lines: string[] = []
  const exit = await runMachinesCommand(
    parseSettings(['machines', 'add', label, remote.base, '--code', code, '--data-dir', home.dataDir], { HOME: '/nonexistent' }),
    (l) => lines.push(l),
  )
  if (exit !== 0) throw new Error(lines.join('\n'))
  return lines
}

export async function removeMachine(home: Home, label: string): Promise<void> {
  const exit = await runMachinesCommand(parseSettings(['machines', 'remove', label, '--data-dir', home.dataDir], { HOME: '/nonexistent' }), () => {})
  if (exit !== 0) throw new Error(`remove ${label} failed`)
}

export { pairDevice }

/** A socket route of a fake remote (WS /agent-transcript, WS /attach): what it does when opened, sent to, closed. */
export interface RemoteSocket {
  open(ws: ServerWebSocket<{ path: string }>): void
  message?(ws: ServerWebSocket<{ path: string }>, m: string | Buffer): void
  close?(ws: ServerWebSocket<{ path: string }>, code: number, reason: string): void
}

/**
 * A remote that speaks enough of a bridge to be online (/healthz, WS /events with
 * one pane) and then misbehaves on the routes `answers` names: garbage, a hang,
 * an answer cut off mid-way.
 */
export function fakeRemote(answers: Record<string, (req: Request) => Response | Promise<Response>>, socketRoutes: Record<string, RemoteSocket> = {}) {
  const sockets = new Set<{ close(code?: number, reason?: string): void }>()
  const server = Bun.serve<{ path: string }>({
    hostname: '127.0.0.1',
    port: 0,
    fetch(req, srv) {
      const url = new URL(req.url)
      if (url.pathname === '/pair') return Response.json({ device_id: 'dev_home', token: 'tok_home' })
      if (url.pathname === '/healthz') return Response.json({ ok: true, version: 'fake' })
      if (url.pathname === '/events' || socketRoutes[url.pathname])
        return srv.upgrade(req, { data: { path: url.pathname } }) ? undefined : new Response('no', { status: 400 })
      const a = answers[url.pathname]
      return a ? a(req) : new Response('not found', { status: 404, headers: { 'content-type': 'text/plain' } })
    },
    websocket: {
      open(ws) {
        const route = socketRoutes[ws.data.path]
        if (route) return route.open(ws)
        sockets.add(ws)
        const pane = { pane_id: 'w1:p1', workspace_id: 'w1', tab_id: 'w1:t1', workspace_label: 'w', tab_label: 't', focused: false, agent_status: 'idle' }
        ws.send(JSON.stringify({ type: 'hello', protocol: 1, epoch: 'e1', seq: 0, resume: 'new', panes: [pane] }))
      },
      message(ws, m) {
        socketRoutes[ws.data.path]?.message?.(ws, m)
      },
      close(ws, code, reason) {
        sockets.delete(ws)
        socketRoutes[ws.data.path]?.close?.(ws, code, reason)
      },
    },
  })
  return {
    base: `http://127.0.0.1:${server.port}`,
    /** drops every /events socket (the remote going away mid-stream) */
    dropSockets: () => {
      for (const s of sockets) s.close(1001, 'going away')
    },
    stop: () => server.stop(true),
  }
}

/**
 * A remote bridge over raw TCP: answers /healthz, says hello on /events and then nothing more (no
 * frame, no ping: a peer gone without a FIN), upgrades WS /agent-transcript and never reads it.
 */
export function deafRemote() {
  const conns = new Set<Socket>()
  let upgraded!: (s: Socket) => void
  const transcript = new Promise<Socket>((r) => (upgraded = r))
  const server = createServer((sock) => {
    conns.add(sock)
    sock.on('error', () => {})
    sock.once('data', (d: Buffer) => {
      const head = d.toString('latin1')
      const path = head.split(' ')[1] ?? ''
      const key = /sec-websocket-key:\s*(\S+)/i.exec(head)?.[1]
      if (key && (path.startsWith('/agent-transcript') || path.startsWith('/events'))) {
        const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64')
        sock.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`)
        if (path.startsWith('/events')) {
          const hello = Buffer.from(JSON.stringify({ type: 'hello', protocol: 1, epoch: 'e1', seq: 0, resume: 'new', panes: [] }))
          sock.write(Buffer.concat([Buffer.from([0x81, hello.length]), hello]))
        } else {
          sock.pause() // never reads what the phone types
          upgraded(sock)
        }
        return
      }
      const body = path.startsWith('/healthz') ? '{"ok":true,"version":"fake"}' : 'not found'
      sock.end(
        `HTTP/1.1 ${path.startsWith('/healthz') ? 200 : 404} OK\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
      )
    })
  })
  const listening = new Promise<number>((r) => server.listen(0, '127.0.0.1', () => r((server.address() as { port: number }).port)))
  return {
    listening,
    transcript,
    stop: () => {
      for (const c of conns) c.destroy()
      server.close()
    },
  }
}
