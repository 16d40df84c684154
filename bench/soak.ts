// The soak of issue 43, bounded: the real app in its own bridge process (the
// fake herdr, its socket, a temp Claude home with big sessions), loopback only,
// and here, for SECONDS (default 60; `bun bench/soak.ts 180` for the issue's
// three minutes) or until each loop has made its count:
//   30 /agent-transcript clients reconnecting, 30% of them dropped without a
//      close frame (a TCP reset or a FIN) at a random moment of their backlog,
//      the rest reading to backlog_complete, asking a page, closing with 1000;
//   10 /events clients reconnecting (resuming from their last seq), 30% dropped;
//   2 /attach sessions, typing a little, closed or dropped;
//   one HTTP loop over the third wave's routes (projects, changes, files,
//      usage, audit, devices, an attachment sent to an agent, a shell's /send).
// Then the load stops and the bridge is asked what it still holds:
//   sockets held after their client left, 1 s later (registry)   target 0
//   sockets closed by the 60 s "stopped reading" rule            target 0
//   descriptors at idle, after vs before (the session files:
//      none held; all descriptors: no more than before + 2)      target as said
//   5xx answers                                                  target 0
//   RSS at idle before, peak, after                              printed
// The floor for descriptors and RSS is the same bridge at idle before the load.
import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { check, finish, info, loadNote } from './verdict'

const ROOT = resolve(import.meta.dir, '..')
const FAKE_HERDR = join(ROOT, 'fixtures/herdr/herdr')
const ADMIN = 'bench-admin-token'
const CWD = '/tmp/gothalo-soak/proj'
const SESSIONS = 3
const sidOf = (i: number) => `50a50a50-0000-4000-8000-${String(i).padStart(12, '0')}`

interface ServeConfig {
  dir: string
  claudeDir: string
  statePath: string
  files: string[]
}

// ── the bridge (child process) ──────────────────────────────────────────────

async function serve(cfg: ServeConfig): Promise<void> {
  const { createApp } = await import('../src/app')
  const { createAuthStore } = await import('../src/auth/store')
  const { createHerdrClient } = await import('../src/herdr/client')
  const { createAuditLog } = await import('../src/audit/log')
  const { createAttachmentStore } = await import('../src/attachments/store')
  const { startFakeHerdrSocket } = await import('../src/demo/fake-herdr-socket')
  const { createLogger } = await import('../src/server/log')
  const socketPath = join(cfg.dir, 'herdr.sock')
  await startFakeHerdrSocket({ statePath: cfg.statePath, socketPath })
  const db = join(cfg.dir, 'gothalo.db')
  /** the socket close lines, as the log has them */
  const closes: { socket: string; code: number; seconds: number }[] = []
  const app = createApp({
    logger: createLogger({
      level: 'info',
      format: 'json',
      write: (l) => {
        const o = JSON.parse(l)
        if (o.msg === 'socket close') closes.push({ socket: o.socket, code: o.code, seconds: o.seconds })
      },
    }),
    herdr: createHerdrClient({
      bin: FAKE_HERDR,
      timeoutMs: 10_000,
      env: { ...process.env, FAKE_HERDR_BUN: process.execPath, FAKE_HERDR_STATE: cfg.statePath, HERDR_SOCKET_PATH: socketPath },
    }),
    herdrSocket: socketPath,
    auth: createAuthStore({ dbPath: db, adminToken: ADMIN }),
    audit: createAuditLog(db),
    attachments: createAttachmentStore(join(cfg.dir, 'attachments'), db),
    homes: { home: cfg.dir, claudeDir: cfg.claudeDir, piDir: join(cfg.dir, 'pi'), xdgStateHome: join(cfg.dir, 'state'), xdgDataHome: join(cfg.dir, 'data') },
    projectRoots: [cfg.dir],
    version: 'bench',
    log: () => {},
    timing: { attachPollMs: 250 },
  }).listen({ port: 0, hostname: '127.0.0.1' })
  const rss = () => process.memoryUsage().rss / 1048576
  let peak = rss()
  setInterval(() => (peak = Math.max(peak, rss())), 50)
  const fds = () => {
    const all = readdirSync('/proc/self/fd')
    let session = 0
    for (const fd of all) {
      try {
        if (cfg.files.includes(readlinkSync(`/proc/self/fd/${fd}`))) session++
      } catch {}
    }
    return { fds: all.length, session_fds: session }
  }
  process.on('message', (m: { id: number }) => {
    process.send!({
      id: m.id,
      reply: {
        open: app.decorator.sockets.open(),
        tailers: app.decorator.counters.jsonl.activeTailers,
        ...fds(),
        rss_mb: rss(),
        peak_mb: peak,
        closes,
      },
    })
  })
  process.send!({ ready: true, port: app.server!.port })
}

// ── the clients (parent) ────────────────────────────────────────────────────

/** A masked client frame: text (0x1) or close (0x8). */
function clientFrame(payload: Buffer, op = 0x1): Buffer {
  const mask = randomBytes(4)
  const len = payload.length
  const head = len < 126 ? Buffer.from([0x80 | op, 0x80 | len]) : Buffer.from([0x80 | op, 0x80 | 126, len >> 8, len & 255])
  return Buffer.concat([head, mask, Buffer.from(payload.map((c, i) => c ^ mask[i % 4]))])
}
const textFrame = (s: string) => clientFrame(Buffer.from(s))
const closeFrame = () => clientFrame(Buffer.from([0x03, 0xe8]), 0x8)

/** A WebSocket client by hand over TCP, so it can leave without a close frame for real. */
class RawClient {
  readonly sock: Socket
  private buf: Buffer = Buffer.alloc(0)
  private upgraded = false
  texts: any[] = []
  binaries = 0
  ended: Promise<void>
  onFrame: (() => void) | null = null
  constructor(port: number, path: string) {
    this.sock = connect(port, '127.0.0.1')
    this.sock.on('error', () => {})
    this.ended = new Promise((res) => this.sock.on('close', () => res()))
    this.sock.on('data', (d: Buffer) => {
      this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d
      if (!this.upgraded) {
        const end = this.buf.indexOf('\r\n\r\n')
        if (end < 0) return
        if (!this.buf.subarray(0, 12).toString().startsWith('HTTP/1.1 101')) return void this.sock.destroy()
        this.upgraded = true
        this.buf = this.buf.subarray(end + 4)
      }
      this.take()
      this.onFrame?.()
    })
    this.sock.write(
      `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    )
  }
  private take(): void {
    let at = 0
    const b = this.buf
    for (;;) {
      if (b.length - at < 2) break
      const op = b[at]! & 0x0f
      let len = b[at + 1]! & 0x7f
      let off = at + 2
      if (len === 126) {
        if (b.length - at < 4) break
        len = b.readUInt16BE(at + 2)
        off = at + 4
      } else if (len === 127) {
        if (b.length - at < 10) break
        len = Number(b.readBigUInt64BE(at + 2))
        off = at + 10
      }
      if (b.length < off + len) break
      if (op === 1) this.texts.push(JSON.parse(b.toString('utf8', off, off + len)))
      else if (op === 2) this.binaries++
      else if (op === 8) this.sock.end()
      at = off + len
    }
    this.buf = b.subarray(at)
  }
  /** Resolves once `f` holds (checked on every frame), or false after ms. */
  until(f: () => boolean, ms = 20_000): Promise<boolean> {
    if (f()) return Promise.resolve(true)
    return new Promise((res) => {
      const t = setTimeout(() => ((this.onFrame = null), res(false)), ms)
      this.onFrame = () => {
        if (!f()) return
        clearTimeout(t)
        this.onFrame = null
        res(true)
      }
    })
  }
  send(s: string): void {
    this.sock.write(textFrame(s))
  }
  /** Leaves as a phone on a flaky network does: a reset or a FIN, never a close frame. */
  drop(): void {
    if (Math.random() < 0.5) this.sock.resetAndDestroy()
    else this.sock.destroy()
  }
  async close(): Promise<void> {
    this.sock.write(closeFrame())
    await Promise.race([this.ended, Bun.sleep(3000)])
    this.sock.destroy()
  }
}

const sleep = (ms: number) => Bun.sleep(ms)
const between = (a: number, b: number) => a + Math.random() * (b - a)

async function main() {
  const seconds = Number(process.argv[2] ?? 60)
  const dir = mkdtempSync(join(tmpdir(), 'gothalo-soak-'))
  try {
    // Big sessions: a newest page of 150 entries of ~6 KB, so a backlog takes a while.
    const claudeDir = join(dir, 'claude')
    const proj = join(claudeDir, 'projects', CWD.replace(/[/.]/g, '-'))
    mkdirSync(proj, { recursive: true })
    const files: string[] = []
    for (let s = 0; s < SESSIONS; s++) {
      const lines: string[] = []
      for (let i = 1; i <= 2000; i++)
        lines.push(
          JSON.stringify({
            type: 'assistant',
            uuid: `s${s}u${i}`,
            timestamp: '2026-12-02T10:00:00.000Z',
            message: { role: 'assistant', content: [{ type: 'text', text: `${i} ${'x'.repeat(6000)}` }] },
          }),
        )
      const f = join(proj, `${sidOf(s)}.jsonl`)
      writeFileSync(f, lines.join('\n') + '\n')
      files.push(f)
    }
    // A project with git for /changes and /files.
    const repo = join(dir, 'repo')
    mkdirSync(repo)
    writeFileSync(join(repo, 'a.txt'), 'one\n')
    Bun.spawnSync(['git', 'init', '-q'], { cwd: repo })
    Bun.spawnSync(['git', '-c', 'user.email=b@x', '-c', 'user.name=b', 'commit', '-qam', 'x', '--allow-empty'], { cwd: repo })
    Bun.spawnSync(['git', 'add', 'a.txt'], { cwd: repo })
    writeFileSync(join(repo, 'a.txt'), 'one\ntwo\n')
    const pane = (i: number, over: Record<string, unknown>) => ({ pane_id: `w1:p${i}`, workspace_id: 'w1', tab_id: 'w1:t1', ...over })
    const statePath = join(dir, 'state.json')
    writeFileSync(
      statePath,
      JSON.stringify({
        panes: [
          ...Array.from({ length: SESSIONS }, (_, s) =>
            pane(s + 1, {
              cwd: CWD,
              screen: '❯ \n',
              agent: {
                agent: 'claude',
                agent_status: 'working',
                state_change_seq: 1,
                agent_session: { agent: 'claude', kind: 'id', source: 'herdr:claude', value: sidOf(s) },
              },
            }),
          ),
          pane(SESSIONS + 1, { cwd: repo, screen: '> ', agent: { agent: 'pi', agent_status: 'idle', state_change_seq: 1 } }),
          pane(SESSIONS + 2, { cwd: repo, screen: 'me@box:~$ \n' }),
        ],
      }),
    )
    const piPane = `w1:p${SESSIONS + 1}`
    const shellPane = `w1:p${SESSIONS + 2}`

    // the bridge
    let ready!: (m: { port: number }) => void
    const readyP = new Promise<{ port: number }>((r) => (ready = r))
    const pending = new Map<number, (r: any) => void>()
    let nextId = 1
    const proc = Bun.spawn([process.execPath, import.meta.path, '--serve', JSON.stringify({ dir, claudeDir, statePath, files } satisfies ServeConfig)], {
      stdio: ['ignore', 'inherit', 'inherit'],
      ipc(m: any) {
        if (m.ready) ready(m)
        else pending.get(m.id)?.(m.reply), pending.delete(m.id)
      },
    })
    const { port } = await readyP
    const ask = (): Promise<any> => new Promise((r) => (pending.set(nextId, r), proc.send({ id: nextId++ })))
    const base = `http://127.0.0.1:${port}`
    const http = (path: string, init: RequestInit = {}) =>
      fetch(base + path, { ...init, headers: { authorization: `Bearer ${ADMIN}`, connection: 'close', ...(init.headers ?? {}) } })

    // the idle floor: every session read once (its index built, its fd let go), a second to settle
    for (let s = 0; s < SESSIONS; s++) {
      const c = new RawClient(port, `/agent-transcript?pane=w1:p${s + 1}&token=${ADMIN}`)
      await c.until(() => c.texts.some((f) => f.type === 'backlog_complete'), 60_000)
      await c.close()
    }
    await sleep(1000)
    const before = await ask()

    const stats = {
      transcriptOpens: 0,
      transcriptHellos: 0,
      transcriptDropped: 0,
      eventsOpens: 0,
      eventsHellos: 0,
      eventsResumedOk: 0,
      eventsDropped: 0,
      attachOpens: 0,
      requests: 0,
      fivexx: 0,
    }
    const statuses = new Map<number, number>()
    const until = Date.now() + seconds * 1000
    const going = () => Date.now() < until
    const MAX_ROUNDS = 2000 // per loop: bounded in count as in time

    const transcriptLoop = async (k: number) => {
      for (let round = 0; round < MAX_ROUNDS && going(); round++) {
        const c = new RawClient(port, `/agent-transcript?pane=w1:p${(k % SESSIONS) + 1}&token=${ADMIN}`)
        stats.transcriptOpens++
        if (Math.random() < 0.3) {
          // dropped mid-backlog: right after the 101 or a little later
          await c.until(() => c.texts.length > 0, 10_000)
          if (c.texts[0]?.type === 'hello') stats.transcriptHellos++
          await sleep(between(0, 150))
          c.drop()
          stats.transcriptDropped++
        } else {
          await c.until(() => c.texts.some((f) => f.type === 'backlog_complete'), 30_000)
          if (c.texts[0]?.type === 'hello') stats.transcriptHellos++
          const oldest = c.texts[0]?.oldest_loaded_seq
          if (oldest > 1) {
            c.send(JSON.stringify({ type: 'load_older', before_seq: oldest, limit: 50 }))
            await c.until(() => c.texts.some((f) => f.type === 'page_complete'), 30_000)
          }
          await c.close()
        }
        await sleep(between(20, 200))
      }
    }
    const eventsLoop = async () => {
      let since: string | undefined
      for (let round = 0; round < MAX_ROUNDS && going(); round++) {
        const c = new RawClient(port, `/events?token=${ADMIN}${since ? `&since=${since}` : ''}`)
        stats.eventsOpens++
        await c.until(() => c.texts.length > 0, 10_000)
        const hello = c.texts[0]
        if (hello?.type === 'hello') {
          stats.eventsHellos++
          if (since && hello.resume === 'ok') stats.eventsResumedOk++
          since = `${hello.epoch}:${hello.seq}`
        }
        await sleep(between(200, 1500))
        const last = c.texts.at(-1)
        if (last?.seq !== undefined && last.type !== 'hello') since = `${hello.epoch}:${last.seq}`
        if (Math.random() < 0.3) {
          c.drop()
          stats.eventsDropped++
        } else await c.close()
        await sleep(between(20, 200))
      }
    }
    const attachLoop = async () => {
      for (let round = 0; round < MAX_ROUNDS && going(); round++) {
        const c = new RawClient(port, `/attach?pane=${shellPane}&token=${ADMIN}`)
        stats.attachOpens++
        await c.until(() => c.binaries > 0, 10_000)
        c.send('echo soak\r')
        await sleep(between(300, 1500))
        if (Math.random() < 0.3) c.drop()
        else await c.close()
        await sleep(between(50, 300))
      }
    }
    const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d494844520000000100000001', 'hex'), Buffer.alloc(40)])
    const routes: (() => Promise<Response>)[] = [
      () => http('/snapshot'),
      () => http(`/agent-state?pane=w1:p1`),
      () => http(`/usage?pane=w1:p1`),
      () => http('/projects'),
      () => http(`/changes?pane=${piPane}`),
      () => http(`/changes/diff?pane=${piPane}&path=a.txt`),
      () => http(`/files?pane=${piPane}&path=a.txt`),
      () => http('/audit?limit=20'),
      () => http('/devices'),
      () => http('/devices/me'),
      async () => {
        const up = await http(`/attachments?pane=${piPane}`, { method: 'POST', headers: { 'content-type': 'image/png' }, body: PNG })
        if (up.status !== 201) return up
        const { id } = (await up.json()) as { id: string }
        return http('/send', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ pane: piPane, text: 'look\n', attachments: [id] }),
        })
      },
      () => http('/send', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pane: shellPane, text: 'true\n' }) }),
    ]
    const httpLoop = async () => {
      for (let round = 0; round < MAX_ROUNDS && going(); round++) {
        for (const r of routes) {
          const res = await r()
          await res.arrayBuffer()
          stats.requests++
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
          if (res.status >= 500) stats.fivexx++
        }
      }
    }
    const t0 = performance.now()
    let loadPeak = before.rss_mb
    const sampler = setInterval(async () => (loadPeak = Math.max(loadPeak, (await ask()).peak_mb)), 1000)
    await Promise.all([
      ...Array.from({ length: 30 }, (_, k) => transcriptLoop(k)),
      ...Array.from({ length: 10 }, () => eventsLoop()),
      attachLoop(),
      attachLoop(),
      httpLoop(),
    ])
    clearInterval(sampler)
    const ran = (performance.now() - t0) / 1000
    // the clients are all gone: a second later the bridge must hold none of theirs
    await sleep(1000)
    const after1 = await ask()
    await sleep(4000)
    const after5 = await ask()
    proc.kill()
    await proc.exited

    const timerCloses = after5.closes.filter((c: { seconds: number; code: number }) => c.seconds >= 59 && c.code === 1006).length
    console.log(
      JSON.stringify({
        bench: 'soak',
        seconds: +ran.toFixed(1),
        ...stats,
        statuses: Object.fromEntries(statuses),
        close_lines: after5.closes.length,
        close_lines_events: after5.closes.filter((c: { socket: string }) => c.socket === 'events').length,
        idle_before: { fds: before.fds, session_fds: before.session_fds, rss_mb: +before.rss_mb.toFixed(1) },
        after_1s: { sockets: after1.open, tailers: after1.tailers, fds: after1.fds, session_fds: after1.session_fds, rss_mb: +after1.rss_mb.toFixed(1) },
        after_5s: { sockets: after5.open, fds: after5.fds, session_fds: after5.session_fds, rss_mb: +after5.rss_mb.toFixed(1) },
        peak_mb: +Math.max(loadPeak, after5.peak_mb).toFixed(1),
      }),
    )
    console.log(`soak: ${ran.toFixed(0)} s, ${loadNote()}`)
    info(
      'load',
      `${stats.transcriptOpens} transcript opens (${stats.transcriptDropped} dropped without a close frame, ${stats.transcriptHellos} hellos), ` +
        `${stats.eventsOpens} /events opens (${stats.eventsDropped} dropped, ${stats.eventsResumedOk} resumed ok), ${stats.attachOpens} /attach, ${stats.requests} requests`,
    )
    check('sockets held 1 s after their client left', after1.open === 0, `${after1.open} (tails ${after1.tailers})`, '0')
    check('sockets let go only by the 60 s stopped-reading rule', timerCloses === 0, String(timerCloses), '0')
    check('session-file descriptors held 1 s after', after1.session_fds === 0, String(after1.session_fds), `0 (idle before: ${before.session_fds})`)
    check(
      'descriptors at idle, after vs before',
      after5.fds <= before.fds + 2,
      `${after1.fds} after 1 s, ${after5.fds} after 5 s`,
      `≤ ${before.fds} + 2 (idle before)`,
    )
    check('5xx answers', stats.fivexx === 0, String(stats.fivexx), '0')
    info(
      'RSS',
      `idle before ${before.rss_mb.toFixed(1)} MB, peak ${Math.max(loadPeak, after5.peak_mb).toFixed(1)} MB, 1 s after ${after1.rss_mb.toFixed(1)} MB, 5 s after ${after5.rss_mb.toFixed(1)} MB`,
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  finish('soak')
}

if (process.argv[2] === '--serve') await serve(JSON.parse(process.argv[3]!) as ServeConfig)
else await main()
