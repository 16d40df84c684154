// A remote machine's label and target (docs/bridge.md "Several machines from one
// phone"): what `gothalo machines add LABEL TARGET` accepts. Pure.
import { isLoopback } from '../server/log'

/** A label names a machine in pane ids (`LABEL/PANE`): short, lower case, no slash. */
export const LABEL_PATTERN = /^[a-z0-9][a-z0-9-]{0,31}$/

/** `local` is the home machine's id in GET /machines. */
export const RESERVED_LABELS: readonly string[] = ['local']

/** The remote bridge's port at the far end of an SSH tunnel, unless the target names another (`ssh://host/8788`). */
export const REMOTE_BRIDGE_PORT = 8787

export type Target = { kind: 'http'; url: string } | { kind: 'ssh'; user?: string; host: string; port: number; remotePort: number }

export function labelProblem(label: string): string | undefined {
  if (!LABEL_PATTERN.test(label)) return `bad label: ${JSON.stringify(label)} (want ^[a-z0-9][a-z0-9-]{0,31}$, e.g. laptop)`
  if (RESERVED_LABELS.includes(label)) return `bad label: ${label} is the home machine's id`
  return undefined
}

/** TARGET: `https://…`, `http://` on a loopback address, or `ssh://[user@]host[:port]`; else a one-line reason. */
export function parseTarget(raw: string): Target | { error: string } {
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    return { error: `bad target: ${raw} (want ssh://[user@]host[:port], https://host[:port] or http://127.0.0.1:PORT)` }
  }
  if (u.search || u.hash) return { error: `bad target: ${raw} (no ?query or #fragment)` }
  if (u.password) return { error: 'bad target: no password in a target (ssh keys or an agent authenticate)' }
  if (u.port === '0') return { error: `bad target: ${raw} (port 0 is no port)` }
  if (u.protocol === 'https:' || u.protocol === 'http:') {
    if (u.username) return { error: `bad target: ${raw} (no user in an http(s) URL)` }
    if (u.protocol === 'http:' && !isLoopback(u.hostname))
      return { error: `bad target: ${raw} (http:// only on a loopback address; use https:// or ssh:// across machines)` }
    return { kind: 'http', url: `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}` }
  }
  if (u.protocol === 'ssh:') {
    // an optional /PORT: the remote bridge's port when it is not the default 8787
    const bridgePort = /^\/(\d{1,5})$/.exec(u.pathname)?.[1]
    if (!u.hostname || (u.pathname !== '' && u.pathname !== '/' && !bridgePort) || Number(bridgePort ?? 1) > 65535 || Number(bridgePort ?? 1) < 1)
      return { error: `bad target: ${raw} (want ssh://[user@]host[:port][/bridge-port])` }
    // ssh takes these as its own arguments: nothing that could read as an option
    const user = u.username ? decodeURIComponent(u.username) : undefined
    if (user !== undefined && !/^[A-Za-z0-9._][A-Za-z0-9._-]{0,63}$/.test(user)) return { error: `bad target: bad ssh user in ${raw}` }
    if (!/^[A-Za-z0-9.:[\]_-]+$/.test(u.hostname) || u.hostname.startsWith('-')) return { error: `bad target: bad ssh host in ${raw}` }
    return {
      kind: 'ssh',
      user,
      host: u.hostname.replace(/^\[|\]$/g, ''),
      port: u.port ? Number(u.port) : 22,
      remotePort: bridgePort ? Number(bridgePort) : REMOTE_BRIDGE_PORT,
    }
  }
  return { error: `bad target: ${raw} (want ssh://, https:// or http:// on a loopback address)` }
}

/** A pane id as the phone sees it: `LABEL/PANE` for a remote pane, the plain id for a local one. */
export function splitPaneId(id: string): { machine?: string; pane: string } {
  const slash = id.indexOf('/')
  if (slash <= 0) return { pane: id }
  const machine = id.slice(0, slash)
  return LABEL_PATTERN.test(machine) ? { machine, pane: id.slice(slash + 1) } : { pane: id }
}

export const qualify = (label: string, pane: string): string => `${label}/${pane}`

/** herdr's saved machine (`herdr machine list --json`) as a label and an ssh:// target; undefined when it cannot be one. */
export function fromHerdrMachine(m: unknown): { label: string; target: string } | undefined {
  const r = m as { label?: unknown; target?: unknown; enabled?: unknown }
  if (typeof r?.target !== 'string' || typeof r.label !== 'string' || r.enabled === false) return undefined
  const label = r.label
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 32)
  // herdr's target is ssh's own: user@host, host, or ssh://…
  const target = r.target.startsWith('ssh://') ? r.target : `ssh://${r.target}`
  if (labelProblem(label) || 'error' in parseTarget(target)) return undefined
  return { label, target }
}
