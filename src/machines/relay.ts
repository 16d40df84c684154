// WS /agent-transcript and WS /attach for another machine's pane (`LABEL/PANE`),
// and WS /agent-transcript?session=KIND:ID&machine=LABEL for another machine's
// past session: the home bridge checks the phone's token and scope, opens the
// same socket at the remote bridge (with the plain pane id or without `machine`,
// its own token, and the phone's name in X-Gothalo-Via), and only then accepts
// the phone's upgrade; frames then pass both ways. A remote that goes away
// closes the phone's socket with 1013 (try again later), never leaving it hanging.
import { Elysia } from 'elysia'
import type { Ctx } from '../server/ctx'
import { tokenOf } from '../routes/sockets'
import { hasScope } from '../auth/types'
import type { Scope } from '../auth/scopes'
import { textUpTo } from '../server/capped-body'
import { splitPaneId } from './target'
import { viaOf } from './forward'
import type { RemoteMachine } from './remote'

/** The relayed sockets and the scope each needs (as their routes declare). */
const RELAYED: Record<string, Scope> = { '/agent-transcript': 'read', '/attach': 'terminal' }

/** A side whose unsent frames pass this is closed (the bridge's socket limit: 1 MiB). */
export const RELAY_QUEUE_LIMIT = 1 << 20

/** How long the remote may take to accept its socket. */
const UPSTREAM_OPEN_MS = 10_000

/**
 * A remote close about the phone's own frames passes as it is; any other (the remote shutting down with
 * 1000, 1001, a dropped connection's 1006, this bridge's device revoked there) is 1013: try again later.
 */
const PASSED_CODES = new Set([1003, 1007, 1008, 1009])

const text = (status: number, body: string) => new Response(body, { status, headers: { 'content-type': 'text/plain;charset=utf-8' } })

type Raw = {
  send(d: string | ArrayBuffer | Uint8Array): number
  close(code?: number, reason?: string): void
  getBufferedAmount(): number
  readyState: number
}

export function relayRoutes(ctx: Ctx) {
  return new Elysia({ name: 'machine-socket-relay' }).onRequest(async ({ request, server }) => {
    if (request.headers.get('upgrade')?.toLowerCase() !== 'websocket') return
    const url = new URL(request.url)
    const scope = RELAYED[url.pathname]
    if (!scope) return
    // a past session names its machine (`local` or none: this one's); a pane, in its id
    const sessionOf = url.pathname === '/agent-transcript' && url.searchParams.has('session') ? url.searchParams.get('machine') : undefined
    const { machine, pane } = sessionOf !== undefined ? { machine: sessionOf, pane: '' } : splitPaneId(url.searchParams.get('pane') ?? '')
    if (!machine || machine === 'local') return // this machine's: the route answers
    // merging no machine is knowing none: a past session named for another is 404, never this machine's
    const m = ctx.machines?.get(machine)
    if (!m && sessionOf === undefined) return // no such machine in a pane id: the route's own 404
    const principal = ctx.auth.identify(
      tokenOf({ authorization: request.headers.get('authorization') ?? undefined }, { token: url.searchParams.get('token') ?? undefined }),
    )
    if (!principal) return text(401, 'unauthorized')
    if (!hasScope(principal, scope)) return text(403, `forbidden: needs scope ${scope}`)
    if (!m) return text(404, 'no such machine')
    if (m.state !== 'online' || !m.base) return text(503, `machine ${m.label} is offline`)
    url.searchParams.delete('token')
    if (sessionOf !== undefined) url.searchParams.delete('machine')
    else url.searchParams.set('pane', pane)
    const what = sessionOf !== undefined ? { session: `${m.label}/${url.searchParams.get('session')}` } : { pane: `${m.label}/${pane}` }
    const upstream = await openUpstream(m, `${url.pathname}${url.search}`, viaOf(ctx.auth, principal))
    if (!upstream.ok) return text(upstream.status, upstream.body)
    const ws = upstream.ws
    let client: Raw | undefined
    let unregister: (() => void) | undefined
    const early: (string | ArrayBuffer)[] = []
    const done = (code: number, reason: string) => {
      m.relays.delete(removed)
      unregister?.()
      unregister = undefined
      try {
        client?.close(code, reason.slice(0, 120))
      } catch {}
      if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close(1000, 'phone left')
    }
    const toClient = (d: string | ArrayBuffer) => {
      if (!client) return void early.push(d)
      client.send(typeof d === 'string' ? d : new Uint8Array(d))
      if (client.getBufferedAmount() > RELAY_QUEUE_LIMIT) done(1008, 'client too slow')
    }
    // the machine removed from the store: its relayed sockets end with it
    const removed = () => done(1013, `machine ${m.label} was removed`)
    m.relays.add(removed)
    ws.onmessage = (e) => toClient(e.data as string | ArrayBuffer)
    ws.onclose = (e) => {
      if (!client) return done(1013, `machine ${m.label} went away`)
      done(PASSED_CODES.has(e.code) ? e.code : 1013, PASSED_CODES.has(e.code) ? e.reason : `machine ${m.label} went away${e.reason ? ` (${e.reason})` : ''}`)
    }
    const data = {
      request,
      principal,
      open(raw: Raw) {
        client = raw
        unregister = ctx.sockets.admitOrRefuse(ctx.auth, data, raw, () => ws.close(1000, 'device revoked'))
        if (!unregister) return
        ctx.logger.info('socket open', { socket: url.pathname.slice(1), ...what, machine: m.label })
        for (const d of early.splice(0)) toClient(d)
        if (ws.readyState !== WebSocket.OPEN) done(1013, `machine ${m.label} went away`)
      },
      message(_raw: Raw, msg: string | Uint8Array) {
        if (ws.readyState !== WebSocket.OPEN) return
        ws.send(msg)
        if (ws.bufferedAmount > RELAY_QUEUE_LIMIT) done(1013, `machine ${m.label} is not reading`)
      },
      close() {
        client = undefined
        done(1000, 'phone left')
      },
    }
    if (!server?.upgrade(request, { data })) {
      m.relays.delete(removed)
      ws.close(1000, 'phone left')
      return text(400, 'expected a websocket upgrade')
    }
    // the upgrade is done: what this returns is not sent, it only stops the route from answering too
    return new Response(null, { status: 101 })
  })
}

async function openUpstream(
  m: RemoteMachine,
  pathAndQuery: string,
  via: string,
): Promise<{ ok: true; ws: WebSocket } | { ok: false; status: number; body: string }> {
  const base = m.base!
  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}${pathAndQuery}`, { headers: m.headers(via) } as unknown as string[])
  ws.binaryType = 'arraybuffer'
  const opened = await new Promise<boolean>((res) => {
    const t = setTimeout(() => res(false), UPSTREAM_OPEN_MS)
    ws.onopen = () => {
      clearTimeout(t)
      res(true)
    }
    ws.onclose = () => {
      clearTimeout(t)
      res(false)
    }
  })
  if (opened) return { ok: true, ws }
  ws.close()
  // why: the remote's answer for the pane (its 404 is the phone's 404), else its socket refused us
  try {
    const q = new URL(`http://x${pathAndQuery}`).searchParams
    const r = q.has('session')
      ? // a past session: the remote's own refusal of the upgrade, asked again over plain HTTP (a 400 or 404 saying why)
        await fetch(`${base}${pathAndQuery}`, {
          headers: {
            ...m.headers(via),
            upgrade: 'websocket',
            connection: 'Upgrade',
            'sec-websocket-key': btoa(crypto.randomUUID().slice(0, 16)),
            'sec-websocket-version': '13',
          },
          signal: AbortSignal.timeout(5000),
        })
      : await fetch(`${base}/agent-state?pane=${encodeURIComponent(q.get('pane') ?? '')}`, { headers: m.headers(via), signal: AbortSignal.timeout(5000) })
    if (r.status === 400 || r.status === 403 || r.status === 404) return { ok: false, status: r.status, body: (await textUpTo(r, 200)).slice(0, 200) }
    await r.body?.cancel()
  } catch {}
  return { ok: false, status: 502, body: `machine ${m.label} refused the socket` }
}
