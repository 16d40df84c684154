// Client for opencode's managed local service (the v2 HTTP API under /api/…),
// found through $XDG_STATE_HOME/opencode/service.json and authenticated as
// HTTP Basic opencode:<password>. Read-only: sessions and projected messages.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { isObj, str } from '../../tool-summary'
import { opencodeMessageId } from './normalize'
import { toOpencodeSession, type OpencodeSession } from './store'

/** service.json (the client's discovery contract). */
export interface OpencodeServiceInfo {
  url: string
  password?: string
  pid?: number
  id?: string
  version?: string
  startedAt?: number
}

/** Shared channels (latest, dev, beta, next) use service.json; others service-<channel>.json. */
export function serviceFileName(channel?: string): string {
  if (!channel || ['latest', 'dev', 'beta', 'next'].includes(channel)) return 'service.json'
  return `service-${channel.replace(/[^A-Za-z0-9._-]/g, '-')}.json`
}

/** Reads and checks the registration file; undefined when absent or not a service record. */
export async function findService(xdgStateHome: string, channel?: string): Promise<OpencodeServiceInfo | undefined> {
  let raw: unknown
  try {
    raw = JSON.parse(await readFile(join(xdgStateHome, 'opencode', serviceFileName(channel)), 'utf8'))
  } catch {
    return undefined
  }
  return parseServiceInfo(raw)
}

export function parseServiceInfo(raw: unknown): OpencodeServiceInfo | undefined {
  if (!isObj(raw) || typeof raw.url !== 'string') return undefined
  try {
    new URL(raw.url)
  } catch {
    return undefined
  }
  const info: OpencodeServiceInfo = { url: raw.url }
  if (typeof raw.password === 'string' && raw.password !== '') info.password = raw.password
  if (typeof raw.pid === 'number') info.pid = raw.pid
  if (typeof raw.id === 'string') info.id = raw.id
  if (typeof raw.version === 'string') info.version = raw.version
  if (typeof raw.startedAt === 'number') info.startedAt = raw.startedAt
  return info
}

/** A non-2xx answer (status) or no answer at all (status 0). */
export class OpencodeServiceError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
    this.name = 'OpencodeServiceError'
  }
}

export interface MessagePage {
  /** projected v2 SessionMessages, in the requested order */
  data: unknown[]
  next?: string
  previous?: string
}

export interface OpencodeServiceClient {
  /** undefined when the service says 404. */
  getSession(id: string): Promise<OpencodeSession | undefined>
  /** Every session (all pages), newest updated first. */
  listSessions(opts?: { directory?: string }): Promise<OpencodeSession[]>
  /** One page of projected messages. A cursor continues a previous page's order. */
  messages(id: string, opts?: { order?: 'asc' | 'desc'; limit?: number; cursor?: string }): Promise<MessagePage>
  /** The whole session oldest first (pages of 200). */
  allMessages(id: string): Promise<unknown[]>
  /**
   * Newest first, paging back until the message `stopAtId` is included (or the session
   * ends): exactly what tailStep needs. Without stopAtId, the whole session.
   */
  newestMessagesUntil(id: string, stopAtId: string | undefined, pageSize?: number): Promise<unknown[]>
}

const MAX_PAGE = 200
const MAX_PAGES = 10_000 // a loop guard against a cursor that never ends

export function createOpencodeServiceClient(opts: { url: string; password?: string; fetch?: typeof fetch; timeoutMs?: number }): OpencodeServiceClient {
  const base = opts.url.replace(/\/+$/, '')
  const doFetch = opts.fetch ?? fetch
  const headers: Record<string, string> = { accept: 'application/json' }
  if (opts.password) headers.authorization = 'Basic ' + Buffer.from(`opencode:${opts.password}`).toString('base64')
  const timeoutMs = opts.timeoutMs ?? 5000

  async function get(path: string, query: Record<string, string | number | undefined> = {}): Promise<unknown> {
    const u = new URL(base + path)
    for (const [k, v] of Object.entries(query)) if (v !== undefined) u.searchParams.set(k, String(v))
    let res: Response
    try {
      res = await doFetch(u, { headers, signal: AbortSignal.timeout(timeoutMs) })
    } catch (e) {
      throw new OpencodeServiceError(0, `opencode service unreachable: ${(e as Error).message}`)
    }
    if (!res.ok) {
      await res.body?.cancel().catch(() => {})
      throw new OpencodeServiceError(res.status, `GET ${u.pathname}: ${res.status}`)
    }
    try {
      return await res.json()
    } catch {
      throw new OpencodeServiceError(res.status, `GET ${u.pathname}: not JSON`)
    }
  }

  const enc = encodeURIComponent

  const client: OpencodeServiceClient = {
    async getSession(id) {
      let body: unknown
      try {
        body = await get(`/api/session/${enc(id)}`)
      } catch (e) {
        if (e instanceof OpencodeServiceError && e.status === 404) return undefined
        throw e
      }
      return toOpencodeSession(isObj(body) ? body.data : undefined)
    },

    async listSessions(o = {}) {
      const out: OpencodeSession[] = []
      let cursor: string | undefined
      for (let i = 0; i < MAX_PAGES; i++) {
        // The API rejects a cursor combined with order: the cursor carries it.
        const body = await get('/api/session', cursor ? { cursor, limit: MAX_PAGE } : { order: 'desc', limit: MAX_PAGE, directory: o.directory })
        const page = isObj(body) && Array.isArray(body.data) ? body.data : []
        for (const s of page) {
          const x = toOpencodeSession(s)
          if (x) out.push(x)
        }
        cursor = nextCursor(body)
        if (!cursor || page.length === 0) break
      }
      return out.sort((a, b) => b.timeUpdated - a.timeUpdated)
    },

    async messages(id, o = {}) {
      const limit = Math.min(Math.max(1, o.limit ?? MAX_PAGE), MAX_PAGE)
      const body = await get(`/api/session/${enc(id)}/message`, o.cursor ? { cursor: o.cursor, limit } : { order: o.order ?? 'asc', limit })
      const data = isObj(body) && Array.isArray(body.data) ? body.data : []
      const page: MessagePage = { data }
      const next = nextCursor(body)
      if (next) page.next = next
      const prev = isObj(body) && isObj(body.cursor) ? str(body.cursor.previous) : undefined
      if (prev) page.previous = prev
      return page
    },

    async allMessages(id) {
      const out: unknown[] = []
      let cursor: string | undefined
      for (let i = 0; i < MAX_PAGES; i++) {
        const page = await client.messages(id, { order: 'asc', limit: MAX_PAGE, cursor })
        out.push(...page.data)
        cursor = page.next
        if (!cursor || page.data.length === 0) break
      }
      return out
    },

    async newestMessagesUntil(id, stopAtId, pageSize = 50) {
      const out: unknown[] = []
      let cursor: string | undefined
      for (let i = 0; i < MAX_PAGES; i++) {
        const page = await client.messages(id, { order: 'desc', limit: pageSize, cursor })
        out.push(...page.data)
        if (stopAtId !== undefined && page.data.some((m) => opencodeMessageId(m) === stopAtId)) break
        cursor = page.next
        if (!cursor || page.data.length === 0) break
      }
      return out
    },
  }
  return client
}

function nextCursor(body: unknown): string | undefined {
  return isObj(body) && isObj(body.cursor) ? (str(body.cursor.next) ?? undefined) || undefined : undefined
}
