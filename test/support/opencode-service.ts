// A real opencode v2 service for tests and benches: Bun.serve on loopback, port 0,
// HTTP Basic opencode:<password>, answering the documented JSON (reference B.1):
// /api/session (paged, cursor.next), /api/session/<id>, /api/session/<id>/message
// (order asc|desc, limit ≤ 200, opaque cursor). Its data is mutable so a test can
// grow, complete or rewrite a session while the bridge polls it.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Server } from 'bun'

export interface FakeOpencodeService {
  url: string
  password: string
  sessions: any[]
  messages: Map<string, any[]>
  /** answer 500 on the message list (of any session) */
  failMessages: boolean
  /** requests seen, as path+search */
  seen: string[]
  /** resolves once `n` more message-list requests for `id` have been answered */
  afterMessageReads(id: string, n: number): Promise<void>
  /** writes $XDG_STATE_HOME/opencode/service.json for this service */
  register(xdgStateHome: string): void
  stop(): Promise<void>
}

const cursorOf = (at: number, order: string) => Buffer.from(JSON.stringify({ at, order })).toString('base64url')

/** `sessionsPerPage` caps the session list's pages below the asked limit, so a test sees the client follow cursor.next. */
export function startFakeOpencode(init: {
  sessions: any[]
  messages: Record<string, any[]>
  password?: string
  sessionsPerPage?: number
}): FakeOpencodeService {
  const password = init.password ?? 'pw-' + Math.random().toString(36).slice(2)
  const want = 'Basic ' + Buffer.from(`opencode:${password}`).toString('base64')
  const waiters: { id: string; left: number; done: () => void }[] = []
  const svc: FakeOpencodeService = {
    url: '',
    password,
    sessions: init.sessions,
    messages: new Map(Object.entries(init.messages)),
    failMessages: false,
    seen: [],
    afterMessageReads: (id, n) => new Promise((done) => waiters.push({ id, left: n, done })),
    register(xdgStateHome) {
      mkdirSync(join(xdgStateHome, 'opencode'), { recursive: true })
      writeFileSync(
        join(xdgStateHome, 'opencode', 'service.json'),
        JSON.stringify({ id: 'test', version: '2.1.0-next.1', url: svc.url, pid: process.pid, password, startedAt: Date.now() }),
      )
    },
    stop: async () => {
      await server.stop(true)
    },
  }
  const messageRead = (id: string) => {
    for (const w of [...waiters]) {
      if (w.id !== id || --w.left > 0) continue
      waiters.splice(waiters.indexOf(w), 1)
      w.done()
    }
  }
  const server: Server<undefined> = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(req) {
      const u = new URL(req.url)
      svc.seen.push(u.pathname + u.search)
      if (req.headers.get('authorization') !== want) return Response.json({ name: 'UnauthorizedError' }, { status: 401 })
      const order = u.searchParams.get('order')
      const c = u.searchParams.get('cursor')
      if (c && order) return Response.json({ name: 'InvalidRequestError' }, { status: 400 })
      const at0 = c ? JSON.parse(Buffer.from(c, 'base64url').toString()) : { at: 0, order: order ?? 'asc' }
      const limit = Math.min(Number(u.searchParams.get('limit') ?? 200), 200)
      if (u.pathname === '/api/session') {
        const dir = u.searchParams.get('directory')
        let all = [...svc.sessions].sort((a, b) => b.time.updated - a.time.updated)
        if (dir) all = all.filter((s) => s.location?.directory === dir)
        if (at0.order === 'asc') all.reverse()
        const size = Math.min(limit, init.sessionsPerPage ?? limit)
        const page = all.slice(at0.at, at0.at + size)
        return Response.json({ data: page, cursor: { previous: null, next: at0.at + size < all.length ? cursorOf(at0.at + size, at0.order) : null } })
      }
      const m = /^\/api\/session\/([^/]+)(\/message)?$/.exec(u.pathname)
      if (!m) return Response.json({ name: 'NotFound' }, { status: 404 })
      const id = decodeURIComponent(m[1])
      const info = svc.sessions.find((s) => s.id === id)
      if (!info) return Response.json({ name: 'SessionNotFoundError' }, { status: 404 })
      if (!m[2]) return Response.json({ data: info })
      if (svc.failMessages) return Response.json({ name: 'UnknownError' }, { status: 500 })
      const msgs = svc.messages.get(id) ?? []
      const list = at0.order === 'desc' ? [...msgs].reverse() : msgs
      const page = list.slice(at0.at, at0.at + limit)
      const next = at0.at + limit < list.length ? cursorOf(at0.at + limit, at0.order) : null
      queueMicrotask(() => messageRead(id))
      return Response.json({ data: structuredClone(page), cursor: { previous: null, next } })
    },
  })
  svc.url = `http://127.0.0.1:${server.port}`
  return svc
}
