// opencode's transcript source (docs/agent-pane-api.md, "opencode"). The managed
// local service first ($XDG_STATE_HOME/opencode/service.json, HTTP Basic); when
// it is unreachable, opencode's own store read-only (SQLite, or legacy JSON).
// The session is herdr's agent_session.value confirmed against the pane's cwd
// (another directory's session is "no transcript here"), else the newest
// top-level session recorded in the pane's cwd. No subagent roster.
import type { AgentInfo } from '../../../herdr/types'
import type { AgentHomes, Resolved, TranscriptSource, Unresolved } from '../../source'
import { NO_TRANSCRIPT, paneCwd } from '../../source'
import { pickOpencodeSession } from './resolve'
import { createOpencodeServiceClient, findService, OpencodeServiceError, type OpencodeServiceClient, type OpencodeServiceInfo } from './service'
import { openOpencodeStore, opencodeDataDir, type OpencodeSession, type OpencodeStore } from './store'
import { OpencodeSessions, newestUntilByLimit, type MessageFeed } from './timeline'

export interface OpencodeSourceOptions {
  /** tail poll (contract: 250 ms) */
  pollMs?: number
  log?: (m: string) => void
  /** per-request timeout for the service (default 3 s) */
  serviceTimeoutMs?: number
  /** the sessions registry (default: one of its own) */
  opencode?: OpencodeSessions
}

/** opencode session ids (ses_…): never a path, never a query. */
const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/

/** Where a session was found, and how to read it. */
type Located =
  | { via: 'service'; key: string; session: OpencodeSession; client: OpencodeServiceClient }
  | { via: 'store'; key: string; session: OpencodeSession; store: OpencodeStore }

/** The service cannot be used at all (down, timed out, stale credentials): use the store. */
function unusable(e: unknown): boolean {
  return e instanceof OpencodeServiceError && (e.status === 0 || e.status === 401 || e.status === 403)
}

function reportedId(agent: AgentInfo): string | undefined {
  const v = agent.agent_session?.value
  return v !== undefined && SESSION_ID.test(v) ? v : undefined
}

export function createOpencodeSource(homes: AgentHomes, opts: OpencodeSourceOptions = {}): TranscriptSource {
  const log = opts.log ?? ((m: string) => console.warn(m))
  const sessions = opts.opencode ?? new OpencodeSessions()
  const clients = new Map<string, OpencodeServiceClient>()
  let store: OpencodeStore | undefined
  const dataDir = opencodeDataDir(homes.xdgDataHome)

  function clientFor(info: OpencodeServiceInfo): OpencodeServiceClient {
    const k = `${info.url}\0${info.password ?? ''}`
    let c = clients.get(k)
    if (!c) clients.set(k, (c = createOpencodeServiceClient({ url: info.url, password: info.password, timeoutMs: opts.serviceTimeoutMs ?? 3000 })))
    return c
  }

  /** Opened on first need and kept (a read-only handle never blocks opencode). */
  function openStore(): OpencodeStore | undefined {
    store ??= openOpencodeStore(dataDir)
    return store
  }

  async function pick(
    cwd: string,
    id: string | undefined,
    byId: (id: string) => Promise<OpencodeSession | undefined>,
    list: () => Promise<OpencodeSession[]>,
  ): Promise<OpencodeSession | undefined> {
    const found = id ? await byId(id) : undefined
    // A reported id that is unknown (stale) reads like no id: the newest session here.
    return pickOpencodeSession(cwd, found, found ? [] : await list())
  }

  /** Finds the pane's session: service first, the store when the service cannot be used. Throws on a failing service. */
  async function locate(agent: AgentInfo): Promise<Located | undefined> {
    const cwd = paneCwd(agent)
    if (!cwd) return undefined
    const id = reportedId(agent)
    const info = await findService(homes.xdgStateHome)
    if (info) {
      const client = clientFor(info)
      try {
        const session = await pick(
          cwd,
          id,
          (x) => client.getSession(x),
          () => client.listSessions({ directory: cwd }),
        )
        return session && { via: 'service', key: `service:${info.url}\0${session.id}`, session, client }
      } catch (e) {
        if (!unusable(e)) throw e
        log(`opencode: service at ${info.url} not usable (${(e as Error).message}); reading the store`)
      }
    }
    const s = openStore()
    if (!s) return undefined
    const session = await pick(
      cwd,
      id,
      (x) => s.session(x),
      () => s.listSessions(),
    )
    return session && { via: 'store', key: `store:${dataDir}\0${session.id}`, session, store: s }
  }

  function feedOf(at: Located): MessageFeed {
    const sid = at.session.id
    if (at.via === 'service') {
      let c = at.client
      // A restarted service registers a new port and password: follow service.json.
      const withClient = async <T>(f: (c: OpencodeServiceClient) => Promise<T>): Promise<T> => {
        try {
          return await f(c)
        } catch (e) {
          if (!unusable(e)) throw e
          const info = await findService(homes.xdgStateHome)
          const next = info && clientFor(info)
          if (!next || next === c) throw e
          c = next
          return f(c)
        }
      }
      return {
        all: () => withClient((x) => x.allMessages(sid)),
        newestUntil: (stop) => withClient((x) => x.newestMessagesUntil(sid, stop, 20)),
      }
    }
    const s = at.store
    return {
      all: () => s.rawMessages(sid),
      // Only the newest few messages (and their parts) per poll, widening until the watermark is in view.
      newestUntil: (stop) => newestUntilByLimit((limit) => s.rawMessages(sid, limit === undefined ? {} : { limit }), stop),
      version: s.dataVersion ? () => s.dataVersion!() : undefined,
    }
  }

  const recent = new Map<string, { at: number; p: Promise<Located | undefined> }>()
  /** locate(), shared for a moment among the sockets of one pane polling at once. */
  function locateShared(agent: AgentInfo): Promise<Located | undefined> {
    const k = `${agent.agent_session?.value ?? ''}\0${paneCwd(agent) ?? ''}`
    const now = Date.now()
    const hit = recent.get(k)
    if (hit && now - hit.at < 500) return hit.p
    const p = locate(agent)
    recent.set(k, { at: now, p })
    if (recent.size > 64) for (const [key, v] of recent) if (now - v.at >= 500) recent.delete(key)
    return p
  }

  return {
    kinds: ['opencode'],
    async resolve(agent, o): Promise<Resolved | Unresolved> {
      if (o.subagent !== undefined) return NO_TRANSCRIPT
      let at = await locate(agent)
      if (!at) return NO_TRANSCRIPT
      try {
        const timeline = await sessions.acquire(at.key, () => feedOf(at!), { pollMs: opts.pollMs, log })
        return { ok: true, sessionId: at.session.id, timeline, usage: async () => timeline.usage() }
      } catch (e) {
        if (at.via !== 'service' || !unusable(e)) throw e
      }
      // The service went away between finding the session and reading it: the store.
      const s = openStore()
      const session = s && (await s.session(at.session.id))
      if (!s || !session) return NO_TRANSCRIPT
      at = { via: 'store', key: `store:${dataDir}\0${session.id}`, session, store: s }
      const timeline = await sessions.acquire(at.key, () => feedOf(at!), { pollMs: opts.pollMs, log })
      return { ok: true, sessionId: session.id, timeline, usage: async () => timeline.usage() }
    },
    async currentSession(agent) {
      try {
        return (await locateShared(agent))?.session.id
      } catch {
        return undefined
      }
    },
  }
}
