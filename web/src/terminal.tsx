// The raw terminal of a pane (WS /attach) in a real terminal emulator: what the
// user falls back to when a card cannot say enough.
import { useEffect, useRef, useState } from 'preact/hooks'
import { Terminal } from '@xterm/xterm'
import { FitAddon } from '@xterm/addon-fit'
import { socketUrl } from './api'
import { LiveSocket, type SocketStatus } from './live-socket'

const KEYS: [string, string][] = [
  ['Esc', '\x1b'],
  ['Tab', '\t'],
  ['⇧Tab', '\x1b[Z'],
  ['↑', '\x1b[A'],
  ['↓', '\x1b[B'],
  ['Enter', '\r'],
  ['^C', '\x03'],
]

export function TerminalScreen({ pane }: { pane: string }) {
  const host = useRef<HTMLDivElement>(null)
  const sockRef = useRef<LiveSocket | null>(null)
  const [status, setStatus] = useState<SocketStatus>('connecting')
  useEffect(() => {
    const term = new Terminal({ convertEol: false, fontSize: 13, scrollback: 2000, theme: { background: '#0d1117' } })
    const fit = new FitAddon()
    term.loadAddon(fit)
    term.open(host.current!)
    fit.fit()
    const sock = new LiveSocket({
      url: () => socketUrl('/attach', { pane }),
      binary: true,
      onFrame: (data) => {
        if (data instanceof ArrayBuffer) term.write(new Uint8Array(data))
      },
      onOpen: () => sock.send(JSON.stringify({ type: 'resize', cols: term.cols, rows: term.rows })),
      onStatus: (s) => setStatus(s),
      maxFailures: 3,
    })
    sockRef.current = sock
    const input = term.onData((d) => sock.send(d))
    const onResize = () => fit.fit()
    window.addEventListener('resize', onResize)
    return () => {
      window.removeEventListener('resize', onResize)
      input.dispose()
      sock.close()
      term.dispose()
    }
  }, [pane])
  return (
    <main class="term">
      <header>
        <a class="back" href={`#/p/${encodeURIComponent(pane)}`}>
          ‹
        </a>
        <h1>{pane}</h1>
        <span class={`conn c-${status}`}>{status === 'open' ? 'live' : status}</span>
      </header>
      <div class="xterm-host" ref={host} />
      <div class="keys">
        {KEYS.map(([label, seq]) => (
          <button type="button" key={label} onClick={() => sockRef.current?.send(seq)}>
            {label}
          </button>
        ))}
      </div>
    </main>
  )
}
