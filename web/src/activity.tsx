// "Activity" (devices with the admin scope): the audit log, newest first, from
// GET /audit — who did what to which pane, and how it was answered. Typed text is
// never there: the log keeps only its length.
import { useEffect, useState } from 'preact/hooks'
import { api } from './api'

interface Row {
  id: number
  ts: number
  device_id: string
  action: string
  pane: string | null
  detail: Record<string, unknown>
  status: number
}

const when = (ts: number) => new Date(ts).toLocaleString()

/** One line of what the row's detail says (never typed text: the log has none). */
function summary(r: Row): string {
  const d = r.detail as {
    text?: { length?: number }
    choose?: number[]
    kind?: string
    cwd?: unknown
    name?: unknown
    bytes_typed?: number
    mime?: string
    invalid_body?: { length?: number }
    count?: number
    address?: string
  }
  // requests without a valid token are counted, one row per address a minute
  if (r.action === 'unauthenticated') return `${d.count ?? '?'} without a valid token from ${d.address ?? '?'}`
  if (d.invalid_body) return `a malformed request (${d.invalid_body.length ?? '?'} bytes, not kept)`
  if (d.text?.length !== undefined) return `${d.text.length} characters typed`
  if (Array.isArray(d.choose)) return `chose ${d.choose.join(', ')}`
  // a start refused for its directory keeps the directory only as a digest
  if (d.kind) return `${d.kind} in ${typeof d.cwd === 'string' ? d.cwd : 'a directory that was refused'}`
  if (d.bytes_typed !== undefined) return `${d.bytes_typed} bytes typed`
  if (d.mime) return d.mime
  if (typeof d.name === 'string') return d.name
  return ''
}

export function ActivityScreen() {
  const [rows, setRows] = useState<Row[] | null>(null)
  const [err, setErr] = useState<string | null>(null)
  useEffect(() => {
    api
      .get('/audit?limit=200')
      .then((r) => setRows(r.rows))
      .catch((e) => setErr(e.message || String(e)))
  }, [])
  return (
    <main class="activity">
      <header>
        <a class="back" href="#/">
          ‹
        </a>
        <h1>Activity</h1>
      </header>
      {err && <p class="msg error">{err}</p>}
      {!rows && !err && <p class="empty">Reading the audit log…</p>}
      {rows?.length === 0 && <p class="empty">Nothing done from a phone yet.</p>}
      <ul class="audit">
        {rows?.map((r) => (
          <li key={r.id} class={r.status >= 400 ? 'audit-row refused' : 'audit-row'}>
            <span class="what">
              {r.action} {r.pane && <code>{r.pane}</code>} <span class="status">{r.status}</span>
            </span>
            <span class="dim">
              {when(r.ts)} · {r.device_id} {summary(r) && `· ${summary(r)}`}
            </span>
          </li>
        ))}
      </ul>
    </main>
  )
}
