// A WebSocket that comes back: after a drop, a network change or the phone
// waking up it reconnects (backoff 0.5 s → 10 s), asking `url()` again so the
// caller can name where to resume from. Frames are JSON; binary frames are
// passed through for /attach.
export type SocketStatus = 'connecting' | 'open' | 'closed'

export interface LiveSocketOptions {
  url: () => string
  onFrame: (frame: any) => void
  onOpen?: () => void
  onStatus?: (s: SocketStatus, why?: string) => void
  /** pre-upgrade refusals (401/404…) arrive as a close without open: stop after this many in a row */
  maxFailures?: number
  binary?: boolean
}

export class LiveSocket {
  private ws: WebSocket | null = null
  private retryMs = 500
  private timer: ReturnType<typeof setTimeout> | null = null
  private stopped = false
  private failures = 0
  private readonly wake = () => {
    if (document.visibilityState === 'visible' && !this.ws && !this.stopped) this.connectNow()
  }

  constructor(private readonly o: LiveSocketOptions) {
    document.addEventListener('visibilitychange', this.wake)
    window.addEventListener('online', this.wake)
    this.connectNow()
  }

  send(data: unknown) {
    if (this.ws?.readyState !== WebSocket.OPEN) return
    this.ws.send(typeof data === 'string' ? data : data instanceof Uint8Array ? (data as Uint8Array<ArrayBuffer>) : JSON.stringify(data))
  }

  get open(): boolean {
    return this.ws?.readyState === WebSocket.OPEN
  }

  close() {
    this.stopped = true
    document.removeEventListener('visibilitychange', this.wake)
    window.removeEventListener('online', this.wake)
    if (this.timer) clearTimeout(this.timer)
    this.ws?.close()
    this.ws = null
  }

  private connectNow() {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    this.o.onStatus?.('connecting')
    const ws = new WebSocket(this.o.url())
    if (this.o.binary) ws.binaryType = 'arraybuffer'
    this.ws = ws
    let opened = false
    ws.onopen = () => {
      opened = true
      this.failures = 0
      this.retryMs = 500
      this.o.onStatus?.('open')
      this.o.onOpen?.()
    }
    ws.onmessage = (e) => {
      if (typeof e.data !== 'string') return this.o.onFrame(e.data)
      let f: unknown
      try {
        f = JSON.parse(e.data)
      } catch {
        return
      }
      this.o.onFrame(f)
    }
    ws.onclose = (e) => {
      if (this.ws === ws) this.ws = null
      if (this.stopped) return
      if (!opened) this.failures++
      const max = this.o.maxFailures ?? Infinity
      if (this.failures >= max) {
        this.o.onStatus?.('closed', 'refused')
        return
      }
      this.o.onStatus?.('closed', e.reason || undefined)
      if (document.visibilityState === 'hidden') return // reconnect on wake
      this.timer = setTimeout(() => this.connectNow(), this.retryMs)
      this.retryMs = Math.min(10_000, this.retryMs * 2)
    }
  }
}
