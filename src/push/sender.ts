// Sends Web Push messages without ever blocking the server: a queue, a few
// sends at a time, each with a time limit; 429/5xx/timeouts/network errors are
// retried with exponential backoff, 404/410 (the subscription is gone) deletes
// the subscription. The web-push library does the RFC 8291 encryption
// (aes128gcm) and the VAPID JWT (RFC 8292); fetch carries the request.
import webpush from 'web-push'
import { tagOf, type PushPayload } from './payloads'
import type { PushCounters } from '../server/counters'
import type { PushStore, PushSubscriptionRecord } from './store'
import type { VapidKeys } from './vapid'

export interface PushSenderOptions {
  store: PushStore
  vapid: VapidKeys
  /** VAPID `sub`: a mailto: or https: URL of whoever runs the bridge */
  subject: string
  /** time limit of one send */
  timeoutMs?: number
  /** first retry delay; doubled each time */
  backoffMs?: number
  attempts?: number
  concurrency?: number
  /** how long the push service keeps an undelivered message (seconds) */
  ttlSeconds?: number
  log?: (m: string) => void
}

interface Job {
  sub: PushSubscriptionRecord
  payload: PushPayload
  attempt: number
  key: string
  /** a retry is scheduled */
  retrying?: boolean
}

/** The Topic header: the notification's tag in the push service's alphabet, so a newer message replaces an undelivered older one. */
export const topicOf = (tag: string) => Buffer.from(tag).toString('base64url').slice(0, 32)

export class PushSender {
  readonly counters: PushCounters = { sent: 0, retried: 0 }
  private queue: Job[] = []
  private waiting = new Map<string, Job>()
  private inFlight = new Set<string>()
  /** the newest message per subscription and tag: a retry of an older one is dropped, never delivered after it */
  private newest = new Map<string, Job>()
  private running = 0
  private timers = new Set<ReturnType<typeof setTimeout>>()
  private closed = false
  private idleWaiters: (() => void)[] = []
  private readonly o: Required<Omit<PushSenderOptions, 'log'>> & { log: (m: string) => void }

  constructor(opts: PushSenderOptions) {
    this.o = {
      timeoutMs: 10_000,
      backoffMs: 1000,
      attempts: 5,
      concurrency: 4,
      ttlSeconds: 3600,
      log: () => {},
      ...opts,
    }
  }

  /** Queues a message; returns at once. A queued, unsent message for the same subscription and notification (its tag) is replaced. */
  send(sub: PushSubscriptionRecord, payload: PushPayload): void {
    if (this.closed) return
    const key = `${sub.id}\u0000${tagOf(payload)}`
    const queued = this.waiting.get(key)
    if (queued) {
      queued.payload = payload
      queued.sub = sub
      return
    }
    const job: Job = { sub, payload, attempt: 0, key }
    this.waiting.set(key, job)
    this.newest.set(key, job)
    this.queue.push(job)
    this.pump()
  }

  /** Resolves when nothing is queued, in flight or waiting to retry (tests). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve()
    return new Promise((res) => this.idleWaiters.push(res))
  }

  close(): void {
    this.closed = true
    for (const t of this.timers) clearTimeout(t)
    this.timers.clear()
    this.queue = []
    this.waiting.clear()
    this.newest.clear()
    this.checkIdle()
  }

  private isIdle() {
    return this.queue.length === 0 && this.running === 0 && this.timers.size === 0
  }

  private checkIdle() {
    if (this.isIdle()) for (const w of this.idleWaiters.splice(0)) w()
  }

  private pump(): void {
    for (let i = 0; !this.closed && this.running < this.o.concurrency && i < this.queue.length; ) {
      const job = this.queue[i]!
      // one message per notification in flight at a time, so a phone gets them in the order they were sent
      if (this.inFlight.has(job.key)) {
        i++
        continue
      }
      this.queue.splice(i, 1)
      this.waiting.delete(job.key)
      this.inFlight.add(job.key)
      this.running++
      void this.deliver(job).finally(() => {
        this.inFlight.delete(job.key)
        // nothing newer came for this notification: forget it
        if (this.newest.get(job.key) === job && !job.retrying) this.newest.delete(job.key)
        this.running--
        this.pump()
        this.checkIdle()
      })
    }
  }

  private async deliver(job: Job): Promise<void> {
    const { sub, payload } = job
    // The subscription may have been deleted (revoked device, DELETE) while this waited.
    if (!this.o.store.get(sub.id)) return
    let status = 0
    let why = ''
    let retryAfterMs: number | undefined
    try {
      const req = webpush.generateRequestDetails({ endpoint: sub.endpoint, keys: sub.keys }, JSON.stringify(payload), {
        vapidDetails: { subject: this.o.subject, publicKey: this.o.vapid.publicKey, privateKey: this.o.vapid.privateKey },
        TTL: this.o.ttlSeconds,
        contentEncoding: 'aes128gcm',
        urgency: 'agent_status' in payload && payload.agent_status === 'blocked' ? 'high' : 'normal',
        topic: topicOf(tagOf(payload)),
      })
      const res = await fetch(req.endpoint, {
        method: req.method,
        headers: req.headers as Record<string, string>,
        body: req.body as unknown as Uint8Array,
        signal: AbortSignal.timeout(this.o.timeoutMs),
        redirect: 'error',
      })
      status = res.status
      await res.arrayBuffer().catch(() => undefined)
      const ra = Number(res.headers.get('retry-after'))
      if (Number.isFinite(ra) && ra > 0) retryAfterMs = Math.min(ra * 1000, 10 * 60_000)
    } catch (e) {
      why = (e as Error).name === 'TimeoutError' ? `timed out after ${this.o.timeoutMs} ms` : (e as Error).message
    }
    if (status >= 200 && status < 300) {
      this.counters.sent++
      return
    }
    if (status === 404 || status === 410) {
      this.o.store.remove(sub.id)
      this.o.log(`push: subscription ${sub.id} is gone (${status}); deleted`)
      return
    }
    const retryable = status === 0 || status === 429 || status >= 500
    if (retryable && job.attempt + 1 < this.o.attempts && !this.closed) {
      job.attempt++
      job.retrying = true
      this.counters.retried++
      const delay = retryAfterMs ?? this.o.backoffMs * 2 ** (job.attempt - 1)
      const t = setTimeout(() => {
        this.timers.delete(t)
        job.retrying = false
        // a newer message for the same notification, sent or queued meanwhile, supersedes this one
        if (this.newest.get(job.key) !== job) return this.checkIdle()
        this.waiting.set(job.key, job)
        this.queue.push(job)
        this.pump()
      }, delay)
      this.timers.add(t)
      return
    }
    this.o.log(`push: sending to ${sub.id} failed (${status ? `status ${status}` : why}); giving up`)
  }
}
