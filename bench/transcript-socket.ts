// Measures WS /agent-transcript end to end: the real app (createApp) with the
// fake herdr executable, a temp CLAUDE_CONFIG_DIR holding generated 10 MB and
// 100 MB Claude Code sessions that herdr reports for two panes, and WebSocket
// clients. The bridge runs in a child process (this file with --serve), so its
// RSS is the bridge's alone; the parent is the client and asks the child for
// jsonlDebug() and RSS over IPC.
//   bun bench/transcript-socket.ts [MB ...]      (default: 10 100)
// In one run, against a floor measured in the same run (stream the file in
// 2 MiB chunks, JSON.parse every line), per size:
//   cold   connect → backlog_complete, index not cached     (target ≤ 1.5× floor)
//   warm   reconnect → backlog_complete, index cached        (target < 50 ms, flat)
//   deep   load_older of 150 entries deep in the file, warm  (target < 20 ms)
//   tail   append → live entry frame, ~50 appends            (target p50 < 50 ms)
//   rss    bridge RSS growth while serving the file          (target < 64 MB)
//   fan    200 sockets on the largest file: one index, one tailer, RSS per socket
// Every connect runs `herdr agent get` (the fake is a Bun script: ~30 ms a spawn,
// where the real CLI is a native binary); that cost is measured in the bridge
// on its own and reported beside the figures, which include it; so is the
// engine alone in the bridge (cold index + newest 150, no socket), to show
// where a cold connect's time goes. SOCKET_BENCH_TRACE=1 prints, per connect,
// the time to the upgrade (herdr + locate + index) and to backlog_complete.
// Generated files go to /tmp. Prints one JSON line, then a readable summary.
import { appendFileSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { generateTranscript } from './gen-transcript'
import { floor, median } from './floor'

const ROOT = resolve(import.meta.dir, '..')
const FAKE_HERDR = join(ROOT, 'fixtures/herdr/herdr')
const ADMIN = 'bench-admin-token'
const CWD = '/tmp/gothalo-socket-bench/proj'
const sidOf = (mb: number) => `5e55105e-0000-4000-8000-${String(mb).padStart(12, '0')}`
const paneOf = (i: number) => `w1:p${i + 1}`

// ── the bridge (child process) ──────────────────────────────────────────────

interface ServeConfig {
  dir: string
  claudeDir: string
  statePath: string
}

type Ask = { id: number; cmd: 'debug' | 'drop' | 'peak-reset' | 'herdr' | 'build'; pane?: string; path?: string }

async function serve(cfg: ServeConfig): Promise<void> {
  const { createApp } = await import('../src/app')
  const { createAuthStore } = await import('../src/auth/store')
  const { createHerdrClient } = await import('../src/herdr/client')
  const { acquireJsonlTimeline, dropJsonlCache, jsonlDebug } = await import('../src/transcript/jsonl/timeline')
  const { countClaudeLine, normalizeClaudeLine } = await import('../src/transcript/kinds/claude/normalize')
  const herdrEnv = { ...process.env, FAKE_HERDR_BUN: process.execPath, FAKE_HERDR_STATE: cfg.statePath, CANNED_DIR: join(cfg.dir, 'canned') }
  // BENCH_HERDR=fake runs the Bun-script fake (~25 ms a spawn, a whole 10 MB floor by itself);
  // the default is a canned shell stand-in whose spawn costs what a native CLI's does.
  const bin = process.env.BENCH_HERDR === 'fake' ? FAKE_HERDR : join(cfg.dir, 'canned', 'herdr')
  const herdr = () => createHerdrClient({ bin, timeoutMs: 10_000, env: herdrEnv })
  const auth = createAuthStore({ dbPath: join(cfg.dir, 'gothalo.db'), adminToken: ADMIN })
  const logs: string[] = []
  const home = join(cfg.dir, 'home')
  const app = createApp({
    herdr: herdr(),
    auth,
    homes: {
      home,
      claudeDir: cfg.claudeDir,
      piDir: join(home, '.pi', 'agent'),
      xdgStateHome: join(home, '.local', 'state'),
      xdgDataHome: join(home, '.local', 'share'),
    },
    version: 'bench',
    log: (m) => logs.length < 100 && logs.push(m),
  }).listen({ port: 0, hostname: '127.0.0.1' })

  const rss = () => process.memoryUsage().rss / 1048576
  let peak = rss()
  setInterval(() => (peak = Math.max(peak, rss())), 5)
  const probe = herdr()
  process.on('message', async (m: Ask) => {
    let reply: unknown
    if (m.cmd === 'drop') reply = (dropJsonlCache(), jsonlDebug())
    else if (m.cmd === 'peak-reset') {
      Bun.gc(true)
      reply = { rss_mb: (peak = rss()) }
    } else if (m.cmd === 'herdr') {
      const times: number[] = []
      for (let i = 0; i < 5; i++) {
        const t0 = performance.now()
        await probe.agentGet(m.pane!)
        times.push(performance.now() - t0)
      }
      reply = { herdr_ms: median(times) }
    } else if (m.cmd === 'build') {
      // The engine alone, in the bridge: cold index + newest 150, as the Claude source opens it.
      const times: number[] = []
      for (let i = 0; i < 3; i++) {
        dropJsonlCache()
        const t0 = performance.now()
        const tl = await acquireJsonlTimeline(m.path!, normalizeClaudeLine, { count: countClaudeLine })
        await tl.read(Math.max(1, tl.total() - 149), tl.total())
        times.push(performance.now() - t0)
        tl.release()
      }
      dropJsonlCache()
      reply = { build_ms: median(times) }
    } else {
      Bun.gc(true)
      reply = { rss_mb: rss(), peak_mb: Math.max(peak, rss()), heap_mb: process.memoryUsage().heapUsed / 1048576, jsonl: jsonlDebug(), logs: logs.slice(-5) }
    }
    process.send!({ id: m.id, reply })
  })
  process.send!({ ready: true, port: app.server!.port })
}

// ── measuring (parent) ──────────────────────────────────────────────────────

const ms = (t0: number) => performance.now() - t0
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!
const r1 = (x: number) => +x.toFixed(1)
const r2 = (x: number) => +x.toFixed(2)

/** A WebSocket client that hands frames to whoever waits for them. */
class Client {
  readonly ws: WebSocket
  readonly opened: Promise<void>
  readonly closed: Promise<void>
  private frames: any[] = []
  private waiter: ((f: any) => void) | null = null
  /** called on every frame as it arrives (before queueing) */
  onFrame: ((f: any) => void) | null = null
  constructor(url: string, keep = true) {
    this.ws = new WebSocket(url)
    this.opened = new Promise((res, rej) => {
      this.ws.onopen = () => res()
      this.ws.onerror = () => rej(new Error('socket error'))
    })
    this.closed = new Promise((res) => (this.ws.onclose = () => res()))
    this.ws.onmessage = (e) => {
      const f = JSON.parse(e.data as string)
      this.onFrame?.(f)
      if (!keep) return
      if (this.waiter) {
        const w = this.waiter
        this.waiter = null
        w(f)
      } else this.frames.push(f)
    }
  }
  next(timeoutMs = 30_000): Promise<any> {
    const f = this.frames.shift()
    if (f !== undefined) return Promise.resolve(f)
    return new Promise((res, rej) => {
      const t = setTimeout(() => rej(new Error('timed out waiting for a frame')), timeoutMs)
      this.waiter = (x) => {
        clearTimeout(t)
        res(x)
      }
    })
  }
  async until(stop: (f: any) => boolean): Promise<any[]> {
    const out: any[] = []
    for (;;) {
      const f = await this.next()
      out.push(f)
      if (stop(f)) return out
    }
  }
  async close(): Promise<void> {
    this.ws.close(1000)
    await this.closed
  }
}

async function main() {
  const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0)
  if (sizes.length === 0) sizes.push(10, 100)

  // A temp CLAUDE_CONFIG_DIR with one session per size, and herdr reporting each on its own pane.
  const dir = mkdtempSync(join(tmpdir(), 'gothalo-socket-bench-'))
  const claudeDir = join(dir, 'claude')
  const projDir = join(claudeDir, 'projects', CWD.replace(/[^A-Za-z0-9]/g, '-'))
  mkdirSync(projDir, { recursive: true })
  const files = sizes.map((mb) => {
    const cached = `/tmp/gothalo-bench-${mb}.jsonl`
    if (!existsSync(cached) || statSync(cached).size < mb * 1048576) generateTranscript(mb, cached)
    const path = join(projDir, `${sidOf(mb)}.jsonl`)
    copyFileSync(cached, path) // a private copy: the tail test appends to it
    return path
  })
  const statePath = join(dir, 'herdr-state.json')
  const panes = sizes.map((mb, i) => ({
    pane_id: paneOf(i),
    workspace_id: 'w1',
    tab_id: 'w1:t1',
    cwd: CWD,
    agent: { agent: 'claude', agent_status: 'idle', state_change_seq: 1, agent_session: { agent: 'claude', kind: 'id', source: 'herdr:claude', value: sidOf(mb) } },
  }))
  writeFileSync(statePath, JSON.stringify({ panes }))
  // The canned stand-in: `agent get <pane>` answered from the fake's own output, rendered once.
  const canned = join(dir, 'canned')
  mkdirSync(canned)
  const { runFake } = await import('../src/demo/fake-herdr')
  for (const p of panes) writeFileSync(join(canned, `get-${p.pane_id.replace(':', '_')}.json`), runFake(['agent', 'get', p.pane_id], { panes } as any, dir).out.stdout)
  writeFileSync(
    join(canned, 'herdr'),
    `#!/bin/sh\ncase "$1 $2" in\n  "agent get") f="$CANNED_DIR/get-$(printf %s "$3" | tr : _).json"; [ -f "$f" ] && exec cat "$f"\n    printf '{"error":{"code":"agent_not_found","message":"agent target %s not found"},"id":"cli:agent:get"}\\n' "$3" >&2; exit 1;;\n  *) echo "usage: herdr" >&2; exit 2;;\nesac\n`,
    { mode: 0o755 },
  )

  let nextId = 1
  const pending = new Map<number, (r: any) => void>()
  let ready!: (port: number) => void
  const portP = new Promise<number>((res) => (ready = res))
  const child = Bun.spawn([process.execPath, import.meta.path, '--serve', JSON.stringify({ dir, claudeDir, statePath } satisfies ServeConfig)], {
    stdio: ['ignore', 'inherit', 'inherit'],
    ipc(m: any) {
      if (m.ready) ready(m.port)
      else pending.get(m.id)?.(m.reply), pending.delete(m.id)
    },
  })
  const ask = (cmd: Ask['cmd'], extra: Partial<Ask> = {}): Promise<any> =>
    new Promise((res) => {
      const id = nextId++
      pending.set(id, res)
      child.send({ id, cmd, ...extra })
    })
  const port = await portP
  const url = (pane: string) => `ws://127.0.0.1:${port}/agent-transcript?pane=${pane}&token=${ADMIN}`
  /** Connect and read the opening sequence: time to backlog_complete, and the hello. */
  const opening = async (pane: string) => {
    const t0 = performance.now()
    const c = new Client(url(pane))
    await c.opened
    const upgraded = ms(t0)
    const frames = await c.until((f) => f.type === 'backlog_complete')
    const took = ms(t0)
    if (process.env.SOCKET_BENCH_TRACE) console.log(`opening ${pane}: upgraded ${upgraded.toFixed(1)} ms, backlog_complete ${took.toFixed(1)} ms`)
    const hello = frames[0]
    if (hello.type !== 'hello') throw new Error(`first frame is ${hello.type}: ${JSON.stringify(hello).slice(0, 200)}`)
    const entries = frames.filter((f) => f.type === 'entry')
    if (entries.length !== Math.min(150, hello.total)) throw new Error(`newest page has ${entries.length} entries`)
    return { c, took, hello }
  }
  const released = async () => {
    for (let i = 0; i < 500; i++) {
      if ((await ask('debug')).jsonl.heldFiles === 0) return
      await Bun.sleep(10)
    }
    throw new Error('sockets were not released')
  }

  const results: Record<string, unknown>[] = []
  const rssStart = (await ask('debug')).rss_mb as number
  const herdrMs = (await ask('herdr', { pane: paneOf(0) })).herdr_ms as number
  let fan: Record<string, unknown> | undefined
  try {
    for (let i = 0; i < sizes.length; i++) {
      const mb = sizes[i]!
      const path = files[i]!
      const pane = paneOf(i)
      const bytes = statSync(path).size
      await floor(path) // warm the page cache for everyone alike
      const floorMs = median([await floor(path), await floor(path), await floor(path)])

      // cold: no index cached. The first one also runs in a bridge whose code
      // for this size has not run yet (JIT tiers, first-touch allocations):
      // reported on its own; the figure is the median of the 3 after it.
      const cold: number[] = []
      let coldFirst = 0
      let rssBefore = 0
      let rssPeak = 0
      let total = 0
      for (let k = 0; k < 4; k++) {
        await released()
        await ask('drop')
        if (k === 0) rssBefore = (await ask('peak-reset')).rss_mb
        const o = await opening(pane)
        if (k === 0) coldFirst = o.took
        else cold.push(o.took)
        total = o.hello.total
        if (k === 0) rssPeak = (await ask('debug')).peak_mb
        await o.c.close()
      }

      // warm ×5: the released index is cached, a reconnect verifies and extends it
      const warm: number[] = []
      for (let k = 0; k < 5; k++) {
        await released()
        const builds = (await ask('debug')).jsonl.indexBuilds
        const o = await opening(pane)
        warm.push(o.took)
        if ((await ask('debug')).jsonl.indexBuilds !== builds) throw new Error('warm reconnect rebuilt the index')
        await o.c.close()
      }

      const buildMs = (await ask('build', { path })).build_ms as number

      // one socket held: deep pages, then the live tail
      const { c } = await opening(pane)
      const deep: number[] = []
      for (let k = 0; k < 9; k++) {
        const before = Math.floor(total * (0.05 + k * 0.05)) + 150
        const t0 = performance.now()
        c.ws.send(JSON.stringify({ type: 'load_older', before_seq: before, limit: 150 }))
        const frames = await c.until((f) => f.type === 'page_complete')
        deep.push(ms(t0))
        const entries = frames.filter((f) => f.type === 'entry')
        if (entries.length !== 150 || entries[0].entry.seq !== before - 150) throw new Error(`deep page is wrong (${entries.length} entries)`)
      }

      const lat: number[] = []
      for (let k = 0; k < 50; k++) {
        const uuid = crypto.randomUUID()
        const line = JSON.stringify({ parentUuid: null, type: 'assistant', uuid, timestamp: new Date().toISOString(), message: { role: 'assistant', content: [{ type: 'text', text: `tail ${k}` }] } })
        const t0 = performance.now()
        appendFileSync(path, line + '\n')
        for (;;) {
          const f = await c.next()
          if (f.type === 'entry' && f.live && f.entry.id === `${uuid}#0`) break
        }
        lat.push(ms(t0))
        await Bun.sleep(5 + ((k * 37) % 40)) // appends spread over the poll phase, not in lockstep with it
      }
      const serving = await ask('debug')

      results.push({
        mb,
        bytes,
        entries: total,
        floor_ms: r1(floorMs),
        cold_ms: r1(median(cold)),
        cold_all_ms: cold.map(r1),
        cold_first_ms: r1(coldFirst),
        cold_over_floor: r2(median(cold) / floorMs),
        cold_without_herdr_over_floor: r2((median(cold) - herdrMs) / floorMs),
        engine_cold_in_bridge_ms: r1(buildMs),
        warm_ms: r1(median(warm)),
        warm_max_ms: r1(Math.max(...warm)),
        warm_without_herdr_ms: r1(median(warm) - herdrMs),
        deep_page_ms: r2(median(deep)),
        deep_page_max_ms: r2(Math.max(...deep)),
        tail_p50_ms: r1(pct(lat, 0.5)),
        tail_p95_ms: r1(pct(lat, 0.95)),
        rss_growth_cold_peak_mb: r1(rssPeak - rssBefore),
        rss_growth_serving_mb: r1(serving.rss_mb - rssBefore),
        rss_serving_over_bridge_start_mb: r1(serving.rss_mb - rssStart),
      })

      if (i === sizes.length - 1) {
        // 200 sockets on this one file
        const before = await ask('debug')
        const many: Client[] = []
        const t0 = performance.now()
        for (let k = 0; k < 200; k += 10) {
          const batch = await Promise.all(Array.from({ length: 10 }, () => opening(pane)))
          for (const o of batch) many.push(o.c)
        }
        const openMs = ms(t0)
        const after = await ask('debug')
        // one append reaches every socket
        const uuid = crypto.randomUUID()
        const reached = Promise.all(
          many.map(
            (m) =>
              new Promise<number>((res) => {
                m.onFrame = (f) => f.type === 'entry' && f.live && f.entry.id === `${uuid}#0` && res(performance.now())
              }),
          ),
        )
        const t1 = performance.now()
        appendFileSync(path, JSON.stringify({ parentUuid: null, type: 'assistant', uuid, timestamp: new Date().toISOString(), message: { role: 'assistant', content: [{ type: 'text', text: 'fan-out' }] } }) + '\n')
        const times = await reached
        fan = {
          mb,
          sockets: 200,
          // the held socket above plus the 200
          held_files: after.jsonl.heldFiles,
          active_tailers: after.jsonl.activeTailers,
          index_builds_during: after.jsonl.indexBuilds - before.jsonl.indexBuilds,
          index_kb: r1(after.jsonl.indexBytes / 1024),
          open_200_ms: r1(openMs),
          per_socket_open_ms: r2(openMs / 200),
          per_socket_rss_kb: r1(((after.rss_mb - before.rss_mb) * 1024) / 200),
          per_socket_heap_kb: r2(((after.heap_mb - before.heap_mb) * 1024) / 200),
          append_to_all_200_ms: r1(Math.max(...times) - t1),
        }
        await Promise.all(many.map((m) => m.close()))
      }
      await c.close()
    }
  } finally {
    child.kill()
    await child.exited
    rmSync(dir, { recursive: true, force: true })
  }

  const out = { bench: 'transcript-socket', herdr_agent_get_ms: r1(herdrMs), bridge_rss_start_mb: r1(rssStart), results, fan }
  console.log(JSON.stringify(out))
  console.log('')
  console.log(`herdr agent get (${process.env.BENCH_HERDR === "fake" ? "the Bun-script fake herdr" : "a canned shell stand-in, a native CLI's spawn cost"}; in every connect below): ${out.herdr_agent_get_ms} ms`)
  for (const r of results as any[]) {
    console.log(`${r.mb} MB (${r.entries} entries), through WS /agent-transcript`)
    console.log(`  floor (stream + JSON.parse every line)   ${r.floor_ms} ms`)
    console.log(`  cold connect → backlog_complete          ${r.cold_ms} ms (median of ${r.cold_all_ms.join(', ')}; first of all ${r.cold_first_ms}) = ${r.cold_over_floor}× floor; ${r.cold_without_herdr_over_floor}× without the herdr call   (target ≤ 1.5×)`)
    console.log(`  of which the engine: cold index + newest 150 read in the bridge  ${r.engine_cold_in_bridge_ms} ms (median of 3, no socket)`)
    console.log(`  warm reconnect → backlog_complete        ${r.warm_ms} ms (max ${r.warm_max_ms}; ~${r.warm_without_herdr_ms} without the herdr call, whose median is taken apart)   (target < 50 ms, flat)`)
    console.log(`  load_older 150 deep, median / max        ${r.deep_page_ms} / ${r.deep_page_max_ms} ms   (target < 20 ms)`)
    console.log(`  append → live entry frame p50 / p95      ${r.tail_p50_ms} / ${r.tail_p95_ms} ms   (target p50 < 50 ms)`)
    console.log(`  bridge RSS growth: cold peak / serving   ${r.rss_growth_cold_peak_mb} / ${r.rss_growth_serving_mb} MB (serving vs bridge start ${r.rss_serving_over_bridge_start_mb} MB)   (target < 64 MB)`)
  }
  if (results.length > 1) {
    const [a, b] = results as any[]
    console.log(`warm flatness: ${b.mb} MB / ${a.mb} MB = ${r2(b.warm_ms / a.warm_ms)}×`)
  }
  if (fan) {
    const f = fan as any
    console.log(`200 sockets on the ${f.mb} MB file: heldFiles ${f.held_files}, activeTailers ${f.active_tailers}, index builds while opening ${f.index_builds_during}, index ${f.index_kb} KB`)
    console.log(`  opened in ${f.open_200_ms} ms (${f.per_socket_open_ms} ms each, 10 at a time); ${f.per_socket_rss_kb} KB RSS, ${f.per_socket_heap_kb} KB heap per socket; one append reaches all 200 in ${f.append_to_all_200_ms} ms`)
  }
}

if (process.argv[2] === '--serve') await serve(JSON.parse(process.argv[3]!) as ServeConfig)
else await main()
