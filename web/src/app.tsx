// The phone client: pairing, the live list of panes, one agent (card, transcript,
// send box, mode), the raw terminal. Routes live in the URL hash so a
// notification or a QR code can open any screen directly.
import { render } from 'preact'
import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { api, forget, pair, token, defaultDeviceName, socketUrl } from './api'
import { shareTokenWithWorker } from './worker-token'
import { LiveSocket, type SocketStatus } from './live-socket'
import {
  emptyList,
  fromSnapshot,
  groupByMachine,
  paneName,
  reduceEvents,
  sinceParam,
  sortedForList,
  type ListState,
  type MachineInfo,
  type PaneRow,
} from './pane-list'
import { AgentScreen } from './agent'
import { TerminalScreen } from './terminal'
import { NewAgentScreen } from './new-agent'
import { ShareScreen } from './share'
import { ActivityScreen } from './activity'
import { ChangesScreen, CodeOnly, DiffScreen, FileScreen } from './changes'
import { InsecureNote, NotificationSwitch, useNotificationTidy } from './notifications'
import { can, forgetScopes, useScopes } from './scopes'
import { HistoryScreen, SearchScreen, SessionScreen } from './history'
import { HerdrBanner } from './herdr-banner'

type Route =
  | { name: 'list' }
  | { name: 'new' }
  | { name: 'share' }
  | { name: 'activity' }
  | { name: 'agent'; pane: string; subagent?: string }
  | { name: 'term'; pane: string }
  | { name: 'changes'; pane: string }
  | { name: 'diff'; pane: string; path: string; staged: boolean }
  | { name: 'file'; pane: string; path: string }
  | { name: 'search' }
  | { name: 'history' }
  | { name: 'session'; session: string; at?: number }

export function parseRoute(hash: string): Route {
  if (hash === '#/new') return { name: 'new' }
  if (hash === '#/share') return { name: 'share' }
  if (hash === '#/activity') return { name: 'activity' }
  if (hash === '#/search') return { name: 'search' }
  if (hash === '#/history') return { name: 'history' }
  const s = /^#\/s\/([^/]+)(?:\/(\d+))?$/.exec(hash)
  if (s) return { name: 'session', session: decodeURIComponent(s[1]!), at: s[2] ? Number(s[2]) : undefined }
  const c = /^#\/p\/([^/]+)\/(changes|diff\/([01])\/(.+)|file\/(.*))$/.exec(hash)
  if (c) {
    const pane = decodeURIComponent(c[1]!)
    if (c[2] === 'changes') return { name: 'changes', pane }
    if (c[3] !== undefined) return { name: 'diff', pane, staged: c[3] === '1', path: decodeURIComponent(c[4]!) }
    return { name: 'file', pane, path: decodeURIComponent(c[5] ?? '') }
  }
  const m = /^#\/p\/([^/]+)(?:\/(term|a)(?:\/([^/]+))?)?$/.exec(hash)
  if (!m) return { name: 'list' }
  const pane = decodeURIComponent(m[1]!)
  if (m[2] === 'term') return { name: 'term', pane }
  if (m[2] === 'a' && m[3]) return { name: 'agent', pane, subagent: decodeURIComponent(m[3]) }
  return { name: 'agent', pane }
}

export const go = (hash: string) => {
  location.hash = hash
}

function useHash(): string {
  const [h, setH] = useState(location.hash)
  useEffect(() => {
    const on = () => setH(location.hash)
    window.addEventListener('hashchange', on)
    return () => window.removeEventListener('hashchange', on)
  }, [])
  return h
}

/** Every pane, live: WS /events with resume, or /snapshot every 3 s where /events is not served. */
function usePaneList(enabled: boolean): { list: ListState; status: SocketStatus | 'polling' } {
  const [list, setList] = useState<ListState>(emptyList)
  const [status, setStatus] = useState<SocketStatus | 'polling'>('connecting')
  useEffect(() => {
    if (!enabled) return
    let current = emptyList()
    const apply = (next: ListState) => {
      current = next
      setList(next)
    }
    let poll: ReturnType<typeof setInterval> | null = null
    const startPolling = () => {
      setStatus('polling')
      const once = () =>
        api
          .get('/snapshot')
          .then((snap) => apply(fromSnapshot(current, snap)))
          .catch(() => {})
      once()
      poll = setInterval(once, 3000)
    }
    // The bridge pushes nothing to this device while a window of the app is on screen: say so on every open and change.
    const sayVisibility = () => sock.send({ type: 'visibility', visible: document.visibilityState === 'visible' })
    const sock: LiveSocket = new LiveSocket({
      url: () => socketUrl('/events', { since: sinceParam(current) }),
      onOpen: sayVisibility,
      onFrame: (f) => apply(reduceEvents(current, f)),
      onStatus: (s, why) => {
        if (s === 'closed' && why === 'refused') startPolling()
        else setStatus(s)
      },
      maxFailures: 2,
    })
    document.addEventListener('visibilitychange', sayVisibility)
    return () => {
      document.removeEventListener('visibilitychange', sayVisibility)
      sock.close()
      if (poll) clearInterval(poll)
    }
  }, [enabled])
  return { list, status }
}

function PairScreen({ onPaired, initialCode }: { onPaired: () => void; initialCode: string | null }) {
  const [code, setCode] = useState(initialCode ?? '')
  const [name, setName] = useState(defaultDeviceName())
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const submit = async (c = code) => {
    setBusy(true)
    setError(null)
    try {
      await pair(c, name)
      forgetScopes()
      history.replaceState(null, '', location.pathname + '#/')
      onPaired()
    } catch (e: any) {
      setError(e.message || String(e))
    } finally {
      setBusy(false)
    }
  }
  useEffect(() => {
    if (initialCode) void submit(initialCode)
  }, [])
  return (
    <main class="pair">
      <h1>gothalo</h1>
      <p>
        Pair this phone with the bridge. Run <code>gothalo pair</code> on the machine and scan its QR code, or type the code.
      </p>
      <form
        onSubmit={(e) => {
          e.preventDefault()
          void submit()
        }}
      >
        <label>
          Pairing code
          <input
            name="code"
            autocomplete="one-time-code"
            autocapitalize="characters"
            placeholder="K7QX-2M9D"
            value={code}
            onInput={(e) => setCode((e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          Device name
          <input name="device" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </label>
        <button type="submit" disabled={busy || !code.trim()}>
          {busy ? 'Pairing…' : 'Pair'}
        </button>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
      </form>
    </main>
  )
}

const STATUS_LABEL: Record<string, string> = { blocked: 'needs you', working: 'working', done: 'done', idle: 'idle', unknown: '?' }

/**
 * Rows carry no headline; the card has one. Read each agent pane's card when its
 * status or state_change_seq moves (not on every frame), two at a time.
 */
function useHeadlines(panes: PaneRow[]): Map<string, string> {
  const [heads, setHeads] = useState<Map<string, string>>(new Map())
  const seen = useRef(new Map<string, string>())
  useEffect(() => {
    const todo = panes.filter((p) => p.agent_kind && !p.card && seen.current.get(p.pane_id) !== `${p.agent_status}:${p.state_change_seq}`)
    let live = true
    const next = async () => {
      const p = todo.shift()
      if (!p || !live) return
      seen.current.set(p.pane_id, `${p.agent_status}:${p.state_change_seq}`)
      try {
        const c = await api.get(`/agent-state?pane=${encodeURIComponent(p.pane_id)}`)
        if (c?.headline) setHeads((m) => new Map(m).set(p.pane_id, c.headline))
      } catch {
        seen.current.delete(p.pane_id)
      }
      await next()
    }
    void next()
    void next()
    return () => {
      live = false
    }
  }, [panes])
  return heads
}

function PaneItem({ p, head, terminal }: { p: PaneRow; head?: string; terminal: boolean }) {
  const status = p.agent_status ?? 'unknown'
  const headline = p.card?.blocked?.question ?? p.card?.headline ?? head ?? p.title ?? ''
  return (
    <li class={`pane ${p.agent_kind ? status : 'shell'}${p.stale ? ' stale' : ''}`} data-pane={p.pane_id}>
      <a href={p.agent_kind ? `#/p/${encodeURIComponent(p.pane_id)}` : terminal ? `#/p/${encodeURIComponent(p.pane_id)}/term` : undefined}>
        <div class="row1">
          <span class="kind">{p.agent_kind ?? 'shell'}</span>
          <span class="name">{paneName(p)}</span>
          {p.agent_kind && <span class={`status s-${status}`}>{STATUS_LABEL[status] ?? status}</span>}
        </div>
        {headline && <div class="headline">{headline}</div>}
        <div class="row3">
          {p.machine && <span class="on-machine">{p.machine}</span>}
          <span class="where">{[p.workspace_label, p.tab_label].filter(Boolean).join(' › ') || p.pane_id}</span>
          {p.subagents && p.subagents.total > 0 && (
            <span class="subs">
              {p.subagents.running}/{p.subagents.total} subagents running
            </span>
          )}
          {p.context_pct !== undefined && p.context_pct > 80 && <span class="ctx-hot">context {p.context_pct}%</span>}
        </div>
      </a>
    </li>
  )
}

/** `3 min ago`, `2 h ago`: when an offline machine was last heard. */
function ago(ms: number | undefined): string {
  if (ms === undefined) return 'never'
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000))
  if (s < 60) return 'just now'
  if (s < 3600) return `${Math.round(s / 60)} min ago`
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`
  return new Date(ms).toLocaleDateString()
}

const MACHINE_STATE: Record<string, string> = { online: 'online', offline: 'offline', attention: 'needs attention' }

function MachineHeader({ m }: { m: MachineInfo }) {
  const state = m.state ?? 'online'
  return (
    <h2 class="machine-head">
      <span class="machine-name">{m.id === 'local' ? 'This machine' : m.label}</span>
      <span class={`machine-state ms-${state}`}>{MACHINE_STATE[state] ?? state}</span>
      {state !== 'online' && <span class="last-seen">last seen {ago(m.last_seen)}</span>}
      {m.error && <span class="machine-error">{m.error}</span>}
    </h2>
  )
}

function ListScreen({ list, status }: { list: ListState; status: string }) {
  const panes = useMemo(() => sortedForList(list.panes), [list.panes])
  const groups = useMemo(() => groupByMachine(panes, list.machines), [panes, list.machines])
  const heads = useHeadlines(list.panes)
  const blocked = panes.filter((p) => p.agent_status === 'blocked' && p.agent_kind).length
  const scopes = useScopes()
  return (
    <main class="list">
      <header>
        <h1>Agents</h1>
        <a class="search-link" href="#/search" aria-label="Search conversations">
          Search
        </a>
        <a class="history-link" href="#/history">
          History
        </a>
        {can(scopes, 'start') && (
          <a class="new-link" href="#/new">
            + New agent
          </a>
        )}
        {scopes && !can(scopes, 'answer') && !can(scopes, 'type') && (
          <span class="view-only" title="this device was paired to watch only">
            view only
          </span>
        )}
        <span class={`conn c-${status}`} title="connection">
          {status === 'open' ? 'live' : status}
        </span>
      </header>
      <HerdrBanner />
      {blocked > 0 && <p class="attention">{blocked === 1 ? '1 agent needs you' : `${blocked} agents need you`}</p>}
      {panes.length === 0 ? (
        <p class="empty">{status === 'open' || status === 'polling' ? 'No panes in herdr.' : 'Connecting…'}</p>
      ) : (
        groups.map((g) => {
          const items = (
            <ul class="panes">
              {g.panes.map((p) => (
                <PaneItem key={p.pane_id} p={p} head={heads.get(p.pane_id)} terminal={can(scopes, 'terminal')} />
              ))}
            </ul>
          )
          // a single machine: the list as it always was, no machine words
          if (!g.machine) return items
          return (
            <section key={g.machine.id} class={`machine m-${g.machine.state ?? 'online'}`} data-machine={g.machine.id}>
              <MachineHeader m={g.machine} />
              {items}
            </section>
          )
        })
      )}
      <InsecureNote />
      <footer>
        <NotificationSwitch />
        {can(scopes, 'admin') && (
          <a class="activity-link" href="#/activity">
            Activity
          </a>
        )}
        <button
          type="button"
          class="link"
          onClick={() => {
            if (confirm('Forget this device? You will need a new pairing code.')) {
              forget()
              forgetScopes()
              location.reload()
            }
          }}
        >
          Unpair
        </button>
      </footer>
    </main>
  )
}

export function App() {
  const hash = useHash()
  const pairCode = /^#pair=([A-Za-z0-9-]+)/.exec(hash)?.[1] ?? null
  const [paired, setPaired] = useState(() => !!token() && !pairCode)
  useEffect(() => {
    const out = () => {
      forget()
      forgetScopes()
      setPaired(false)
    }
    window.addEventListener('gothalo:unauthorized', out)
    return () => window.removeEventListener('gothalo:unauthorized', out)
  }, [])
  const { list, status } = usePaneList(paired)
  useNotificationTidy(list)
  if (!paired) return <PairScreen initialCode={pairCode} onPaired={() => setPaired(true)} />
  const route = parseRoute(hash)
  if (route.name === 'term') return <TerminalScreen pane={route.pane} />
  if (route.name === 'new') return <NewAgentScreen />
  if (route.name === 'share') return <ShareScreen panes={list.panes} />
  if (route.name === 'activity') return <ActivityScreen />
  if (route.name === 'search') return <SearchScreen />
  if (route.name === 'history') return <HistoryScreen />
  if (route.name === 'session') return <SessionScreen key={`${route.session}/${route.at ?? ''}`} session={route.session} at={route.at} />
  if (route.name === 'changes')
    return (
      <CodeOnly pane={route.pane}>
        <ChangesScreen pane={route.pane} />
      </CodeOnly>
    )
  if (route.name === 'diff')
    return (
      <CodeOnly pane={route.pane}>
        <DiffScreen pane={route.pane} path={route.path} staged={route.staged} />
      </CodeOnly>
    )
  if (route.name === 'file')
    return (
      <CodeOnly pane={route.pane}>
        <FileScreen pane={route.pane} path={route.path} />
      </CodeOnly>
    )
  if (route.name === 'agent')
    return (
      <AgentScreen
        key={`${route.pane}/${route.subagent ?? ''}`}
        pane={route.pane}
        subagent={route.subagent}
        row={list.panes.find((p) => p.pane_id === route.pane)}
      />
    )
  return <ListScreen list={list} status={status} />
}

export function start() {
  if ('serviceWorker' in navigator) navigator.serviceWorker.register('/sw.js').catch(() => {})
  // a device paired before the worker kept its own copy of the token gets one now
  const t = token()
  if (t) void shareTokenWithWorker(t)
  render(<App />, document.getElementById('app')!)
}
