// createApp(deps): builds the whole bridge from injected parts, so tests run
// the real app against a fake herdr and a fixture HOME. main.ts only parses
// settings and serves what this returns.
import { Elysia, ElysiaCustomStatusResponse, t } from 'elysia'
import { swagger } from '@elysiajs/swagger'
import { apiDocRoutes, GENERATED_SPEC, GENERATED_UI, INTERNAL_HEADER } from './api-docs/routes'
import { publicPairingRoutes, pairingRoutes } from './routes/pairing'
import { snapshotRoutes } from './routes/snapshot'
import { actionRoutes } from './routes/actions'
import { agentStateRoutes, readCard } from './routes/agent-state'
import { attachRoutes } from './routes/attach'
import { SocketRegistry, tokenOf } from './routes/sockets'
import { transcriptRoutes } from './routes/transcript'
import { webRoutes } from './routes/web'
import { PaneWatches } from './transcript/pane-watch'
import { HerdrWatch } from './herdr/watch'
import { mismatchAdvice } from './herdr/protocol'
import type { Snapshot } from './herdr/types'
import { EventHub } from './events/hub'
import { eventsRoutes } from './routes/events'
import { pushRoutes } from './routes/push'
import { auditRoutes } from './routes/audit'
import { projectRoutes } from './routes/projects'
import { changesRoutes } from './routes/changes'
import { attachmentRoutes } from './routes/attachments'
import { usageRoutes } from './routes/usage'
import { historyRoutes } from './routes/history'
import { searchRoutes } from './routes/search'
import { SearchIndex } from './search/search-index'
import { SearchStore } from './search/store'
import { ATTACHMENT_MAX_BYTES, type AttachmentStore } from './attachments/store'
import { rootsOf } from './projects/roots'
import { SessionFinder, type AgentKind } from './projects/listing'
import { LaterPrompts } from './projects/start'
import { createStartedPanes, type StartedPanes } from './projects/started'
import { PushSender, type PushSenderOptions } from './push/sender'
import { PushNotifier } from './push/notifier'
import { Presence } from './push/presence'
import type { PushStore } from './push/store'
import type { VapidKeys } from './push/vapid'
import { createSources, type SourceRegistry } from './transcript/sources'
import { createAnswering } from './answer/answering'
import { DEFAULT_TIMING, type Ctx, type Timing } from './server/ctx'
import { IndexStore, newIndexStoreCounters } from './transcript/jsonl/index-store'
import { newRosterCounters } from './transcript/kinds/claude/roster-watch'
import { newStreamCounters } from './transcript/stream'
import type { Counters } from './server/counters'
import { JsonlFiles } from './transcript/jsonl/timeline'
import { UnpackedSessions, type UnpackedSessionsOptions } from './transcript/jsonl/zst'
import { OpencodeSessions } from './transcript/kinds/opencode/timeline'
import type { AuthStore } from './auth/types'
import { authGuard, declarations } from './auth/guard'
import { publicRoute } from './auth/scopes'
import { Auditor, type AuditContext } from './audit/auditor'
import { createAuditLog, type AuditLog } from './audit/log'
import { HerdrError, type HerdrClient } from './herdr/client'
import { herdrFailure, notFoundFor } from './routes/edge'
import { BodyNotAJsonObject } from './server/json-body'
import { privatePlaces } from './changes/private'
import type { AgentHomes } from './transcript/source'
import { isLoopback, createLogger, whoOf, type Logger } from './server/log'
import { Machines, type MachinesOptions } from './machines/registry'
import { machinesRoutes } from './machines/routes'
import { relayRoutes } from './machines/relay'
import { machineParamRoutes } from './machines/machine-param'

export interface SearchOptions {
  /** its SQLite file (<data dir>/search.db), or ':memory:' */
  path: string
  /** how often the sessions are looked over (default 1 s) */
  pollMs?: number
  /** the first pass waits this long after the start, so the first connects go first (default 3 s) */
  startAfterMs?: number
  /** SQLite's max_page_count (tests: a full disk) */
  maxPages?: number
}

/** The search index's file; one that cannot be opened or made (a full or read-only disk) leaves the index in memory, with a log line. */
function openSearchStore(o: SearchOptions, log: (m: string) => void): SearchStore {
  try {
    return new SearchStore(o.path, log, { maxPages: o.maxPages })
  } catch (e) {
    log(`search index ${o.path} cannot be opened (${(e as Error).message}): kept in memory until the next start`)
    return new SearchStore(':memory:', log)
  }
}

export interface AppDeps {
  herdr: HerdrClient
  auth: AuthStore
  /** the audit log (in the bridge's database); absent = kept in memory, for tests that do not read it */
  audit?: AuditLog
  /** `--tailscale-user`: behind tailscale serve, requests from any other tailnet login are refused, token or not */
  tailscaleUser?: string
  /** where uploaded attachments are kept (absent: POST /attachments answers 503) */
  attachments?: AttachmentStore
  /** the directories agents may be started in (real paths are checked against these); default the home directory */
  projectRoots?: string[]
  /** the bridge's own data and config directories: never served by /files or /changes (the defaults under the home are refused anyway) */
  bridgeDirs?: string[]
  /** whether an agent kind's program is installed (default: on `agentPath`) */
  agentInstalled?: (kind: AgentKind) => boolean
  /** the PATH an agent's program is looked for on (default: this process's; a service unit carries the installing shell's) */
  agentPath?: string
  /** the panes made for POST /agent-start (in the bridge's database); absent = kept in memory */
  startedPanes?: StartedPanes
  homes: AgentHomes
  version: string
  clock?: () => number
  timing?: Partial<Timing>
  /** the structured log: one line per request and per event (default: info, text, stderr) */
  logger?: Logger
  /** free-text problem reports from deep inside (default: the logger's warn) */
  log?: (msg: string) => void
  /** transcript sources by agent kind (default: every kind this bridge reads) */
  sources?: SourceRegistry
  /** herdr's API socket (herdrSocketPath(env)); absent = the watcher polls the CLI */
  herdrSocket?: string
  /** Web Push: subscriptions, the VAPID keys, and the sender's settings; absent = /push/* answer 503 */
  push?: {
    store: PushStore
    vapid: VapidKeys
    subject: string
    sender?: Partial<Omit<PushSenderOptions, 'store' | 'vapid' | 'subject'>>
    /** panes turning blocked within this many ms make one notification (spec: 5 s) */
    coalesceMs?: number
  }
  /**
   * Where JSONL line indexes (and the roster facts folded with them) are kept
   * across restarts: <data dir>/index-cache. Without it, every bridge start
   * indexes each transcript again on its first connect.
   */
  indexCacheDir?: string
  /**
   * Where compressed session files (codex's rollouts older than 7 days, *.jsonl.zst) are
   * unpacked to be read: <data dir>/unpacked-sessions, bounded in total (least recently used
   * go) and per session (a zstd bomb is refused). Without a dir: a temporary one, removed at stop.
   */
  unpacked?: UnpackedSessionsOptions
  /** the search index over every past conversation (src/search/); absent: GET /search answers 503 */
  search?: SearchOptions
  /**
   * Read herdr as soon as the app is built and keep watching for
   * timing.herdrLingerMs: after a bridge restart, the phones that reconnect
   * find herdr's state read (the executable sets it; tests opt in).
   */
  watchAtStart?: boolean
  /**
   * Compile the hot paths while idle after the start: tokenless requests
   * through the pipeline and the routes a phone opens first, then rounds of
   * every transcript kind's warm-up (TranscriptSource.warmUp), one per
   * event-loop turn, until the first request comes (it never waits for more
   * than one round), then a collection of their garbage if none came;
   * meanwhile the most recently used saved line indexes are read ahead (IndexStore.readAhead). A phone that
   * connects after that, as a reconnecting one does (its first retry is 500 ms
   * after the drop), meets compiled code (app.decorator.warmedUp tells when it
   * is done; the executable sets it, tests opt in).
   */
  warmUp?: boolean
  /**
   * Other machines to merge (docs/bridge.md "Several machines from one phone"):
   * the data dir whose machines.json lists them, re-read when it changes. Absent: a single machine.
   */
  machines?: Pick<MachinesOptions, 'dataDir' | 'pollMs' | 'backoffMs' | 'tunnel' | 'silenceMs'>
}

export { tokenOf }
export type { Timing }

/**
 * The largest request body any route accepts. The biggest real one is a /send
 * of 4096 characters, each JSON-escaped to at most 12 bytes: about 48 KiB.
 * Bun refuses anything larger with 413 before reading it.
 */
export const MAX_BODY_BYTES = 64 * 1024
/** POST /attachments takes up to 10 MiB (its route reads and caps it itself); the server's own limit leaves room for it. */
const SERVER_BODY_BYTES = ATTACHMENT_MAX_BYTES + 64 * 1024

/** The first prune of the audit log waits this long after a start (the warm-up and the first connects come first). */
const AUDIT_PRUNE_FIRST_MS = 10_000

/** What the warm-up after a start did: its rounds, the saved indexes it read ahead, whether it collected its garbage. */
export interface WarmedUp {
  rounds: number
  readAhead: number
  collected: boolean
}

/** The routes a phone opens first, compiled by the warm-up (the socket's with its upgrade header: Elysia routes it apart). */
const WARM_UP_ROUTES: [string, Record<string, string>][] = [
  ['/snapshot', {}],
  ['/agent-state?pane=warm-up', {}],
  ['/agent-transcript?pane=warm-up', { upgrade: 'websocket' }],
]

/**
 * Rounds of the transcript kinds' warm-up after a start: enough for the JIT's
 * optimizing tiers to take the first connect's hot paths (measured: that
 * connect's page 10–20 ms sooner), one per event-loop turn: 1–3 ms a round for
 * the three kinds once compiled, ~11 ms for the first.
 */
const WARM_UP_ROUNDS = 50

/** The saved line indexes read ahead after a start (most recently used first), and how long they wait for their connect. */
const READ_AHEAD = { maxBytes: 16 * 1024 * 1024, keepMs: 60_000 }

/** The herdr client, telling `changed` after every call that types into a pane. */
function invalidating(h: HerdrClient, changed: () => void): HerdrClient {
  const typing = new Set<PropertyKey>(['agentSendKeys', 'paneSendKeys', 'paneSendText'])
  // A proxy, so the client is read at call time (tests swap or stub it after createApp).
  return new Proxy(h, {
    get(target, p) {
      const v = Reflect.get(target, p)
      if (typeof v !== 'function') return v
      // a request's deadline-bound client types into panes too
      if (p === 'withSignal') return (signal: AbortSignal) => invalidating(v.call(target, signal), changed)
      if (!typing.has(p)) return v.bind(target)
      return async (...a: unknown[]) => {
        try {
          return await v.apply(target, a)
        } finally {
          changed()
        }
      }
    },
  })
}

export function createApp(deps: AppDeps) {
  const logger = deps.logger ?? createLogger()
  const timing: Timing = { ...DEFAULT_TIMING, ...deps.timing }
  const log = deps.log ?? ((m: string) => logger.warn(m))
  const watch = new HerdrWatch(deps.herdr, {
    socketPath: deps.herdrSocket,
    pollMs: timing.herdrPollMs,
    lingerMs: timing.herdrLingerMs,
    log,
    info: (m) => logger.info(m),
  })
  // One use, let go at once: the watcher runs for its linger time.
  if (deps.watchAtStart) watch.use()()
  // Keys the bridge sends change panes: the watcher's copy is not served as current until herdr is read again.
  const herdr = invalidating(deps.herdr, () => watch.invalidate())
  // The app's JSONL files (indexes, tailers, the warm cache): its own, shared with no other app.
  const jsonl = new JsonlFiles()
  const opencode = new OpencodeSessions()
  // The app's own counters, one place for all of them (Web Push's is added with its sender, below).
  const counters: Counters = {
    watch: watch.counters,
    jsonl: jsonl.counters,
    indexCache: newIndexStoreCounters(),
    roster: newRosterCounters(),
    opencode: opencode.counters,
    stream: newStreamCounters(),
    transcript: { maxBufferedBytes: 0 },
    attach: { maxQueuedInput: 0 },
  }
  // The app's index cache; whoever runs the app waits for its writes through app.decorator.indexCache.
  const indexStore = deps.indexCacheDir ? new IndexStore({ dir: deps.indexCacheDir, log, counters: counters.indexCache }) : undefined
  const unpacked = new UnpackedSessions({ log, ...deps.unpacked })
  const sources =
    deps.sources ??
    createSources(deps.homes, {
      jsonl,
      opencode,
      pollMs: timing.tailPollMs,
      log,
      // Sockets on one session poll its roster every rosterPollMs each: share one re-read.
      rosterFreshMs: Math.min(1000, timing.rosterPollMs / 2),
      // every row build asks for the context figure (the hub's roster poll): read it once a poll at most
      usageFreshMs: timing.rosterPollMs / 2,
      rosterCounters: counters.roster,
      indexStore,
      unpacked,
    })
  const hub = new EventHub(watch, {
    facts: sources,
    // the card of a pane that became blocked: one screen read, as GET /agent-state does
    cardFor: async (agent) => (await readCard(herdr, agent.pane_id, agent, log, 'events')).card,
    rosterMs: timing.rosterPollMs,
    log,
  })
  const push = deps.push
  const sender = push ? new PushSender({ ...push.sender, store: push.store, vapid: push.vapid, subject: push.subject, log }) : undefined
  // Which devices have the app on screen (WS /events reports it): push stays quiet for them.
  const presence = new Presence()
  const notifier = push && sender ? new PushNotifier(hub, push.store, sender, { presence, coalesceMs: push.coalesceMs }) : undefined
  if (sender) counters.push = sender.counters
  // What each route needs and records, read from its declaration once the app has its routes.
  const declared = declarations(() => (app as unknown as { routes: never }).routes)
  const addressOf = (request: Request): string => {
    try {
      return (app as { server?: { requestIP(r: Request): { address: string } | null } | null }).server?.requestIP(request)?.address || 'unknown'
    } catch {
      return 'unknown' // no socket behind this request (app.handle in tests)
    }
  }
  const auditor = new Auditor(deps.audit ?? createAuditLog(':memory:'), (request, route) => declared(request, route)?.audit, log, addressOf)
  const agentPath = deps.agentPath ?? process.env.PATH ?? ''
  const ctx: Ctx = {
    herdr,
    auth: deps.auth,
    homes: deps.homes,
    version: deps.version,
    clock: deps.clock ?? Date.now,
    timing,
    log,
    logger,
    sockets: new SocketRegistry(),
    watch,
    sources,
    panes: new PaneWatches(watch, timing.sessionPollMs, log),
    events: hub,
    presence,
    answering: createAnswering(),
    push: push ? { store: push.store, publicKey: push.vapid.publicKey, changed: () => notifier?.sync() } : undefined,
    counters,
    audit: auditor,
    attachments: deps.attachments,
    projects: {
      roots: rootsOf(deps.projectRoots ?? [deps.homes.home]),
      finder: new SessionFinder(deps.homes),
      later: new LaterPrompts(herdr, log),
      installed: deps.agentInstalled ?? ((kind) => Bun.which(kind, { PATH: agentPath }) !== null),
      searchPath: agentPath,
      started: deps.startedPanes ?? createStartedPanes(':memory:'),
    },
    privatePlaces: privatePlaces(deps.homes, deps.bridgeDirs),
  }
  if (deps.machines)
    ctx.machines = new Machines({
      ...deps.machines,
      hub,
      clock: ctx.clock,
      log: (line, fields) => logger.warn(line, fields),
      local: () => ({ version: deps.version, panes: watch.latest()?.panes.length ?? 0 }),
    })
  if (deps.search) {
    ctx.search = new SearchIndex({
      store: openSearchStore(deps.search, log),
      finder: new SessionFinder(deps.homes),
      roots: ctx.projects.roots,
      sources,
      jsonl,
      log,
      pollMs: deps.search.pollMs,
    })
  }
  if (ctx.search) counters.search = ctx.search.counters
  const searchFirst = ctx.search && setTimeout(() => ctx.search?.start(), deps.search?.startAfterMs ?? 3000)
  ctx.auth.onRevoke((id) => {
    const closed = ctx.sockets.closeDevice(id)
    logger.info('device revoked', { device: id, sockets_closed: closed })
  })
  if (push)
    ctx.auth.onRevoke((id) => {
      // a revoked device hears nothing more
      if (push.store.removeDevice(id) > 0) notifier?.sync()
    })

  // /healthz is polled; herdr's state is re-checked at most once a second
  // (and concurrent checks share one), so a burst of probes spawns nothing extra.
  type HerdrHealth = {
    found: boolean
    version: string | null
    server: 'running' | 'not_running' | 'not_responding' | 'protocol_mismatch' | 'unknown'
    server_version?: string
    protocol?: number
    detail?: string
  }
  let health: { at: number; value: Promise<HerdrHealth> } | undefined
  /** herdr's CLI refuses its server: say what to do, with the server's protocol as far as known */
  const mismatched = (version: string | null, snap: Snapshot | undefined): HerdrHealth => {
    const advice = ctx.herdr.protocolMismatch?.() ?? mismatchAdvice('')
    const protocol = snap?.protocol ?? advice.server
    return {
      found: true,
      version,
      server: 'protocol_mismatch',
      ...(snap ? { server_version: snap.version } : {}),
      ...(protocol !== undefined ? { protocol } : {}),
      detail: advice.text,
    }
  }
  const herdrHealth = (): Promise<HerdrHealth> => {
    const now = ctx.clock()
    if (health && now - health.at < 1000) return health.value
    // A missing executable, a server that is not running and a herdr that hangs
    // (killed at the time limit) are three different fixes for the user.
    const verdict = (e: unknown, version: string | null): HerdrHealth => {
      const h = e as { kind?: string; code?: string; message?: string }
      if (h.kind === 'not_running') return { found: true, version, server: 'not_running' }
      if (h.code === 'protocol_mismatch') return mismatched(version, ctx.watch.latest())
      return { found: true, version, server: h.code === 'timeout' ? 'not_responding' : 'unknown', detail: String(h.message ?? e) }
    }
    const value = (async (): Promise<HerdrHealth> => {
      let version: string | null
      try {
        version = await ctx.herdr.version()
      } catch (e) {
        return verdict(e, null)
      }
      if (version === null) return { found: false, version, server: 'not_running' }
      let snap: Snapshot
      try {
        snap = await ctx.watch.snapshot()
      } catch (e) {
        return verdict(e, version)
      }
      // The watcher may read herdr's socket, which answers whatever the CLI's protocol: a CLI
      // of another version than the server (updated, server not restarted), or one that was
      // refused, is asked itself (a call that goes through clears the refusal).
      const asked = ctx.herdr.protocolMismatch?.() || snap.version !== version ? await ctx.herdr.snapshot().catch(() => undefined) : undefined
      const refused = ctx.herdr.protocolMismatch?.()
      if (refused) return mismatched(version, snap)
      const server = asked ?? snap
      return { found: true, version, server: 'running', server_version: server.version, protocol: server.protocol }
    })()
    health = { at: now, value }
    return value
  }
  // One access-log line per request: method, path (never the query: it can hold
  // ?token=), status, time, and who (device id or admin), never a token or a body.
  const started = new WeakMap<Request, number>()
  const internalKey = crypto.randomUUID()
  // Set by the first request from outside: the warm-up stops there.
  let requested = false
  const warmUp = async (): Promise<WarmedUp> => {
    await new Promise((res) => setImmediate(res)) // after the caller's listen(): the warm-up never delays it
    // Disk reads, in the background of the rounds: they run even once a request came, which likely wants them.
    const readAhead = indexStore?.readAhead(READ_AHEAD.maxBytes, READ_AHEAD.keepMs) ?? Promise.resolve(0)
    if (requested) return { rounds: 0, readAhead: await readAhead, collected: false }
    // Elysia composes its handler on the first request, and each route's on its
    // first: tokenless ones (401 from the auth guard, no herdr call) compile
    // those a phone opens first before its requests do (~20 ms, then ~3 ms a route).
    for (const [path, headers] of WARM_UP_ROUTES)
      await app.handle(new Request(`http://bridge${path}`, { headers: { ...headers, [INTERNAL_HEADER]: internalKey } })).catch(() => {})
    let rounds = 0
    for (; rounds < WARM_UP_ROUNDS; rounds++) {
      await new Promise((res) => setImmediate(res))
      if (requested) break
      sources.warmUp()
    }
    const ahead = await readAhead
    // The rounds left garbage, and the first collection after them took 10-25 ms
    // of the first request's time (a socket's first read waited that long after
    // it arrived). Collected now, while idle; never once a request came.
    if (requested) return { rounds, readAhead: ahead, collected: false }
    Bun.gc(true)
    return { rounds, readAhead: ahead, collected: true }
  }

  /** The plain-text answer of a failed request, its status set: never a stack trace or an internal message. */
  const answerError = ({
    code,
    error,
    set,
    request,
  }: {
    code: unknown
    error: unknown
    set: { status?: unknown; headers: Record<string, unknown> }
    request: Request
  }) => {
    set.headers['content-type'] = 'text/plain;charset=utf-8'

    // By class, not `code`: Elysia reports an error's own `code` field, here herdr's (agent_not_found, …).
    if (error instanceof HerdrError) {
      const f = herdrFailure(error, notFoundFor(request))
      return ((set.status = f.code), f.body)
    }
    if (code === 'NOT_FOUND') return ((set.status = 404), 'not found')
    if (code === 'PARSE')
      return ((set.status = 400), (error as Error).cause instanceof BodyNotAJsonObject ? ((error as Error).cause as Error).message : 'bad request body')
    // Schemas carry the contract's text as their `error` option (e.g. 'want ?pane=<pane_id>').
    if (code === 'VALIDATION') {
      const e = error as { customError?: unknown; validator?: { schema?: { error?: unknown } } }
      const custom = typeof e.customError === 'string' ? e.customError : e.validator?.schema?.error
      return ((set.status = 400), typeof custom === 'string' ? custom : 'bad request')
    }
    logger.error('internal error', { error: (error as Error)?.message ?? String(error) })
    logger.debug('internal error stack', { stack: (error as Error)?.stack })
    set.status = 500
    return 'internal error'
  }
  let warmedUp: Promise<WarmedUp> | undefined
  const app = new Elysia({
    websocket: { idleTimeout: 120, backpressureLimit: 1 << 20, maxPayloadLength: 1 << 20 },
    // reusePort (Elysia's default) would let a second bridge share the port and
    // split the requests: the second must fail to bind instead.
    serve: { maxRequestBodySize: SERVER_BODY_BYTES, reusePort: false },
  })
    // what the app counts, in one place, for tests and benches (app.decorator.counters)
    .decorate('counters', counters)
    // the warm-up's end (deps.warmUp): the rounds it ran, the saved indexes it read ahead, whether it collected; benches connect once it is done, as phones do
    .decorate('warmedUp', () => warmedUp ?? Promise.resolve({ rounds: 0, readAhead: 0, collected: false }))
    // the index cache's writes in flight, waited for (bounded) by main.ts at shutdown, and by a test or bench before a restart
    .decorate('indexCache', { flush: (maxMs?: number) => indexStore?.flush(maxMs) ?? Promise.resolve() })
    // the app's parts whose state tests wait on: the watcher's mode, the files and sessions held, the hub's readiness
    .decorate('watch', ctx.watch)
    .decorate('jsonl', jsonl)
    .decorate('opencode', opencode)
    .decorate('events', hub)
    .decorate('presence', presence)
    // the open sockets (registry.open()): tests and the soak bench check that none outlives its client
    .decorate('sockets', ctx.sockets)
    // Web Push's queue: resolves when nothing is queued, in flight or waiting to retry
    .decorate('pushIdle', () => sender?.idle() ?? Promise.resolve())
    .onRequest(({ request, server }) => {
      // Behind `tailscale serve`, only the named tailnet login: the header is trusted from this machine only (where serve connects from).
      if (deps.tailscaleUser) {
        const login = request.headers.get('tailscale-user-login')
        let from = ''
        try {
          from = server?.requestIP(request)?.address ?? ''
        } catch {}
        if (login !== null && isLoopback(from) && login !== deps.tailscaleUser)
          return new Response(`forbidden: tailnet user ${login.slice(0, 100)} is not allowed here`, {
            status: 403,
            headers: { 'content-type': 'text/plain;charset=utf-8' },
          })
      }
      // The generator's raw document and its page are the bridge's own business.
      const path = new URL(request.url).pathname
      // Every body but an attachment's is small: one over 64 KiB, or one that will not say its length, is refused unread.
      if (request.body && path !== '/attachments') {
        const length = request.headers.get('content-length')
        if (length === null ? request.headers.get('transfer-encoding') !== null : Number(length) > MAX_BODY_BYTES)
          return new Response(`body larger than ${MAX_BODY_BYTES / 1024} KiB`, { status: 413, headers: { 'content-type': 'text/plain;charset=utf-8' } })
      }
      if ((path === GENERATED_SPEC || path === GENERATED_UI) && request.headers.get(INTERNAL_HEADER) !== internalKey)
        return new Response('not found', { status: 404, headers: { 'content-type': 'text/plain;charset=utf-8' } })
      if (request.headers.get(INTERNAL_HEADER) === internalKey) return // the bridge's own requests are not logged
      requested = true
      started.set(request, performance.now())
    })
    .onAfterResponse({ as: 'global' }, (c) => {
      const t0 = started.get(c.request)
      if (t0 === undefined) return // the bridge's own request (the generated OpenAPI document)
      const r = (c as { responseValue?: unknown }).responseValue
      let status = r instanceof ElysiaCustomStatusResponse ? r.code : r instanceof Response ? r.status : typeof c.set.status === 'number' ? c.set.status : 200
      if (status === 200 && c.request.headers.get('upgrade')?.toLowerCase() === 'websocket') status = 101
      // a write refused by a check before its handler that did not record it: its row now, so the log has no gap
      // (an opened socket's row is its session's, written when it ends)
      if (status !== 101 && !auditor.recorded(c.request)) auditor.answered(c as unknown as AuditContext, status)
      logger.info('request', {
        method: c.request.method,
        path: new URL(c.request.url).pathname,
        status,
        ms: t0 === undefined ? undefined : Math.round((performance.now() - t0) * 10) / 10,
        device: whoOf(c),
      })
    })
    // A write's audit row, written before its answer is sent: here when the handler answered, in onError when it failed.
    .onAfterHandle({ as: 'global' }, (c) => {
      const r = (c as { responseValue?: unknown }).responseValue
      const given = r instanceof ElysiaCustomStatusResponse ? r.code : r instanceof Response ? r.status : undefined
      const status = given ?? (typeof c.set.status === 'number' ? c.set.status : 200)
      // a success's answer is the row's to read (a 201's is inside its status response)
      const answer = r instanceof ElysiaCustomStatusResponse ? (r as { response?: unknown }).response : r
      auditor.answered(c as unknown as AuditContext, status, status >= 200 && status < 300 ? answer : undefined)
    })
    .onError((c) => {
      const body = answerError(c)
      const status = typeof c.set.status === 'number' ? c.set.status : 500
      auditor.answered(c as unknown as AuditContext, status, undefined, c.code === 'VALIDATION' || c.code === 'PARSE')
      return body
    })
    // The API documents: Swagger UI (Scalar, embedded: no request leaves for
    // another host), OpenAPI 3.1 at /swagger/json, AsyncAPI at /asyncapi.json.
    .use(
      apiDocRoutes({
        version: deps.version,
        generated: async (): Promise<unknown> => {
          const handle = (app as { handle(r: Request): Promise<Response> }).handle.bind(app)
          return (await handle(new Request(`http://bridge${GENERATED_SPEC}`, { headers: { [INTERNAL_HEADER]: internalKey } }))).json()
        },
      }),
    )
    .use(
      swagger({
        path: GENERATED_UI,
        specPath: GENERATED_SPEC,
        scalarCDN: '/swagger/scalar.js',
        documentation: {
          info: {
            title: 'gothalo bridge',
            version: deps.version,
            description: [
              'Supervise coding agents in herdr panes from a phone.',
              'Auth: `Authorization: Bearer <token>` or `?token=<token>` (a device token from POST /pair, or the admin token). Errors are plain text (`text/plain`) with the statuses listed per route.',
              'The WebSocket protocols (WS /agent-transcript, WS /attach, WS /events) are described in the AsyncAPI document at [/asyncapi.json](/asyncapi.json). The contracts in prose: docs/agent-pane-api.md and docs/bridge.md in the repository.',
            ].join('\n\n'),
          },
          components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
          security: [{ bearer: [] }],
        },
        exclude: [GENERATED_SPEC, GENERATED_UI],
      }),
    )
    .get(
      '/healthz',
      async () => {
        const herdr = await herdrHealth()
        return { ok: true, version: ctx.version, herdr }
      },
      {
        response: {
          200: t.Object({
            ok: t.Boolean(),
            version: t.String(),
            herdr: t.Object({
              found: t.Boolean(),
              version: t.Union([t.String(), t.Null()]),
              server: t.Union(
                [t.Literal('running'), t.Literal('not_running'), t.Literal('not_responding'), t.Literal('protocol_mismatch'), t.Literal('unknown')],
                {
                  description:
                    "not_responding: herdr was started but did not answer within the time limit (a hung server); protocol_mismatch: herdr's CLI refuses its running server (herdr was updated, the server not restarted): restart the herdr server",
                },
              ),
              server_version: t.Optional(t.String({ description: "the running server's herdr version (`version` is the CLI's)" })),
              protocol: t.Optional(t.Integer({ description: "the running server's protocol: 20 (herdr 0.8.2) or 22 (0.9.x)" })),
              detail: t.Optional(t.String({ description: 'what went wrong, when not running; with protocol_mismatch, what to do' })),
            }),
          }),
        },
        detail: publicRoute({ summary: 'Liveness, and whether herdr is found and its server running (no auth)', tags: ['bridge'] }),
      },
    )
    .use(webRoutes())
    .use(relayRoutes(ctx))
    .use(machineParamRoutes(ctx))
    .use(publicPairingRoutes(ctx))
    .use(authGuard(ctx, declared))
  // every route behind the guard, one plugin per group, mounted in this order
  const guarded = [
    pairingRoutes,
    snapshotRoutes,
    actionRoutes,
    agentStateRoutes,
    attachRoutes,
    transcriptRoutes,
    eventsRoutes,
    pushRoutes,
    auditRoutes,
    projectRoutes,
    changesRoutes,
    attachmentRoutes,
    usageRoutes,
    machinesRoutes,
    historyRoutes,
    searchRoutes,
  ]
  for (const routes of guarded) app.use(routes(ctx))
  // Elysia's onStop runs after the server is down; the contract wants streams the
  // server shuts down closed with a normal 1000, so close them first.
  // The audit log's retention (90 days, 100,000 rows): shortly after a start, then daily, in small batches off the request path.
  const prune = () => void auditor.log.prune().catch((e) => log(`audit: pruning failed: ${(e as Error).message}`))
  // Attachments past their 7 days: at the start (a bridge restarted daily would never reach its first daily pass), then daily.
  const pruneAttachments = () => {
    try {
      const n = deps.attachments?.prune() ?? 0
      if (n > 0) logger.info('attachments removed', { older_than_days: 7, count: n })
    } catch (e) {
      log(`attachments: pruning failed: ${(e as Error).message}`)
    }
  }
  pruneAttachments()
  const pruneFirst = setTimeout(prune, AUDIT_PRUNE_FIRST_MS)
  const pruneDaily = setInterval(() => {
    prune()
    pruneAttachments()
  }, 24 * 3600_000)
  ;(pruneFirst as { unref?: () => void }).unref?.()
  ;(pruneDaily as { unref?: () => void }).unref?.()
  const stop = app.stop.bind(app)
  app.stop = async (closeActiveConnections?: boolean) => {
    clearTimeout(pruneFirst)
    clearTimeout(searchFirst)
    await ctx.search?.close()
    ctx.projects.later.close()
    ctx.projects.finder.close()
    if (!deps.startedPanes) ctx.projects.started.close()
    clearInterval(pruneDaily)
    ctx.sockets.closeAll(1000, 'server shutting down')
    ctx.machines?.close()
    notifier?.close()
    sender?.close()
    hub.close()
    ctx.watch.close()
    unpacked.close()
    return stop(closeActiveConnections)
  }
  if (deps.warmUp) warmedUp = warmUp()
  return app
}

export type App = ReturnType<typeof createApp>
