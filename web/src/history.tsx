// Every past conversation on the phone (docs/bridge.md, "Every past conversation"):
// a search box over all of them (GET /search), a History list per project (GET
// /sessions), and one past session read through WS /agent-transcript?session=,
// opened at a search hit (&around=SEQ), paged both ways, resumable (/agent-start).
// With several machines, each screen asks one of them (?machine=LABEL).
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks'
import { api, ApiError, socketUrl } from './api'
import { askOlder, EntryView, OlderEntries } from './agent'
import { LiveSocket, type SocketStatus } from './live-socket'
import { MachinePick, machineQuery, useMachines, withQuery } from './machine-pick'
import { ago } from './new-agent'
import { can, useScopes } from './scopes'
import { emptyTranscript, reduce, resultsByCall, type TranscriptState } from './transcript-state'

const KINDS = ['claude', 'pi', 'codex', 'opencode'] as const

interface PastSession {
  agent_kind: string
  session_id: string
  project: string
  title: string
  started_ts: string
  last_activity_ts: string
  pane_id?: string
}

interface SearchHit {
  agent_kind: string
  session_id: string
  project: string
  title: string
  seq: number
  ts: string
  role: string
  snippet: string
  matches: [number, number][]
  pane_id?: string
}

interface SearchAnswer {
  results: SearchHit[]
  took_ms: number
  indexed: { files: number; of: number; incomplete?: true }
}

/** `#/s/[<machine>/]<kind>:<id>[/<seq>]`: a past session (of another machine), at an entry. */
export const sessionHash = (kind: string, id: string, seq?: number, machine = 'local') =>
  `#/s/${encodeURIComponent(`${machine === 'local' ? '' : `${machine}/`}${kind}:${id}`)}${seq ? `/${seq}` : ''}`

/** A session hash's ref split: the machine (`local` for this one) and `<kind>:<id>`. */
export function splitSessionRef(ref: string): { machine: string; session: string } {
  const slash = ref.indexOf('/')
  return slash < 0 ? { machine: 'local', session: ref } : { machine: ref.slice(0, slash), session: ref.slice(slash + 1) }
}

/**
 * The machine a screen asks, kept for the tab (back from a session, the same
 * machine); one no longer among the machines (removed) is this one again.
 */
function useMachineChoice(key: string, machines: { id: string }[]): [string, (m: string) => void] {
  const [machine, setMachine] = useState(() => sessionStorage.getItem(key) ?? 'local')
  const gone = machines.length > 0 && !machines.some((m) => m.id === machine)
  return [
    gone ? 'local' : machine,
    (m: string) => {
      sessionStorage.setItem(key, m)
      setMachine(m)
    },
  ]
}

const baseName = (path: string) => path.split('/').filter(Boolean).pop() ?? path

/** The snippet with its matches marked. */
export function Marked({ text, matches }: { text: string; matches: [number, number][] }) {
  const parts: preact.ComponentChild[] = []
  let at = 0
  for (const [from, to] of matches) {
    if (from < at || to > text.length) continue
    if (from > at) parts.push(text.slice(at, from))
    parts.push(<mark key={from}>{text.slice(from, to)}</mark>)
    at = to
  }
  parts.push(text.slice(at))
  return <span class="snippet">{parts}</span>
}

/** The projects the sessions name, for the filters (newest first). */
function useProjects(machine: string): string[] {
  const [projects, setProjects] = useState<string[]>([])
  useEffect(() => {
    setProjects([])
    api
      .get(withQuery('/sessions', 'limit=200', machineQuery(machine)))
      .then((r: { sessions: PastSession[] }) => setProjects([...new Set(r.sessions.map((s) => s.project))]))
      .catch(() => {})
  }, [machine])
  return projects
}

export function SearchScreen() {
  const [q, setQ] = useState(() => sessionStorage.getItem('gothalo.search') ?? '')
  const [kind, setKind] = useState('')
  const [project, setProject] = useState('')
  const machines = useMachines()
  const [machine, setMachine] = useMachineChoice('gothalo.search.machine', machines)
  const [answer, setAnswer] = useState<(SearchAnswer & { machine: string }) | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const projects = useProjects(machine)
  const asked = useRef(0)
  const run = async () => {
    const text = q.trim()
    sessionStorage.setItem('gothalo.search', q)
    if (!text) return
    const n = ++asked.current
    setBusy(true)
    setError(null)
    const params = new URLSearchParams({ q: text })
    if (kind) params.set('kind', kind)
    if (project) params.set('project', project)
    if (machine !== 'local') params.set('machine', machine)
    try {
      const r = (await api.get(`/search?${params}`)) as SearchAnswer
      if (n === asked.current) setAnswer({ ...r, machine })
    } catch (e: any) {
      if (n === asked.current) {
        setAnswer(null)
        setError(e instanceof ApiError ? e.message : String(e))
      }
    } finally {
      if (n === asked.current) setBusy(false)
    }
  }
  // the filters apply at once to what was asked
  useEffect(() => {
    if (q.trim()) void run()
  }, [kind, project, machine])
  return (
    <main class="search">
      <header>
        <a class="back" href="#/">
          ‹
        </a>
        <h1>Search</h1>
        <a class="history-link" href="#/history">
          History
        </a>
      </header>
      <MachinePick
        machines={machines}
        machine={machine}
        onPick={(m) => {
          setProject('') // another machine's projects
          setMachine(m)
        }}
      />
      <form
        class="search-form"
        onSubmit={(e) => {
          e.preventDefault()
          void run()
        }}
      >
        <input
          type="search"
          name="q"
          aria-label="Search every conversation"
          placeholder="words, &quot;a phrase&quot;, a path…"
          value={q}
          onInput={(e) => setQ((e.target as HTMLInputElement).value)}
        />
        <button type="submit" disabled={busy || !q.trim()}>
          {busy ? '…' : 'Search'}
        </button>
        <div class="filters">
          <select aria-label="Agent" value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value)}>
            <option value="">every agent</option>
            {KINDS.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
          <select aria-label="Project" value={project} onChange={(e) => setProject((e.target as HTMLSelectElement).value)}>
            <option value="">every project</option>
            {projects.map((p) => (
              <option key={p} value={p}>
                {baseName(p)}
              </option>
            ))}
          </select>
        </div>
      </form>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {answer && (
        <p class="indexed">
          {answer.results.length === 0 ? 'Nothing found' : `${answer.results.length} found`}
          {answer.indexed.files < answer.indexed.of && ` · indexing ${answer.indexed.files} of ${answer.indexed.of} sessions`}
          {answer.indexed.incomplete && ' · the index is incomplete (disk full)'}
        </p>
      )}
      <ul class="hits">
        {answer?.results.map((h) => (
          <li key={`${h.agent_kind}:${h.session_id}:${h.seq}`} class="hit">
            <a href={sessionHash(h.agent_kind, h.session_id, h.seq, answer.machine)}>
              <div class="row1">
                <span class="kind">{h.agent_kind}</span>
                <span class="title">{h.title || h.session_id}</span>
                <span class="when">{ago(h.ts)}</span>
              </div>
              <div class="where">
                {baseName(h.project)} · {h.role}
              </div>
              <Marked text={h.snippet} matches={h.matches} />
            </a>
          </li>
        ))}
      </ul>
    </main>
  )
}

export function HistoryScreen() {
  const machines = useMachines()
  const [machine, setMachine] = useMachineChoice('gothalo.history.machine', machines)
  const [sessions, setSessions] = useState<PastSession[] | null>(null)
  const [next, setNext] = useState<string | undefined>()
  const [error, setError] = useState<string | null>(null)
  const asked = useRef(machine)
  /** the `before` of the page being fetched: More tapped again meanwhile asks nothing (the page would come twice) */
  const [fetching, setFetching] = useState<string | undefined>()
  const fetchingRef = useRef<string | undefined>(undefined)
  const load = async (before?: string) => {
    const from = machine
    if (before) {
      if (fetchingRef.current === before) return
      fetchingRef.current = before
      setFetching(before)
    }
    try {
      const r = await api.get(withQuery('/sessions', 'limit=100', before ? `before=${encodeURIComponent(before)}` : '', machineQuery(from)))
      // an answer for the machine picked before this one is dropped
      if (asked.current !== from) return
      setSessions((held) => [...(before ? (held ?? []) : []), ...r.sessions])
      setNext(r.next)
    } catch (e: any) {
      if (asked.current === from) setError(e.message || String(e))
    } finally {
      if (before && fetchingRef.current === before) {
        fetchingRef.current = undefined
        setFetching(undefined)
      }
    }
  }
  useEffect(() => {
    asked.current = machine
    setSessions(null)
    setNext(undefined)
    setError(null)
    void load()
  }, [machine])
  const byProject = useMemo(() => {
    const m = new Map<string, PastSession[]>()
    for (const s of sessions ?? []) m.set(s.project, [...(m.get(s.project) ?? []), s])
    return [...m.entries()]
  }, [sessions])
  return (
    <main class="history">
      <header>
        <a class="back" href="#/">
          ‹
        </a>
        <h1>History</h1>
        <a class="search-link" href="#/search">
          Search
        </a>
      </header>
      <MachinePick machines={machines} machine={machine} onPick={setMachine} />
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {sessions === null && !error && <p class="empty">Loading…</p>}
      {sessions?.length === 0 && <p class="empty">No past sessions.</p>}
      {byProject.map(([project, list]) => (
        <section key={project} class="project-history" data-project={project}>
          <h2 title={project}>{baseName(project)}</h2>
          <ul>
            {list.map((s) => (
              <li key={`${s.agent_kind}:${s.session_id}`}>
                <a href={sessionHash(s.agent_kind, s.session_id, undefined, machine)}>
                  <span class="kind">{s.agent_kind}</span> <span class="title">{s.title || s.session_id}</span>{' '}
                  <span class="when">{ago(s.last_activity_ts)}</span>
                  {s.pane_id && <span class="live"> · live</span>}
                </a>
              </li>
            ))}
          </ul>
        </section>
      ))}
      {next && (
        <button type="button" class="more" disabled={fetching === next} onClick={() => void load(next)}>
          More
        </button>
      )}
    </main>
  )
}

interface PastState extends TranscriptState {
  hasNewer: boolean
  pendingNewer: boolean
}

/** The transcript reducer, plus what a session socket adds: has_newer and load_newer's pages. */
function reducePast(s: PastState, f: any): PastState {
  if (f?.type === 'newer_page_complete') return { ...s, pendingNewer: false, hasNewer: !!f.has_newer }
  const { state } = reduce(s, f)
  const next = { ...s, ...state }
  if (f?.type === 'hello') {
    next.hasNewer = !!f.has_newer
    next.pendingNewer = false
  }
  return next
}

function useSessionTranscript(session: string, machine: string, around: number | undefined) {
  const empty = (): PastState => ({ ...emptyTranscript(), hasNewer: false, pendingNewer: false })
  const [state, setState] = useState<PastState>(empty)
  const [status, setStatus] = useState<SocketStatus>('connecting')
  const [refused, setRefused] = useState<string | null>(null)
  const ref = useRef<{ s: PastState; sock: LiveSocket | null; around: number | undefined }>({ s: empty(), sock: null, around })
  useEffect(() => {
    const box = ref.current
    box.s = empty()
    box.around = around
    const sock = new LiveSocket({
      // a reconnect opens where the reader is: the oldest entry held
      url: () =>
        socketUrl('/agent-transcript', {
          session,
          around: String(box.s.entries[0]?.seq ?? box.around ?? '') || null,
          machine: machine === 'local' ? null : machine,
        }),
      onFrame: (f) => {
        box.s = reducePast(box.s, f)
        setState(box.s)
      },
      onOpen: () => setRefused(null),
      onStatus: (st, why) => {
        if (st === 'closed' && why === 'refused') setRefused('This session is not there any more.')
        setStatus(st)
      },
      maxFailures: 3,
    })
    box.sock = sock
    return () => sock.close()
  }, [session, machine, around])
  const loadOlder = () => askOlder(ref.current, setState)
  const loadNewer = () => {
    const s = ref.current.s
    const last = s.entries[s.entries.length - 1]
    if (!s.hasNewer || s.pendingNewer || !last || !ref.current.sock?.open) return
    ref.current.s = { ...s, pendingNewer: true }
    setState(ref.current.s)
    ref.current.sock.send({ type: 'load_newer', after_seq: last.seq, limit: 150 })
  }
  return { state, status, refused, loadOlder, loadNewer }
}

function ResumeButton({ kind, id, project, machine }: { kind: string; id: string; project: string; machine: string }) {
  const [busy, setBusy] = useState(false)
  const [msg, setMsg] = useState<string | null>(null)
  const resume = async () => {
    setBusy(true)
    setMsg(null)
    try {
      const body = { kind, cwd: project, resume: id }
      const r = await api.post('/agent-start', machine === 'local' ? body : { ...body, machine })
      location.hash = `#/p/${encodeURIComponent(r.pane_id)}`
    } catch (e: any) {
      const pane = e instanceof ApiError && e.status === 504 ? /pane (\S+) is left running/.exec(e.message)?.[1] : undefined
      // another machine names its pane plainly in its message
      if (pane) location.hash = `#/p/${encodeURIComponent(machine === 'local' || pane.includes('/') ? pane : `${machine}/${pane}`)}`
      else setMsg(e.message || String(e))
    } finally {
      setBusy(false)
    }
  }
  return (
    <>
      <button type="button" class="resume" disabled={busy} onClick={() => void resume()}>
        {busy ? 'Resuming…' : 'Resume'}
      </button>
      {msg && (
        <p class="error" role="alert">
          {msg}
        </p>
      )}
    </>
  )
}

export function SessionScreen({ session: ref, at }: { session: string; at?: number }) {
  const { machine, session } = splitSessionRef(ref)
  const [kind, ...rest] = session.split(':')
  const id = rest.join(':')
  const { state, status, refused, loadOlder, loadNewer } = useSessionTranscript(session, machine, at)
  const [row, setRow] = useState<PastSession | null>(null)
  const scopes = useScopes()
  const box = useRef<HTMLDivElement>(null)
  const placed = useRef(false)
  const results = useMemo(() => resultsByCall(state.entries), [state.entries])
  const held = useMemo(() => new Set(state.entries.filter((e) => e.kind === 'tool_call' && e.tool).map((e) => e.tool!.id)), [state.entries])
  useEffect(() => {
    // the session's row: its project (to resume in) and whether a pane shows it now
    api
      .get(withQuery('/sessions', `kind=${encodeURIComponent(kind ?? '')}`, 'limit=200', machineQuery(machine)))
      .then((r: { sessions: PastSession[] }) => setRow(r.sessions.find((s) => s.session_id === id) ?? null))
      .catch(() => {})
  }, [ref])
  // Once the first page is in: the hit in view (or the newest entry when opened without one).
  useLayoutEffect(() => {
    const el = box.current
    if (!el || placed.current || !state.backlogDone) return
    placed.current = true
    const hit = at ? el.querySelector(`[data-seq="${at}"]`) : null
    if (hit) hit.scrollIntoView({ block: 'start' })
    else el.scrollTop = el.scrollHeight
  }, [state.backlogDone])
  const onScroll = () => {
    const el = box.current
    if (!el || !state.backlogDone) return
    if (el.scrollTop < 200) loadOlder()
    if (el.scrollHeight - el.scrollTop - el.clientHeight < 200) loadNewer()
  }
  return (
    <main class="past-session">
      <header>
        <a class="back" href="#/history">
          ‹
        </a>
        <h1>
          {row?.title || id}
          {machine !== 'local' && <span class="on-machine">{machine}</span>}
        </h1>
        {row?.pane_id ? (
          <a class="live-link" href={`#/p/${encodeURIComponent(row.pane_id)}`}>
            live pane
          </a>
        ) : (
          row && can(scopes, 'start') && <ResumeButton kind={kind!} id={id} project={row.project} machine={machine} />
        )}
      </header>
      <section class="transcript-wrap">
        <div class="transcript" ref={box} onScroll={onScroll} data-status={status}>
          {refused && <p class="empty">{refused}</p>}
          <OlderEntries state={state} loadOlder={loadOlder} />
          {state.entries.map((e) => (
            <div key={e.seq} class={e.seq === at ? 'hit-entry' : undefined}>
              <EntryView e={e} results={results} held={held} />
            </div>
          ))}
          {state.hasNewer && (
            <button type="button" class="newer" onClick={loadNewer} disabled={state.pendingNewer}>
              {state.pendingNewer ? 'Loading newer…' : 'Load newer'}
            </button>
          )}
          {!state.backlogDone && !refused && <p class="empty">Loading…</p>}
        </div>
      </section>
    </main>
  )
}
