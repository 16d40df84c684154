// "New agent": pick a project (recent ones first, or browse the folders inside
// the project roots), pick the agent, optionally say what it should do, start it;
// or resume one of a project's sessions. The new agent opens at once.
import { useEffect, useState } from 'preact/hooks'
import { ApiError, api } from './api'
import { MachinePick, machineQuery, useMachines, withQuery } from './machine-pick'

type Kind = 'claude' | 'pi' | 'opencode' | 'codex'
const KINDS: { kind: Kind; label: string }[] = [
  { kind: 'claude', label: 'Claude Code' },
  { kind: 'codex', label: 'Codex' },
  { kind: 'pi', label: 'pi' },
  { kind: 'opencode', label: 'OpenCode' },
]

interface Session {
  agent_kind: Kind
  session_id: string
  title: string
  last_activity_ts: string
  pane_id?: string
}
interface Project {
  path: string
  name: string
  last_activity_ts: string
  sessions: Session[]
}
interface Dirs {
  path: string
  parent?: string
  entries: { name: string; git: boolean }[]
}

export const ago = (ts: string) => {
  const s = Math.max(0, (Date.now() - Date.parse(ts)) / 1000)
  return s < 90 ? 'just now' : s < 5400 ? `${Math.round(s / 60)} min ago` : s < 129600 ? `${Math.round(s / 3600)} h ago` : `${Math.round(s / 86400)} d ago`
}

const openAgent = (pane: string) => {
  location.hash = `#/p/${encodeURIComponent(pane)}`
}

function Browser({ onPick, machine }: { onPick: (path: string) => void; machine: string }) {
  const [dirs, setDirs] = useState<Dirs | null>(null)
  const [err, setErr] = useState<string | null>(null)
  const go = (path?: string) =>
    api
      .get(withQuery('/dirs', path === undefined ? '' : `path=${encodeURIComponent(path)}`, machineQuery(machine)))
      .then((d) => (setDirs(d), setErr(null)))
      .catch((e) => setErr(e.message))
  useEffect(() => void go(), [])
  if (err) return <p class="msg error">{err}</p>
  if (!dirs) return <p class="msg">Reading folders…</p>
  const child = (name: string) => (dirs.path ? `${dirs.path.replace(/\/$/, '')}/${name}` : name)
  return (
    <div class="browse">
      <div class="where">
        {dirs.path ? (
          <>
            <button type="button" class="link" onClick={() => go(dirs.parent)}>
              ‹ {dirs.parent ? 'up' : 'roots'}
            </button>
            <code>{dirs.path}</code>
            <button type="button" class="use" onClick={() => onPick(dirs.path)}>
              Use this folder
            </button>
          </>
        ) : (
          <span class="msg">Project roots</span>
        )}
      </div>
      <ul class="dirs">
        {dirs.entries.map((e) => (
          <li key={e.name}>
            <button type="button" class="dir" onClick={() => go(child(e.name))}>
              📁 {e.name} {e.git && <span class="git">git</span>}
            </button>
          </li>
        ))}
        {dirs.entries.length === 0 && <li class="msg">No folders here.</li>}
      </ul>
    </div>
  )
}

export function NewAgentScreen() {
  const [projects, setProjects] = useState<Project[] | null>(null)
  const [cwd, setCwd] = useState<string | null>(null)
  const [kind, setKind] = useState<Kind>('claude')
  const [prompt, setPrompt] = useState('')
  const [browsing, setBrowsing] = useState(false)
  const [busy, setBusy] = useState(false)
  const [msg, setMsg] = useState<string | null>(null)
  // several machines: which one starts it (a single machine shows no choice)
  const machines = useMachines()
  const [machine, setMachine] = useState('local')
  useEffect(() => {
    setProjects(null)
    setCwd(null)
    setBrowsing(false)
    api
      .get(withQuery('/projects', machineQuery(machine)))
      .then((r) => setProjects(r.projects))
      .catch((e) => setMsg(e.message))
  }, [machine])
  /** a pane another machine answered with is LABEL/PANE; its /projects name their panes plainly */
  const qualified = (pane: string) => (machine === 'local' || pane.includes('/') ? pane : `${machine}/${pane}`)
  const start = async (body: Record<string, unknown>) => {
    setBusy(true)
    setMsg(null)
    try {
      const r = await api.post('/agent-start', machine === 'local' ? body : { ...body, machine })
      openAgent(r.pane_id)
    } catch (e: any) {
      // a start that timed out left its pane (Stop closes it); a session live in a pane opens there
      const pane =
        e instanceof ApiError && e.status === 504
          ? /pane (\S+) is left running/.exec(e.message)?.[1]
          : e instanceof ApiError && e.status === 409
            ? /^session is live in pane (\S+)$/.exec(e.message)?.[1]
            : undefined
      if (pane) openAgent(qualified(pane))
      else setMsg(e.message || String(e))
    } finally {
      setBusy(false)
    }
  }
  const project = projects?.find((p) => p.path === cwd)
  return (
    <main class="new-agent">
      <header>
        <a class="back" href="#/">
          ‹
        </a>
        <h1>New agent</h1>
      </header>
      <MachinePick machines={machines} machine={machine} onPick={setMachine} />
      <section class="pick">
        <h2>Project</h2>
        {cwd ? (
          <p class="chosen">
            <code>{cwd}</code>{' '}
            <button type="button" class="link" onClick={() => setCwd(null)}>
              change
            </button>
          </p>
        ) : browsing ? (
          <Browser
            machine={machine}
            onPick={(p) => {
              setCwd(p)
              setBrowsing(false)
            }}
          />
        ) : (
          <>
            {projects === null && !msg && <p class="msg">Reading projects…</p>}
            <ul class="projects">
              {projects?.map((p) => (
                <li key={p.path}>
                  <button type="button" class="project" onClick={() => setCwd(p.path)}>
                    <span class="name">{p.name}</span>
                    <span class="path">{p.path}</span>
                    <span class="when">{ago(p.last_activity_ts)}</span>
                  </button>
                </li>
              ))}
            </ul>
            <button type="button" class="link" onClick={() => setBrowsing(true)}>
              Browse folders…
            </button>
          </>
        )}
      </section>
      {cwd && (
        <section class="start-form">
          <h2>Agent</h2>
          <div class="kinds" role="radiogroup" aria-label="agent">
            {KINDS.map((k) => (
              <label key={k.kind} class={kind === k.kind ? 'on' : ''}>
                <input type="radio" name="kind" value={k.kind} checked={kind === k.kind} onChange={() => setKind(k.kind)} /> {k.label}
              </label>
            ))}
          </div>
          <label class="prompt">
            What should it do? (optional)
            <textarea rows={3} value={prompt} onInput={(e) => setPrompt((e.target as HTMLTextAreaElement).value)} placeholder="Fix the failing test in…" />
          </label>
          <button type="button" class="primary" disabled={busy} onClick={() => start({ kind, cwd, ...(prompt.trim() ? { prompt: prompt.trim() } : {}) })}>
            {busy ? 'Starting…' : 'Start'}
          </button>
        </section>
      )}
      {project && project.sessions.length > 0 && (
        <section class="sessions">
          <h2>Sessions here</h2>
          <ul>
            {project.sessions.map((s) => (
              <li class="session-row" key={`${s.agent_kind}/${s.session_id}`}>
                <span class="kind">{s.agent_kind}</span>
                <span class="title">{s.title || '(no prompt yet)'}</span>
                <span class="when">{ago(s.last_activity_ts)}</span>
                {s.pane_id ? (
                  <button type="button" onClick={() => openAgent(qualified(s.pane_id!))}>
                    Open
                  </button>
                ) : (
                  <button type="button" disabled={busy} onClick={() => start({ kind: s.agent_kind, cwd: project.path, resume: s.session_id })}>
                    Resume
                  </button>
                )}
              </li>
            ))}
          </ul>
        </section>
      )}
      {msg && (
        <p class="msg error" role="alert">
          {msg}
        </p>
      )}
    </main>
  )
}

/** "Stop" on an agent's screen: behind a confirmation, and a second one when it is working. */
export function StopButton({ pane }: { pane: string }) {
  const [msg, setMsg] = useState<string | null>(null)
  const stop = async () => {
    if (!confirm('Stop this agent? Its pane is closed.')) return
    try {
      await api.post('/agent-stop', { pane })
      location.hash = '#/'
    } catch (e: any) {
      if (e instanceof ApiError && e.status === 409 && confirm('It is working right now. Stop it anyway?')) {
        try {
          await api.post('/agent-stop', { pane, force: true })
          location.hash = '#/'
        } catch (e2: any) {
          setMsg(e2.message)
        }
      } else if (!(e instanceof ApiError && e.status === 409)) setMsg(e.message)
    }
  }
  return (
    <>
      <button type="button" class="stop link" onClick={stop}>
        Stop
      </button>
      {msg && <span class="msg error">{msg}</span>}
    </>
  )
}
