// "Changes": what the agent's repository holds now — every changed file with
// its +/− counts, a tap away from a coloured, wrapped, numbered diff, and the
// file's full text a tap further (GET /changes, /changes/diff, /files).
import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { api, token } from './api'
import { can, useScopes } from './scopes'

interface ChangedFile {
  path: string
  status: string
  staged: boolean
  old_path?: string
  additions: number
  deletions: number
  binary: boolean
}
interface Changes {
  repo_root: string
  branch?: string
  head?: string
  upstream?: string
  ahead: number
  behind: number
  files: ChangedFile[]
  truncated: boolean
}
interface DiffLine {
  op: ' ' | '+' | '-'
  old?: number
  new?: number
  text: string
}
interface FileDiff {
  path: string
  old_path?: string
  binary: boolean
  hunks: { header: string; lines: DiffLine[] }[]
  truncated: boolean
}

const LETTER: Record<string, string> = { modified: 'M', added: 'A', deleted: 'D', renamed: 'R', untracked: 'U', conflicted: '!' }
const enc = encodeURIComponent
export const changesHash = (pane: string) => `#/p/${enc(pane)}/changes`
const diffHash = (pane: string, f: ChangedFile) => `#/p/${enc(pane)}/diff/${f.staged ? 1 : 0}/${enc(f.path)}`
const fileHash = (pane: string, path: string) => `#/p/${enc(pane)}/file/${enc(path)}`

function useGet<T>(path: string): [T | null, string | null] {
  const [v, setV] = useState<T | null>(null)
  const [err, setErr] = useState<string | null>(null)
  useEffect(() => {
    setV(null)
    setErr(null)
    api
      .get(path)
      .then(setV)
      .catch((e) => setErr(e.message || String(e)))
  }, [path])
  return [v, err]
}

function Back({ href, title }: { href: string; title: string }) {
  return (
    <header>
      <a class="back" href={href}>
        ‹
      </a>
      <h1>{title}</h1>
    </header>
  )
}

/**
 * The review screens for a device whose pairing has the `code` scope; for any other a
 * note instead (the bridge would answer 403), and nothing is asked of the bridge.
 */
export function CodeOnly({ pane, children }: { pane: string; children: ComponentChildren }) {
  const scopes = useScopes()
  if (!scopes) return null
  if (can(scopes, 'code')) return <>{children}</>
  return (
    <main class="changes">
      <Back href={`#/p/${enc(pane)}`} title="Changes" />
      <p class="empty">This device may not read the code: its pairing lacks the “code” scope.</p>
    </main>
  )
}

function FileRow({ pane, f }: { pane: string; f: ChangedFile }) {
  return (
    <li class={`change s-${f.status}`}>
      <a class="file-link" href={diffHash(pane, f)}>
        <span class="letter" title={f.status}>
          {LETTER[f.status] ?? '?'}
        </span>
        <span class="change-path">
          {f.old_path ? `${f.old_path} → ` : ''}
          {f.path}
        </span>
        <span class="counts">
          {f.binary ? (
            'binary'
          ) : (
            <>
              <span class="count-add">+{f.additions}</span> <span class="count-del">−{f.deletions}</span>
            </>
          )}
        </span>
      </a>
    </li>
  )
}

export function ChangesScreen({ pane }: { pane: string }) {
  const [c, err] = useGet<Changes>(`/changes?pane=${enc(pane)}`)
  const staged = c?.files.filter((f) => f.staged) ?? []
  const unstaged = c?.files.filter((f) => !f.staged) ?? []
  return (
    <main class="changes">
      <Back href={`#/p/${enc(pane)}`} title="Changes" />
      {err && <p class="msg error">{err}</p>}
      {!c && !err && <p class="empty">Reading the repository…</p>}
      {c && (
        <>
          <p class="branch">
            <code>{c.branch ?? `detached at ${c.head?.slice(0, 8) ?? '?'}`}</code>
            {c.upstream && (
              <span class="ab">
                {' '}
                ↑{c.ahead} ↓{c.behind} <span class="dim">{c.upstream}</span>
              </span>
            )}
            <span class="dim root">{c.repo_root}</span>
          </p>
          {c.files.length === 0 && <p class="empty">Nothing changed.</p>}
          {staged.length > 0 && (
            <section>
              <h2>Staged</h2>
              <ul class="files">
                {staged.map((f) => (
                  <FileRow key={`s/${f.path}`} pane={pane} f={f} />
                ))}
              </ul>
            </section>
          )}
          {unstaged.length > 0 && (
            <section>
              <h2>Not staged</h2>
              <ul class="files">
                {unstaged.map((f) => (
                  <FileRow key={`u/${f.path}`} pane={pane} f={f} />
                ))}
              </ul>
            </section>
          )}
          {c.truncated && <p class="msg">Only the first 2,000 files are listed.</p>}
        </>
      )}
    </main>
  )
}

export function DiffScreen({ pane, path, staged }: { pane: string; path: string; staged: boolean }) {
  const [d, err] = useGet<FileDiff>(`/changes/diff?pane=${enc(pane)}&path=${enc(path)}&staged=${staged ? 1 : 0}`)
  return (
    <main class="diff-view">
      <Back href={changesHash(pane)} title={path.split('/').pop() ?? path} />
      <p class="dim file-path">
        {d?.old_path ? `${d.old_path} → ` : ''}
        {path} {staged ? '(staged)' : ''} · <a href={fileHash(pane, path)}>full file</a>
      </p>
      {err && <p class="msg error">{err}</p>}
      {d?.binary && <p class="empty">A binary file: no text to compare.</p>}
      {d && !d.binary && d.hunks.length === 0 && <p class="empty">No change in the text (a rename or a mode change).</p>}
      {d?.hunks.map((h) => (
        <section class="hunk" key={h.header}>
          <p class="hunk-header">{h.header}</p>
          <table class="lines">
            <tbody>
              {h.lines.map((l, i) => (
                <tr key={i} class={l.op === '+' ? 'add' : l.op === '-' ? 'del' : ''}>
                  <td class="n">{l.old ?? ''}</td>
                  <td class="n">{l.new ?? ''}</td>
                  <td class="t">
                    <span class="op">{l.op}</span>
                    {l.text}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      ))}
      {d?.truncated && <p class="msg">The diff is longer than 1 MiB: the rest is not shown.</p>}
    </main>
  )
}

export function FileScreen({ pane, path }: { pane: string; path: string }) {
  const [f, err] = useGet<any>(`/files?pane=${enc(pane)}&path=${enc(path)}`)
  const raw = `/files?pane=${enc(pane)}&path=${enc(path)}&raw=1&token=${enc(token() ?? '')}`
  return (
    <main class="file-view">
      <Back href={`#/p/${enc(pane)}/changes`} title={path.split('/').pop() || 'files'} />
      <p class="dim file-path">{path}</p>
      {err && <p class="msg error">{err}</p>}
      {f?.entries && (
        <ul class="files">
          {f.entries.map((e: any) => (
            <li key={e.name}>
              {/* what git ignores, a link and a FIFO, socket or device are listed, never opened */}
              {e.ignored || e.type === 'symlink' || e.type === 'other' ? (
                <span class="file-link dim">
                  {e.type === 'dir' ? '📁' : e.type === 'symlink' ? '🔗' : '📄'} {e.name}{' '}
                  <small>{e.ignored ? 'ignored' : e.type === 'symlink' ? 'link' : 'special'}</small>
                </span>
              ) : (
                <a class="file-link" href={fileHash(pane, path ? `${path}/${e.name}` : e.name)}>
                  {e.type === 'dir' ? '📁' : '📄'} {e.name}
                </a>
              )}
            </li>
          ))}
        </ul>
      )}
      {f?.text !== undefined && (
        <table class="lines">
          <tbody>
            {String(f.text)
              .replace(/\n$/, '')
              .split('\n')
              .map((l: string, i: number) => (
                <tr key={i}>
                  <td class="n">{i + 1}</td>
                  <td class="t">{l}</td>
                </tr>
              ))}
          </tbody>
        </table>
      )}
      {f?.truncated && <p class="msg">Only the first 1 MiB is shown.</p>}
      {f?.mime?.startsWith('image/') && <img class="preview" src={raw} alt={path} />}
      {f && f.mime === 'application/octet-stream' && (
        <p>
          <a href={raw} download>
            Download ({f.size} bytes)
          </a>
        </p>
      )}
    </main>
  )
}
