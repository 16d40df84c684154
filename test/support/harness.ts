// Starts the real app on port 0 against the fake herdr (fixtures/herdr/herdr)
// and a fixture HOME, and gives tests what they need to drive and observe it.
import { mkdtempSync, readFileSync, writeFileSync, existsSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createApp, type AppDeps, type Timing } from '../../src/app'
import { createAuthStore } from '../../src/auth/store'
import { createHerdrClient, type HerdrClient } from '../../src/herdr/client'
import type { FakePane, FakeState } from '../../src/demo/fake-herdr'
import type { AgentHomes } from '../../src/transcript/source'
import type { AgentInfo } from '../../src/herdr/types'
import { createLogger } from '../../src/server/log'
import { startFakeHerdrSocket, type FakeHerdrSocket } from '../../src/demo/fake-herdr-socket'
import { createPushStore } from '../../src/push/store'
import { createAuditLog } from '../../src/audit/log'
import { createAttachmentStore } from '../../src/attachments/store'
import { loadOrCreateVapidKeys } from '../../src/push/vapid'
import { inHerdrMode } from './herdr-modes'

export const ROOT = resolve(import.meta.dir, '../..')
export const FAKE_HERDR = join(ROOT, 'fixtures/herdr/herdr')
export const ADMIN = 'test-admin-token'

export interface BridgeOptions {
  state?: FakeState
  homes?: Partial<AgentHomes>
  timing?: Partial<Timing>
  herdrTimeoutMs?: number
  /** a herdr path other than the fake (e.g. a missing one) */
  herdrBin?: string
  deps?: Partial<AppDeps>
  /** wraps the fake herdr's client (to hold, delay or record calls) */
  wrapHerdr?: (client: HerdrClient) => HerdrClient
  /** also serve herdr's socket API from the fake state (else the watcher polls the CLI) */
  herdrSocket?: boolean
  /** Web Push on (VAPID keys in the test dir, subscriptions in its database), with these sender settings */
  push?: NonNullable<AppDeps['push']>['sender'] | true
  /** with push: panes turning blocked within this many ms make one notification (default the spec's 5 s) */
  pushCoalesceMs?: number
  /** failed herdr calls go to `logs` as main.ts logs them (`herdr failed …`, `herdr server needs a restart …`) */
  logHerdrFailures?: boolean
}

export interface Bridge {
  base: string
  wsBase: string
  dir: string
  statePath: string
  /** the structured log lines (JSON objects), oldest first */
  logLines: Record<string, unknown>[]
  logs: string[]
  /** the fake's recorded invocations (argv) */
  calls(): string[][]
  state(): FakeState
  setState(s: FakeState): void
  updatePane(pane: string, f: (p: FakePane) => void): void
  get(path: string, token?: string | null): Promise<Response>
  post(path: string, body: unknown, token?: string | null): Promise<Response>
  /** GET, and the JSON body */
  json(path: string, token?: string | null): Promise<any>
  stop(): Promise<void>
  app: ReturnType<typeof createApp>
  /** the fake's socket API (typed text goes there; the watcher uses it with `herdrSocket`) */
  socket?: FakeHerdrSocket
  socketPath: string
}

export function tempDir(prefix = 'gothalo-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

export function homesIn(home: string, over: Partial<AgentHomes> = {}): AgentHomes {
  return {
    home,
    claudeDir: join(home, '.claude'),
    piDir: join(home, '.pi', 'agent'),
    xdgStateHome: join(home, '.local', 'state'),
    xdgDataHome: join(home, '.local', 'share'),
    ...over,
  }
}

export async function startBridge(o: BridgeOptions = {}): Promise<Bridge> {
  const dir = tempDir()
  const statePath = join(dir, 'herdr-state.json')
  const logPath = join(dir, 'herdr-calls.jsonl')
  // the herdr release of the running pass (herdr-modes.ts), unless the state names one
  writeFileSync(statePath, JSON.stringify(inHerdrMode(o.state ?? { panes: [] })))
  const logs: string[] = []
  const logLines: Record<string, unknown>[] = []
  const home = join(dir, 'home')
  mkdirSync(home, { recursive: true })
  const auth = createAuthStore({ dbPath: join(dir, 'gothalo.db'), adminToken: ADMIN })
  const audit = createAuditLog(join(dir, 'gothalo.db'))
  const attachments = createAttachmentStore(join(dir, 'attachments'), join(dir, 'gothalo.db'))
  const socketPath = join(dir, 'herdr.sock')
  // Always served: typed text reaches herdr only through its socket. The watcher uses it only when asked.
  const socket = await startFakeHerdrSocket({ statePath, socketPath, logPath })
  const pushStore = o.push ? createPushStore(join(dir, 'gothalo.db')) : undefined
  const app = createApp({
    audit,
    attachments,
    push: pushStore
      ? {
          store: pushStore,
          vapid: loadOrCreateVapidKeys(dir).keys,
          subject: 'mailto:test@example.com',
          sender: o.push === true ? undefined : o.push,
          coalesceMs: o.pushCoalesceMs,
        }
      : undefined,
    herdrSocket: o.herdrSocket ? socketPath : undefined,
    herdr: (o.wrapHerdr ?? ((c) => c))(
      createHerdrClient({
        bin: o.herdrBin ?? FAKE_HERDR,
        timeoutMs: o.herdrTimeoutMs ?? 5000,
        env: { ...process.env, FAKE_HERDR_BUN: process.execPath, FAKE_HERDR_STATE: statePath, FAKE_HERDR_LOG: logPath, HERDR_SOCKET_PATH: socketPath },
        onFailure: o.logHerdrFailures
          ? (f) => logs.push(`${f.code === 'protocol_mismatch' ? 'herdr server needs a restart' : 'herdr failed'}: ${f.message}`)
          : undefined,
      }),
    ),
    auth,
    homes: homesIn(home, o.homes),
    version: 'test',
    timing: o.timing,
    log: (m) => logs.push(m),
    // the structured log (access lines, events) is kept, not printed: tests read it
    logger: createLogger({ level: 'debug', format: 'json', write: (l) => logLines.push(JSON.parse(l)) }),
    ...o.deps,
  }).listen({ port: 0, hostname: '127.0.0.1' })
  const base = `http://127.0.0.1:${app.server!.port}`
  const authHeader = (token: string | null | undefined): Record<string, string> => (token === null ? {} : { authorization: `Bearer ${token ?? ADMIN}` })
  const b: Bridge = {
    base,
    wsBase: base.replace('http', 'ws'),
    dir,
    statePath,
    logs,
    logLines,
    app,
    socket,
    socketPath,
    calls() {
      if (!existsSync(logPath)) return []
      return readFileSync(logPath, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).argv)
    },
    state: () => JSON.parse(readFileSync(statePath, 'utf8')),
    setState(s) {
      writeFileSync(statePath + '.tmp', JSON.stringify(inHerdrMode(s)))
      require('node:fs').renameSync(statePath + '.tmp', statePath)
    },
    updatePane(pane, f) {
      const s = b.state()
      const p = s.panes.find((x) => x.pane_id === pane)
      if (!p) throw new Error(`no pane ${pane} in fake state`)
      f(p)
      b.setState(s)
    },
    get: (path, token) => fetch(base + path, { headers: authHeader(token) }),
    json: async (path, token) => (await fetch(base + path, { headers: authHeader(token) })).json(),
    post: (path, body, token) =>
      fetch(base + path, {
        method: 'POST',
        headers: { ...authHeader(token), 'content-type': 'application/json' },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    async stop() {
      await app.stop(true)
      await socket?.close()
      pushStore?.close()
      audit.close()
      attachments.close()
      auth.close()
    },
  }
  return b
}

/** Pairs a device through the API; returns its id and token. */
export async function pairDevice(b: Bridge, name = 'phone', scopes?: string[]): Promise<{ device_id: string; token: string }> {
  const { code } = (await (await b.post('/pair/code', scopes ? { scopes } : {})).json()) as { code: string }
  const r = await b.post('/pair', { code, device_name: name }, null)
  if (r.status !== 200) throw new Error(`pairing failed: ${r.status} ${await r.text()}`)
  return (await r.json()) as { device_id: string; token: string }
}

/**
 * Wraps a herdr client (for `wrapHerdr`) so calls to `method` wait at a gate: `reached` resolves
 * when the first such call arrives, `open()` lets every held call through.
 */
export function gatedHerdr(inner: HerdrClient, method: keyof HerdrClient) {
  let openGate!: () => void
  const gate = new Promise<void>((r) => (openGate = r))
  let reach!: () => void
  const reached = new Promise<void>((r) => (reach = r))
  const client = new Proxy(inner, {
    get(target, prop, recv) {
      const v = Reflect.get(target, prop, recv)
      if (prop !== method || typeof v !== 'function') return v
      return async (...args: unknown[]) => {
        reach()
        await gate
        return (v as (...a: unknown[]) => unknown).apply(target, args)
      }
    },
  })
  return { client, reached, open: () => openGate() }
}

export type PaneOver = Omit<Partial<FakePane>, 'agent'> & { agent?: Partial<AgentInfo> }

/** A pane in the fake running an agent of `kind` (idle unless `over` says otherwise): the one pane builder the tests share. */
export function fakePane(kind: string, over: PaneOver = {}): FakePane {
  const { agent, ...rest } = over
  return {
    pane_id: 'w1:p2',
    workspace_id: 'w1',
    tab_id: 'w1:t1',
    cwd: '/home/me/proj',
    ...rest,
    agent: { agent: kind, agent_status: 'idle', state_change_seq: 7, ...(agent ?? {}) } as FakePane['agent'],
  }
}

/** A claude pane in the fake, with its screen from a fixture file. */
export const claudePane = (over: PaneOver = {}): FakePane => fakePane('claude', over)

import { waitFor } from './wait'
export { waitFor }

export const WS_HANDSHAKE = {
  upgrade: 'websocket',
  connection: 'Upgrade',
  'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
  'sec-websocket-version': '13',
}

/** A WebSocket client that queues frames so tests can await them in order. */
export class FrameQueue {
  readonly ws: WebSocket
  private frames: unknown[] = []
  private waiters: ((f: unknown) => void)[] = []
  readonly opened: Promise<void>
  readonly closed: Promise<{ code: number; reason: string }>
  constructor(url: string, opts?: { headers?: Record<string, string>; binary?: boolean }) {
    this.ws = new WebSocket(url, opts?.headers ? ({ headers: opts.headers } as any) : undefined)
    this.ws.binaryType = 'arraybuffer'
    this.opened = new Promise((res, rej) => {
      this.ws.onopen = () => res()
      this.ws.onerror = (e) => rej(new Error(`socket error: ${(e as any).message ?? 'handshake failed'}`))
    })
    this.closed = new Promise((res) => {
      this.ws.onclose = (e) => res({ code: e.code, reason: e.reason })
    })
    this.ws.onmessage = (e) => {
      const f = typeof e.data === 'string' ? JSON.parse(e.data) : new Uint8Array(e.data as ArrayBuffer)
      const w = this.waiters.shift()
      if (w) w(f)
      else this.frames.push(f)
    }
  }
  /** The next frame, in order. */
  next(ms = 5000): Promise<any> {
    const f = this.frames.shift()
    if (f !== undefined) return Promise.resolve(f)
    return new Promise((res, rej) => {
      const t = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== done)
        rej(new Error('timed out waiting for a frame'))
      }, ms)
      const done = (x: unknown) => {
        clearTimeout(t)
        res(x)
      }
      this.waiters.push(done)
    })
  }
  /** Frames until (and including) the first that satisfies `stop`. */
  async until(stop: (f: any) => boolean, ms = 5000): Promise<any[]> {
    const out: any[] = []
    for (;;) {
      const f = await this.next(ms)
      out.push(f)
      if (stop(f)) return out
    }
  }
  pending(): number {
    return this.frames.length
  }
  send(data: string | Uint8Array) {
    this.ws.send(data)
  }
  close() {
    this.ws.close()
  }
}

/** The URL a bridge started as its own process (the CLI) records in its data dir's bridge.json, once it listens. */
export function bridgeUrlIn(dataDir: string, ms = 10_000): Promise<string> {
  return waitFor(
    () => {
      try {
        return JSON.parse(readFileSync(join(dataDir, 'bridge.json'), 'utf8')).url as string
      } catch {
        return undefined
      }
    },
    ms,
    'the bridge to listen',
  )
}
