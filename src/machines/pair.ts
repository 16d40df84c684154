// Pairing this bridge with a remote one: POST /pair there with a code made there.
// The answer's token is returned to be stored, never printed.
import { hostname } from 'node:os'
import { textUpTo } from '../server/capped-body'

export type Paired = { ok: true; device_id: string; token: string } | { ok: false; error: string }

/** The device name this bridge takes at a remote: its audit rows and `gothalo devices` there show it. */
export const homeDeviceName = (): string => `gothalo bridge on ${hostname()}`.slice(0, 100)

export async function pairWithRemote(base: string, code: string, fetchImpl: typeof fetch = fetch): Promise<Paired> {
  let res: Response
  try {
    res = await fetchImpl(`${base}/pair`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code, device_name: homeDeviceName() }),
      signal: AbortSignal.timeout(10_000),
    })
  } catch (e) {
    return { ok: false, error: `cannot reach the remote bridge at ${base}: ${(e as Error).message}` }
  }
  // a bridge's answer is a few hundred bytes: more is not read
  const whole = await textUpTo(res, 4096).catch(() => '')
  const text = whole.slice(0, 200)
  if (res.status === 403) return { ok: false, error: `the remote bridge refused the code: ${text || 'invalid or expired code'} (make one there: gothalo pair)` }
  if (!res.ok) return { ok: false, error: `the remote bridge answered ${res.status}: ${text.split('\n')[0]}` }
  try {
    const body = JSON.parse(whole) as { device_id?: unknown; token?: unknown }
    if (typeof body.device_id === 'string' && typeof body.token === 'string') return { ok: true, device_id: body.device_id, token: body.token }
  } catch {}
  return { ok: false, error: `the remote at ${base} does not answer like a gothalo bridge` }
}
