// What this device may do (GET /devices/me), so the app shows only what it can
// use: a `read` device sees no answer buttons, send box, mode button, terminal or
// review screens (those need `code`).
// Kept in localStorage so the app draws right at once on the next start; read
// again on every start (an admin may pair the phone anew with other scopes).
import { useEffect, useState } from 'preact/hooks'
import { ApiError, api } from './api'

export type Scope = 'read' | 'code' | 'answer' | 'type' | 'terminal' | 'start' | 'admin'
const KEY = 'gothalo.scopes'
const ALL: Scope[] = ['read', 'code', 'answer', 'type', 'terminal', 'start', 'admin']

let current: Set<Scope> | null = load()
const listeners = new Set<(s: Set<Scope>) => void>()
let asked: Promise<void> | null = null

function load(): Set<Scope> | null {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) ?? 'null')
    return Array.isArray(v) ? new Set(v) : null
  } catch {
    return null
  }
}

function set(s: Scope[]) {
  current = new Set(s)
  localStorage.setItem(KEY, JSON.stringify(s))
  for (const l of listeners) l(current)
}

/** Reads this device's scopes from the bridge (once per start, or after pairing). */
export function refreshScopes(): Promise<void> {
  asked ??= api
    .get('/devices/me')
    .then((me) => set(Array.isArray(me?.scopes) ? me.scopes : ALL))
    .catch((e) => {
      // a bridge from before scopes has no /devices/me: every device could do everything there
      if (e instanceof ApiError && e.status === 404) set(ALL)
      asked = null
    })
  return asked
}

export function forgetScopes() {
  current = null
  asked = null
  localStorage.removeItem(KEY)
}

/** The scopes, or null while not known yet (nothing that needs one is shown until then). */
export function useScopes(): Set<Scope> | null {
  const [s, setS] = useState(current)
  useEffect(() => {
    listeners.add(setS)
    void refreshScopes()
    return () => void listeners.delete(setS)
  }, [])
  return s
}

export const can = (s: Set<Scope> | null, scope: Scope): boolean => s?.has(scope) ?? false
