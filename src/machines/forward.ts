// A pane route for another machine's pane (`LABEL/PANE`), forwarded to that
// machine's bridge with the plain pane id (docs/bridge.md "Several machines").
// The home bridge has checked the phone's scopes; the remote checks its own for
// this bridge's token and writes its audit row naming the phone (X-Gothalo-Via).
// Its answer comes back as it is, unless it is not an answer a bridge gives.
import type { Principal } from '../auth/types'
import type { AuthStore } from '../auth/types'
import type { RemoteMachine } from './remote'
import { readCapped } from '../server/capped-body'
import { splitPaneId } from './target'

const TEXT_TYPE = 'text/plain;charset=utf-8'
const JSON_TYPE = 'application/json;charset=utf-8'
/** on every forwarded answer, as /files?raw=1 sets them: never sniffed into a page, never a page's rights */
const ANSWER_HEADERS = { 'x-content-type-options': 'nosniff', 'content-security-policy': "default-src 'none'; sandbox" }

/** A bridge's 404 text for a route it does not have (src/app.ts); its routes' own 404s say what is missing. */
const UNKNOWN_ROUTE = 'not found'

/**
 * The most of a remote's answer the home reads: well over any answer a bridge
 * gives (a raw file of /files is at most 5 MiB, a diff 1 MiB), so a remote that
 * never stops costs this much memory and no more.
 */
export const FORWARDED_MAX_BYTES = 16 * 1024 * 1024

/** An answer for the route to give: its status, body (JSON already parsed, text, or bytes) and headers. */
export interface Forwarded {
  status: number
  body: unknown
  headers: Record<string, string>
}

const text = (status: number, body: string): Forwarded => ({ status, body, headers: { 'content-type': TEXT_TYPE, ...ANSWER_HEADERS } })

export const offline = (label: string): Forwarded => text(503, `machine ${label} is offline`)

/** The phone's device name (or `admin`), cut to printable characters, for the remote's audit row. */
export function viaOf(auth: AuthStore, principal: Principal | undefined): string {
  if (!principal) return '-'
  if (principal.kind === 'admin') return 'admin'
  const name = auth.device(principal.deviceId)?.name ?? principal.deviceId
  return name.replace(/[^\x20-\x7e]/g, '?').slice(0, 100)
}

/** The same request for the remote: the pane named plainly, no token of the phone's. */
export function remoteRequestParts(request: Request, body: unknown, plain: string): { path: string; body?: string | ReadableStream; type?: string } {
  const url = new URL(request.url)
  url.searchParams.delete('token')
  if (plain && url.searchParams.has('pane')) url.searchParams.set('pane', plain)
  const path = `${url.pathname}${url.search}`
  if (request.method === 'GET' || request.method === 'HEAD') return { path }
  const b = body as Record<string, unknown> | undefined
  if (b && typeof b === 'object' && !Array.isArray(b) && !('unread' in b && Object.isFrozen(b))) {
    const out = { ...b }
    if (plain && typeof out.pane === 'string') out.pane = plain
    if (plain && typeof out.agent === 'string') out.agent = plain
    return { path, body: JSON.stringify(out), type: 'application/json' }
  }
  // a route that reads its own body (an upload): its bytes go on as they came
  return { path, body: request.body ?? undefined, type: request.headers.get('content-type') ?? undefined }
}

/** images a browser shows as pictures and never runs (no SVG): what /files?raw=1 serves inline */
const SHOWN_IMAGES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp'])

/** A download's file name from the remote's content-disposition, cut to plain characters (as /files names its own). */
function downloadName(disposition: string | null): string {
  const name =
    /filename="?([^";]*)/i
      .exec(disposition ?? '')?.[1]
      ?.split(/[\\/]/)
      .pop() ?? ''
  return name.replace(/[^\w.-]/g, '_').slice(0, 200) || 'file'
}

export async function forward(m: RemoteMachine, plain: string, request: Request, body: unknown, via: string, signal: AbortSignal): Promise<Forwarded> {
  if (m.state !== 'online' || !m.base) return offline(m.label)
  const parts = remoteRequestParts(request, body, plain)
  const headers: Record<string, string> = m.headers(via)
  if (parts.type) headers['content-type'] = parts.type
  const len = request.headers.get('content-length')
  if (parts.body instanceof ReadableStream && len) headers['content-length'] = len
  let res: Response
  try {
    res = await fetch(`${m.base}${parts.path}`, { method: request.method, headers, body: parts.body, signal, duplex: 'half' } as RequestInit)
  } catch (e) {
    if (signal.aborted) return text(504, `machine ${m.label} did not answer in time`)
    return text(502, `machine ${m.label}: ${(e as Error).message}`)
  }
  let bytes: Uint8Array | undefined
  try {
    bytes = await readCapped(res.body, res.headers.get('content-length'), FORWARDED_MAX_BYTES)
  } catch (e) {
    if (signal.aborted) return text(504, `machine ${m.label} did not answer in time`)
    return text(502, `machine ${m.label} went away mid-answer: ${(e as Error).message}`)
  }
  if (!bytes) return text(502, `machine ${m.label} answered more than ${FORWARDED_MAX_BYTES / 1024 / 1024} MiB`)
  // the type as this bridge reads it: one essence, no list (a browser takes the last of `text/plain, text/html`)
  const rawType = res.headers.get('content-type') ?? ''
  const type = rawType.includes(',') ? '' : (rawType.split(';')[0] ?? '').trim().toLowerCase()
  const garbage = () => text(502, `machine ${m.label} answered garbage (${res.status})`)
  let answer: unknown = bytes
  let ownType: string
  if (type === 'application/json' || type.endsWith('+json')) {
    try {
      answer = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes))
    } catch {
      return garbage()
    }
    ownType = JSON_TYPE
  } else if (type === 'text/plain') {
    answer = new TextDecoder().decode(bytes)
    ownType = TEXT_TYPE
  } else if (SHOWN_IMAGES.has(type)) ownType = type
  else if (res.headers.has('content-disposition')) ownType = 'application/octet-stream'
  else return garbage()
  // the remote's own failure (a 500, its herdr's 502…) is this bridge's 502, with the remote's one line
  if (res.status >= 500 && res.status !== 503 && res.status !== 504) {
    const line = new TextDecoder().decode(bytes.slice(0, 300)).split('\n')[0]
    return text(502, `machine ${m.label}: ${line}`)
  }
  if (res.status === 401) return text(502, `machine ${m.label} refused this bridge's token`)
  // a bridge's answer for a route it does not have (an older gothalo): not the pane's or the session's 404
  if (res.status === 404 && answer === UNKNOWN_ROUTE)
    return text(502, `machine ${m.label} does not know ${new URL(`http://x${parts.path}`).pathname} (an older gothalo there?)`)
  // the home's origin serves it: the type is the one read above, anything but an image is a download,
  // and it is never a page (the remote's own headers, a hostile remote's HTML or SVG, do not pass)
  const passed: Record<string, string> = { 'content-type': ownType, ...ANSWER_HEADERS }
  if (ownType === 'application/octet-stream') passed['content-disposition'] = `attachment; filename="${downloadName(res.headers.get('content-disposition'))}"`
  return { status: res.status, body: answer, headers: passed }
}

/**
 * The forwarded answer for a request whose target is another machine's pane,
 * or undefined when the target is this machine's (or names no known machine:
 * the route's own 404 follows).
 */
export function remotePaneAnswer(
  machines: { get(label: string): RemoteMachine | undefined; size: number } | undefined,
  auth: AuthStore,
  target: string,
  request: Request,
  body: unknown,
  principal: Principal | undefined,
  signal: AbortSignal,
): Promise<Forwarded> | undefined {
  if (!machines?.size) return undefined
  const { machine, pane } = splitPaneId(target)
  const m = machine ? machines.get(machine) : undefined
  if (!m) return undefined
  return forward(m, pane, request, body, viaOf(auth, principal), signal)
}
