// The bridge's HTTP API as the phone uses it: same origin, the device token
// kept in localStorage, plain-text error bodies surfaced as they are.
import { shareTokenWithWorker } from './worker-token'

const TOKEN_KEY = 'gothalo.token'
const DEVICE_KEY = 'gothalo.device'

export const token = (): string | null => localStorage.getItem(TOKEN_KEY)
export function forget() {
  localStorage.removeItem(TOKEN_KEY)
  localStorage.removeItem(DEVICE_KEY)
  void shareTokenWithWorker(null)
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

async function call(method: string, path: string, body?: unknown): Promise<any> {
  const headers: Record<string, string> = {}
  const t = token()
  if (t) headers.authorization = `Bearer ${t}`
  if (body !== undefined) headers['content-type'] = 'application/json'
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await res.text()
  if (!res.ok) {
    if (res.status === 401 && t) window.dispatchEvent(new CustomEvent('gothalo:unauthorized'))
    throw new ApiError(res.status, text || res.statusText)
  }
  const type = res.headers.get('content-type') ?? ''
  return type.includes('json') && text ? JSON.parse(text) : text
}

export const api = {
  get: (path: string) => call('GET', path),
  post: (path: string, body?: unknown) => call('POST', path, body ?? {}),
  del: (path: string) => call('DELETE', path),
}

export async function pair(code: string, deviceName: string): Promise<void> {
  const r = await call('POST', '/pair', { code: code.trim().toUpperCase(), device_name: deviceName })
  localStorage.setItem(TOKEN_KEY, r.token)
  localStorage.setItem(DEVICE_KEY, r.device_id)
  await shareTokenWithWorker(r.token)
}

/** A WebSocket URL on this origin, carrying the token (browsers cannot set headers on sockets). */
export function socketUrl(path: string, params: Record<string, string | null | undefined>): string {
  const u = new URL(path, location.href)
  u.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:'
  for (const [k, v] of Object.entries(params)) if (v != null) u.searchParams.set(k, v)
  const t = token()
  if (t) u.searchParams.set('token', t)
  return u.toString()
}

/** A name for this device, shown in `gothalo devices`. */
export function defaultDeviceName(): string {
  const ua = navigator.userAgent
  const os = /iPhone|iPad/.test(ua) ? 'iPhone' : /Android/.test(ua) ? 'Android' : /Mac/.test(ua) ? 'Mac' : /Linux/.test(ua) ? 'Linux' : 'device'
  const br = /Firefox\//.test(ua) ? 'Firefox' : /Edg\//.test(ua) ? 'Edge' : /Chrome\//.test(ua) ? 'Chrome' : /Safari\//.test(ua) ? 'Safari' : 'browser'
  return `${br} on ${os}`
}
