// The search index's writer thread (writer.ts): its own connection to the
// index's file, running the writes it is sent in order, merging the segments
// between them when asked, and answering `sync` once all before it is committed.
import { SearchStore } from './store'
import { guarded, textBytes, type FromWorker, type ToWorker, type WriteFailed } from './writer'

declare const self: Worker
const say = (m: FromWorker) => self.postMessage(m)
const failed: WriteFailed = (message, diskFull, stack) => say({ t: 'failed', message, diskFull, stack })
let store: SearchStore | undefined
let merges = 0
let mergeTimer: ReturnType<typeof setTimeout> | undefined
/** when the last write came: merging waits until writes pause (a merge slice between them slowed the build) */
let lastWrite = 0
const MERGE_AFTER_MS = 100
/**
 * A commit asked for waits until writes pause this long, or until the
 * transaction is COMMIT_MS old (every commit flushes FTS5's pending terms into
 * a segment of its own: the main thread, no longer held up by the writes, asked
 * for one every few batches, and the build slowed by merging them). A query's
 * `sync` commits at once.
 */
const COMMIT_PAUSE_MS = 100
const COMMIT_MS = 1000
let commitTimer: ReturnType<typeof setTimeout> | undefined
let txSince: number | undefined

function commitNow(): void {
  clearTimeout(commitTimer)
  commitTimer = undefined
  txSince = undefined
  if (store) guarded(failed, () => store!.commit())
}

function commitSoon(): void {
  if (txSince !== undefined && performance.now() - txSince >= COMMIT_MS) {
    commitNow()
    return
  }
  clearTimeout(commitTimer)
  commitTimer = setTimeout(commitNow, COMMIT_PAUSE_MS)
}

function mergeSoon(): void {
  if (merges <= 0 || mergeTimer) return
  mergeTimer = setTimeout(
    () => {
      mergeTimer = undefined
      if (!store) return
      if (performance.now() - lastWrite < MERGE_AFTER_MS) return mergeSoon()
      merges--
      commitNow()
      if (guarded(failed, () => store!.mergeSome()) !== true) merges = 0
      if (merges <= 0) say({ t: 'compacted' })
      else mergeSoon()
    },
    performance.now() - lastWrite < MERGE_AFTER_MS ? MERGE_AFTER_MS : 0,
  )
}

self.onmessage = (ev: MessageEvent<ToWorker>) => {
  const m = ev.data
  if (m.t === 'open') {
    try {
      // the main thread has made or checked the file: a failure here is not a reason to remove it
      store = new SearchStore(m.path, (line) => failed(line, false), { maxPages: m.maxPages, keep: true })
      say({ t: 'ready' })
    } catch (e) {
      say({ t: 'open-failed', message: (e as Error)?.message ?? String(e) })
    }
    return
  }
  const s = store
  if (!s) return
  if (m.t === 'add') guarded(failed, () => s.insertFile(m.f))
  else if (m.t === 'drop') guarded(failed, () => s.dropFile(m.id, m.keepFile))
  else if (m.t === 'write') {
    lastWrite = performance.now()
    txSince ??= lastWrite
    clearTimeout(commitTimer)
    commitTimer = undefined
    guarded(failed, () => s.write(m.batch))
    say({ t: 'wrote', bytes: textBytes(m.batch) })
  } else if (m.t === 'commit') commitSoon()
  else if (m.t === 'compact') {
    merges = m.slices
    mergeSoon()
  } else if (m.t === 'sync') {
    commitNow()
    say({ t: 'synced', n: m.n })
  } else if (m.t === 'close') {
    clearTimeout(mergeTimer)
    clearTimeout(commitTimer)
    s.close()
    store = undefined
    say({ t: 'synced', n: m.n })
  }
}
