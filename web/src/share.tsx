// "Share → gothalo" (Android's share sheet, the manifest's share_target): the
// service worker keeps what was shared; this screen shows it and asks which agent
// gets it, then uploads and sends it there like the send box does.
import { useEffect, useState } from 'preact/hooks'
import { api } from './api'
import { ATTACHABLE, uploadAttachment } from './agent'
import { paneName, type PaneRow } from './pane-list'
import { takeShared } from './worker-token'

export function ShareScreen({ panes }: { panes: PaneRow[] }) {
  const [shared, setShared] = useState<{ files: File[]; text: string } | null | undefined>(undefined)
  const [text, setText] = useState('')
  const [busy, setBusy] = useState(false)
  const [msg, setMsg] = useState<string | null>(null)
  useEffect(() => {
    void takeShared().then((s) => {
      const files = (s?.files ?? []).filter((f) => ATTACHABLE.includes(f.type))
      setShared(s ? { files, text: s.text } : null)
      setText(s?.text ?? '')
    })
  }, [])
  const agents = panes.filter((p) => p.agent_kind)
  const give = async (pane: string) => {
    if (!shared) return
    setBusy(true)
    setMsg(null)
    try {
      const attachments: string[] = []
      for (const f of shared.files) attachments.push(await uploadAttachment(pane, f))
      await api.post('/send', { pane, text: `${text.replace(/\r?\n/g, ' ')}\n`, ...(attachments.length ? { attachments } : {}) })
      location.hash = `#/p/${encodeURIComponent(pane)}`
    } catch (e: any) {
      setMsg(e.message || String(e))
    } finally {
      setBusy(false)
    }
  }
  return (
    <main class="share">
      <header>
        <a class="back" href="#/">
          ‹
        </a>
        <h1>Share with an agent</h1>
      </header>
      {shared === undefined && <p class="empty">Reading what was shared…</p>}
      {shared === null && <p class="empty">Nothing was shared (or it was sent already).</p>}
      {shared && (
        <section class="shared">
          <ul class="thumbs">
            {shared.files.map((f) => (
              <li class="thumb" key={f.name}>
                {f.type.startsWith('image/') ? <img src={URL.createObjectURL(f)} alt={f.name} /> : <span class="doc">{f.name}</span>}
              </li>
            ))}
          </ul>
          <label class="prompt">
            Message (optional)
            <input value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} placeholder="What should it do with it?" />
          </label>
          <h2>Which agent gets it?</h2>
          <ul class="agents">
            {agents.map((p) => (
              <li key={p.pane_id}>
                <button type="button" disabled={busy} onClick={() => give(p.pane_id)}>
                  <span class="kind">{p.agent_kind}</span> {paneName(p)} <span class="dim">{p.agent_status}</span>
                </button>
              </li>
            ))}
            {agents.length === 0 && <li class="msg">No agent is running.</li>}
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
