// One agent: its card (what it does, what it waits on, the answers), the
// transcript below it (newest page, older pages on scroll-up, live tail), a send
// box and the permission-mode button.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks'
import { api, ApiError, socketUrl, token } from './api'
import { LiveSocket, type SocketStatus } from './live-socket'
import { renderMarkdown } from './markdown'
import { paneName, type Card, type PaneRow } from './pane-list'
import { emptyTranscript, forReconnect, olderRequest, reduce, resultsByCall, type Entry, type Subagent, type TranscriptState } from './transcript-state'
import { can, useScopes } from './scopes'
import { StopButton } from './new-agent'
import { changesHash } from './changes'
import { UsageStrip } from './usage'

function useCard(pane: string, row: PaneRow | undefined): [Card | null, string | null, () => void] {
  const [card, setCard] = useState<Card | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [tick, setTick] = useState(0)
  useEffect(() => {
    let live = true
    api
      .get(`/agent-state?pane=${encodeURIComponent(pane)}`)
      .then((c) => {
        if (!live) return
        setCard(c)
        setError(null)
      })
      .catch((e) => live && setError(e.message))
    return () => {
      live = false
    }
  }, [pane, row?.agent_status, row?.state_change_seq, row?.title, tick])
  return [card, error, () => setTick((t) => t + 1)]
}

function AnswerPanel({ pane, card, row, refresh }: { pane: string; card: Card; row: PaneRow | undefined; refresh: () => void }) {
  const b = card.blocked!
  const [checked, setChecked] = useState<Set<number>>(() => new Set(b.options.map((o, i) => (o.checked ? i + 1 : 0)).filter(Boolean)))
  const [textFor, setTextFor] = useState<number | null>(null)
  const [text, setText] = useState('')
  const [msg, setMsg] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const send = async (choose: number[], freeText?: string) => {
    setBusy(true)
    setMsg(null)
    try {
      // The guard needs the seq the user saw; opened from a link, the list may not have it yet.
      const seq = row?.state_change_seq ?? (await api.get('/snapshot')).panes?.find((p: PaneRow) => p.pane_id === pane)?.state_change_seq
      if (b.fingerprint) {
        const body: Record<string, unknown> = { pane, seq, fingerprint: b.fingerprint, choose }
        if (freeText !== undefined) body.text = freeText
        const r = await api.post('/answer', body)
        setMsg(r.sent ? 'Sent.' : 'Already answered.')
      } else {
        // Bridges without /answer: Enter for the highlighted option, its number otherwise.
        const o = b.options[choose[0]! - 1]!
        if (o.selected) await api.post('/approve', { agent: pane, seq })
        else await api.post('/send', { pane, text: `${o.index}\n` })
        setMsg('Sent.')
      }
      setTextFor(null)
      setText('')
    } catch (e: any) {
      setMsg(e instanceof ApiError && e.status === 409 ? `Not sent: ${e.message}. The card is refreshed.` : `Not sent: ${e.message}`)
    } finally {
      setBusy(false)
      refresh()
    }
  }

  const tap = (pos: number) => {
    const o = b.options[pos - 1]!
    if (o.free_text) {
      setTextFor(pos)
      return
    }
    if (b.multi_select) {
      const next = new Set(checked)
      next.has(pos) ? next.delete(pos) : next.add(pos)
      setChecked(next)
      return
    }
    void send([pos])
  }

  const progress = (b.questions as any)?.titles as string[] | undefined
  return (
    <section class="answer" aria-label="answer">
      {Array.isArray(progress) && progress.length > 1 && (
        <p class="progress">
          Question {((b.questions as any).current ?? 0) + 1} of {progress.length}
        </p>
      )}
      <p class="question">{b.question}</p>
      <div class="options">
        {b.options.map((o, i) => (
          <button
            type="button"
            key={`${i}:${o.label}`}
            class={`option${o.selected ? ' default' : ''}${b.multi_select && checked.has(i + 1) ? ' checked' : ''}`}
            disabled={busy}
            aria-pressed={b.multi_select ? checked.has(i + 1) : undefined}
            onClick={() => tap(i + 1)}
          >
            {b.multi_select && <span class="box">{checked.has(i + 1) ? '☑' : '☐'}</span>}
            {o.index > 0 && <span class="num">{o.index}</span>}
            <span class="text">
              <span class="label">{o.label}</span>
              {o.description && <span class="desc">{o.description}</span>}
            </span>
          </button>
        ))}
        {b.multi_select && (
          <button type="button" class="option submit" disabled={busy || checked.size === 0} onClick={() => void send([...checked].sort((x, y) => x - y))}>
            Submit {checked.size > 0 ? `(${checked.size})` : ''}
          </button>
        )}
      </div>
      {textFor !== null && (
        <form
          class="free-text"
          onSubmit={(e) => {
            e.preventDefault()
            void send([textFor], text)
          }}
        >
          <textarea rows={3} placeholder={b.options[textFor - 1]!.label} value={text} onInput={(e) => setText((e.target as HTMLTextAreaElement).value)} />
          <button type="submit" disabled={busy || !text.trim()}>
            Send
          </button>
        </form>
      )}
      {msg && (
        <p class="msg" role="status">
          {msg}
        </p>
      )}
    </section>
  )
}

function CardView({
  pane,
  card,
  error,
  row,
  refresh,
}: {
  pane: string
  card: Card | null
  error: string | null
  row: PaneRow | undefined
  refresh: () => void
}) {
  const [mode, setMode] = useState<string | null>(null)
  const [modeMsg, setModeMsg] = useState<string | null>(null)
  const scopes = useScopes()
  useEffect(() => setMode(card?.permission_mode ?? null), [card?.permission_mode])
  if (error && !card) return <section class="card error">{error}</section>
  if (!card) return <section class="card loading">Reading the pane…</section>
  const cycle = async () => {
    setModeMsg(null)
    try {
      const r = await api.post('/agent-mode/cycle', { pane })
      setMode(r.permission_mode ?? null)
      if (!r.confirmed) setModeMsg('Mode key sent; the footer did not confirm it.')
    } catch (e: any) {
      setModeMsg(e.message)
    }
  }
  return (
    <section class={`card s-${card.agent_status}`}>
      <div class="row1">
        <span class={`status s-${card.agent_status}`}>{card.agent_status}</span>
        {can(scopes, 'answer') && card.agent_status !== 'blocked' && (mode || card.agent_kind === 'claude' || card.agent_kind === 'codex') && (
          <button type="button" class="mode" onClick={cycle} title="cycle the permission mode (Shift+Tab)">
            mode: {mode ?? 'unknown'} ⇄
          </button>
        )}
      </div>
      {card.agent_status === 'blocked' && card.blocked && can(scopes, 'answer') ? (
        <AnswerPanel key={card.blocked.fingerprint ?? card.blocked.question} pane={pane} card={card} row={row} refresh={refresh} />
      ) : card.agent_status === 'blocked' && card.blocked ? (
        <section class="answer view-only" aria-label="question">
          <p class="question">{card.blocked.question}</p>
          <ul class="options">
            {card.blocked.options.map((o) => (
              <li key={o.label}>
                {o.label}
                {o.description && <span class="desc">{o.description}</span>}
              </li>
            ))}
          </ul>
          {scopes && <p class="msg">This device can watch, not answer.</p>}
        </section>
      ) : (
        <p class="headline">{card.headline}</p>
      )}
      {card.detail && card.detail !== card.headline && (
        <details class="detail">
          <summary>details</summary>
          <pre>{card.detail}</pre>
        </details>
      )}
      {modeMsg && <p class="msg">{modeMsg}</p>}
    </section>
  )
}

function Diff({ text }: { text: string }) {
  return (
    <pre class="diff">
      {text.split('\n').map((l, i) => (
        <span key={i} class={l.startsWith('+') ? 'add' : l.startsWith('-') ? 'del' : l.startsWith('@@') ? 'hunk' : ''}>
          {l}
          {'\n'}
        </span>
      ))}
    </pre>
  )
}

function ToolCall({ e, result }: { e: Entry; result?: Entry }) {
  const t = e.tool!
  const r = result?.result
  const diff = r?.diff ?? t.diff
  const state = !result ? 'running' : r?.ok ? 'ok' : 'failed'
  return (
    <details class={`tool t-${state}`} data-seq={e.seq}>
      <summary>
        <span class="tname">{t.title ?? t.name}</span> <span class="tsum">{t.subtitle ?? t.command ?? t.file ?? t.input_summary ?? ''}</span>
        <span class={`tstate ${state}`}>{state === 'running' ? '…' : state === 'ok' ? '✓' : '✗'}</span>
      </summary>
      {t.command && <pre class="cmd">$ {t.command}</pre>}
      {!t.command && t.input_summary && <pre class="cmd">{t.input_summary}</pre>}
      {diff && <Diff text={diff} />}
      {r?.output_summary && <pre class="out">{r.output_summary}</pre>}
      {(r?.truncated || t.diff_truncated) && <p class="note">(cut)</p>}
    </details>
  )
}

export function EntryView({ e, results, held }: { e: Entry; results: Map<string, Entry>; held: Set<string> }) {
  if (e.kind === 'tool_call' && e.tool) return <ToolCall e={e} result={results.get(e.tool.id)} />
  if (e.kind === 'tool_result') {
    // Shown with its call; alone only when the call is not held (an older page).
    if (e.result && held.has(e.result.for_id)) return null
    return (
      <details class="tool orphan" data-seq={e.seq}>
        <summary>result {e.result?.ok === false ? '✗' : '✓'}</summary>
        {e.result?.diff && <Diff text={e.result.diff} />}
        {e.result?.output_summary && <pre class="out">{e.result.output_summary}</pre>}
      </details>
    )
  }
  if (e.kind === 'thinking')
    return (
      <details class="thinking" data-seq={e.seq}>
        <summary>thinking</summary>
        <div class="md" dangerouslySetInnerHTML={{ __html: renderMarkdown(e.text ?? '') }} />
      </details>
    )
  const cls = `msg-${e.role} k-${e.kind}${e.parsed ? '' : ' unparsed'}`
  if (e.role === 'assistant') return <div class={`bubble ${cls}`} data-seq={e.seq} dangerouslySetInnerHTML={{ __html: renderMarkdown(e.text ?? '') }} />
  return (
    <div class={`bubble ${cls}`} data-seq={e.seq}>
      {e.text ?? ''}
    </div>
  )
}

function SubagentList({ pane, subagents }: { pane: string; subagents: Subagent[] }) {
  if (subagents.length === 0) return null
  const running = subagents.filter((s) => !s.done).length
  return (
    <details class="subagents">
      <summary>
        Subagents: {running} running / {subagents.length}
      </summary>
      <ul>
        {subagents.map((s) => (
          <li key={s.agent_id}>
            <a href={`#/p/${encodeURIComponent(pane)}/a/${encodeURIComponent(s.agent_id)}`}>
              <span class={s.done ? 'done' : 'running'}>{s.done ? '✓' : '●'}</span> {s.agent_type ?? 'agent'} · {s.description ?? s.agent_id}
            </a>
          </li>
        ))}
      </ul>
    </details>
  )
}

function useTranscript(pane: string, subagent?: string) {
  const [state, setState] = useState<TranscriptState>(emptyTranscript)
  const [status, setStatus] = useState<SocketStatus>('connecting')
  const [refused, setRefused] = useState<string | null>(null)
  const ref = useRef<{ s: TranscriptState; sock: LiveSocket | null }>({ s: emptyTranscript(), sock: null })
  useEffect(() => {
    const box = ref.current
    box.s = emptyTranscript()
    const sock = new LiveSocket({
      url: () => socketUrl('/agent-transcript', { pane, subagent }),
      onFrame: (f) => {
        const { state: next, request } = reduce(box.s, f)
        box.s = next
        setState(next)
        if (request) sock.send(request)
      },
      onOpen: () => setRefused(null),
      onStatus: (st, why) => {
        if (st === 'closed') {
          box.s = forReconnect(box.s)
          if (why === 'refused') setRefused('No transcript for this pane.')
        }
        setStatus(st)
      },
      maxFailures: 3,
    })
    box.sock = sock
    return () => sock.close()
  }, [pane, subagent])
  const loadOlder = () => askOlder(ref.current, setState)
  return { state, status, refused, loadOlder }
}

/** Asks a transcript socket for the page before its oldest entry, marking it pending (a pane's and a past session's alike). */
export function askOlder<S extends TranscriptState>(box: { s: S; sock: LiveSocket | null }, setState: (s: S) => void): void {
  const req = olderRequest(box.s)
  if (!req || !box.sock?.open) return
  box.s = { ...box.s, pendingOlder: req.before_seq }
  setState(box.s)
  box.sock.send(req)
}

function TranscriptView({ pane, subagent }: { pane: string; subagent?: string }) {
  const { state, status, refused, loadOlder } = useTranscript(pane, subagent)
  const box = useRef<HTMLDivElement>(null)
  const stick = useRef(true)
  const before = useRef<{ height: number; top: number; first: number | null }>({ height: 0, top: 0, first: null })
  const results = useMemo(() => resultsByCall(state.entries), [state.entries])
  const held = useMemo(() => new Set(state.entries.filter((e) => e.kind === 'tool_call' && e.tool).map((e) => e.tool!.id)), [state.entries])

  // Keep the reading position when older entries are put above it; follow the tail when at the bottom.
  useLayoutEffect(() => {
    const el = box.current
    if (!el) return
    const first = state.entries[0]?.seq ?? null
    const b = before.current
    if (stick.current && state.backlogDone) el.scrollTop = el.scrollHeight
    else if (b.first !== null && first !== null && first < b.first) el.scrollTop = b.top + (el.scrollHeight - b.height)
    b.height = el.scrollHeight
    b.top = el.scrollTop
    b.first = first
  }, [state.entries, state.backlogDone])

  // The box itself changes size when something above it appears or grows (the usage strip, the
  // card, the subagent list): a view that follows the tail stays at the bottom through that too.
  useEffect(() => {
    const el = box.current
    if (!el || typeof ResizeObserver === 'undefined') return
    const watch = new ResizeObserver(() => {
      if (!stick.current || !state.backlogDone) return
      el.scrollTop = el.scrollHeight
      before.current.top = el.scrollTop
      before.current.height = el.scrollHeight
    })
    watch.observe(el)
    return () => watch.disconnect()
  }, [state.backlogDone])

  const onScroll = () => {
    const el = box.current
    if (!el) return // a scroll event can land after the view is gone
    // Until the newest page is complete the view is not the reader's: it is put at the bottom then.
    // A scroll event before that (the browser keeping its place as the page fills) must neither
    // unstick it nor ask for older entries.
    if (!state.backlogDone) return
    // Unstuck only by the reader moving up; the view growing below it keeps it following.
    if (el.scrollHeight - el.scrollTop - el.clientHeight < 40) stick.current = true
    else if (el.scrollTop < before.current.top) stick.current = false
    before.current.top = el.scrollTop
    before.current.height = el.scrollHeight
    if (el.scrollTop < 300) loadOlder()
  }

  return (
    <section class="transcript-wrap">
      <SubagentList pane={pane} subagents={subagent ? [] : state.subagents} />
      <div class="transcript" ref={box} onScroll={onScroll} data-status={status}>
        {refused && <p class="empty">{refused}</p>}
        <OlderEntries state={state} loadOlder={loadOlder} />
        {state.entries.map((e) => (
          <EntryView key={e.seq} e={e} results={results} held={held} />
        ))}
        {!state.backlogDone && !refused && <p class="empty">Loading…</p>}
      </div>
      {status !== 'open' && !refused && <p class="offline">Reconnecting…</p>}
    </section>
  )
}

/** Above a transcript's entries: the button for the page before them, or the conversation's start once it is in. */
export function OlderEntries({ state, loadOlder }: { state: TranscriptState; loadOlder: () => void }) {
  if (state.hasOlder)
    return (
      <button type="button" class="older" onClick={loadOlder} disabled={state.pendingOlder !== null}>
        {state.pendingOlder !== null ? 'Loading older…' : 'Load older'}
      </button>
    )
  return state.backlogDone && state.entries.length > 0 ? <p class="start">Start of the conversation</p> : null
}

/** The attach button's paperclip, drawn (the emoji is an empty box in fonts without it). */
function PaperclipIcon() {
  return (
    <svg
      class="icon"
      viewBox="0 0 24 24"
      width="20"
      height="20"
      aria-hidden="true"
      fill="none"
      stroke="currentColor"
      stroke-width="2"
      stroke-linecap="round"
      stroke-linejoin="round"
    >
      <path d="M21 11.5l-8.6 8.6a5.5 5.5 0 0 1-7.8-7.8l8.6-8.6a3.7 3.7 0 0 1 5.2 5.2l-8.6 8.6a1.8 1.8 0 0 1-2.6-2.6l7.9-7.9" />
    </svg>
  )
}

export const ATTACHABLE = ['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'application/pdf', 'text/plain']

/** Uploads one file for the agent (POST /attachments: the bytes as the body); its id. */
export async function uploadAttachment(pane: string, f: File): Promise<string> {
  const res = await fetch(`/attachments?pane=${encodeURIComponent(pane)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token()}`, 'content-type': f.type || 'application/octet-stream' },
    body: f,
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`${f.name}: ${text || res.statusText}`)
  return JSON.parse(text).id
}

function SendBox({ pane }: { pane: string }) {
  const [text, setText] = useState('')
  const [files, setFiles] = useState<{ file: File; url: string }[]>([])
  const [msg, setMsg] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const picker = useRef<HTMLInputElement>(null)
  const add = (list: Iterable<File>) => {
    const ok = [...list].filter((f) => ATTACHABLE.includes(f.type))
    if (ok.length < [...list].length) setMsg('Only images, PDFs and text files can be attached.')
    setFiles((cur) => [...cur, ...ok.map((file) => ({ file, url: URL.createObjectURL(file) }))].slice(0, 10))
  }
  const remove = (i: number) =>
    setFiles((cur) => {
      URL.revokeObjectURL(cur[i]!.url)
      return cur.filter((_, j) => j !== i)
    })
  return (
    <form
      class="send"
      onSubmit={async (e) => {
        e.preventDefault()
        if (!text.trim() && files.length === 0) return
        setBusy(true)
        setMsg(null)
        try {
          const attachments: string[] = []
          for (const f of files) attachments.push(await uploadAttachment(pane, f.file))
          // One line: a newline is an Enter key, so the text goes as typed and one Enter submits it.
          await api.post('/send', { pane, text: text.replace(/\r?\n/g, ' ') + '\n', ...(attachments.length ? { attachments } : {}) })
          setText('')
          for (const f of files) URL.revokeObjectURL(f.url)
          setFiles([])
        } catch (err: any) {
          setMsg(err.message)
        } finally {
          setBusy(false)
        }
      }}
    >
      {files.length > 0 && (
        <ul class="thumbs" aria-label="attachments">
          {files.map((f, i) => (
            <li class="thumb" key={f.url}>
              {f.file.type.startsWith('image/') ? <img src={f.url} alt={f.file.name} /> : <span class="doc">{f.file.name}</span>}
              <button type="button" class="remove" aria-label={`remove ${f.file.name}`} onClick={() => remove(i)}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <button type="button" class="attach" aria-label="attach a photo or a file" onClick={() => picker.current?.click()}>
        <PaperclipIcon />
      </button>
      <input
        ref={picker}
        type="file"
        multiple
        accept={ATTACHABLE.join(',')}
        hidden
        onChange={(e) => {
          const input = e.target as HTMLInputElement
          if (input.files) add(input.files)
          input.value = ''
        }}
      />
      <input
        name="text"
        placeholder="Message the agent…"
        value={text}
        onInput={(e) => setText((e.target as HTMLInputElement).value)}
        onPaste={(e) => {
          const pasted = [...(e.clipboardData?.files ?? [])]
          if (pasted.length) {
            e.preventDefault()
            add(pasted)
          }
        }}
        maxLength={4000}
      />
      <button type="submit" disabled={busy || (!text.trim() && files.length === 0)}>
        {busy ? 'Sending…' : 'Send'}
      </button>
      {msg && <p class="msg error">{msg}</p>}
    </form>
  )
}

export function AgentScreen({ pane, subagent, row }: { pane: string; subagent?: string; row: PaneRow | undefined }) {
  const [card, error, refresh] = useCard(pane, row)
  const scopes = useScopes()
  return (
    <main class="agent">
      <header>
        <a class="back" href={subagent ? `#/p/${encodeURIComponent(pane)}` : '#/'}>
          ‹
        </a>
        <h1>
          {subagent ? `subagent ${subagent.slice(0, 8)}` : row ? paneName(row) : pane}
          {row?.machine && <span class="on-machine agent-machine"> on {row.machine}</span>}
        </h1>
        {!subagent && can(scopes, 'code') && (
          <a class="changes-link" href={changesHash(pane)}>
            changes
          </a>
        )}
        {!subagent && can(scopes, 'start') && <StopButton pane={pane} />}
        {can(scopes, 'terminal') && (
          <a class="term-link" href={`#/p/${encodeURIComponent(pane)}/term`}>
            terminal
          </a>
        )}
      </header>
      {!subagent && <UsageStrip pane={pane} row={row} />}
      {!subagent && <CardView pane={pane} card={card} error={error} row={row} refresh={refresh} />}
      <TranscriptView pane={pane} subagent={subagent} />
      {!subagent && can(scopes, 'type') && <SendBox pane={pane} />}
    </main>
  )
}
