// The JSONL Timeline and its registry: one JsonlFile (index + tailer) per
// (absolute path, normalizer), shared by every socket on that file and
// reference counted. A file nobody holds stops its tailer at once but keeps its
// index in a small warm cache, so a reconnect only verifies and extends it.
import { resolve } from 'node:path'
import type { Entry } from '../entry'
import type { Timeline } from '../timeline'
import { JsonlFile, jsonlCounters, type JsonlFileOptions } from './jsonl-file'
import type { LineNormalizer } from './normalizer'

export { jsonlCounters } from './jsonl-file'

export interface JsonlTimelineOptions extends JsonlFileOptions {
  /** Serve a path that does not exist yet as an empty timeline that fills when it appears (pi). */
  allowMissing?: boolean
  /**
   * Names the normalizer in the registry key. Default: the function's identity,
   * so pass the same function (not a fresh closure) to share an index.
   */
  normalizerId?: string
}

/** A Timeline over a JSONL file, plus what a source may want to know about it. */
export interface JsonlTimeline extends Timeline {
  onReset(listener: () => void): () => void
  /** the absolute path followed */
  readonly path: string
  /** true while the file is not at its path (pending, or deleted) */
  missing(): boolean
}

const files = new Map<string, JsonlFile>()
const cacheSettings = { keepAliveMs: 60_000, maxFiles: 8 }
/** Released files in the order they were released (oldest first), for the LRU bound. */
const released: JsonlFile[] = []
const normalizerIds = new WeakMap<LineNormalizer, number>()
let nextNormalizerId = 1

function keyOf(path: string, normalize: LineNormalizer, id: string | undefined): string {
  if (id === undefined) {
    let n = normalizerIds.get(normalize)
    if (n === undefined) normalizerIds.set(normalize, (n = nextNormalizerId++))
    id = `#${n}`
  }
  return `${path}\0${id}`
}

/**
 * Opens (or joins) the shared index of a JSONL file and returns a handle on it.
 * The index is built (cold) or verified and extended (warm) before this resolves,
 * so total() is current. Rejects when the file cannot be read, and with an
 * ENOENT error when it does not exist unless `allowMissing`. The first acquirer's
 * poll/watch/chunk/count options are the file's; later ones join as they are.
 * Pass the kind's `count` (a LineCounter equal to normalize(line).length) to
 * make index builds cheap; reads and the live tail still use `normalize`.
 */
export async function acquireJsonlTimeline(
  path: string,
  normalize: LineNormalizer,
  opts: JsonlTimelineOptions = {},
): Promise<JsonlTimeline> {
  const abs = resolve(path)
  const key = keyOf(abs, normalize, opts.normalizerId)
  let file = files.get(key)
  if (!file) {
    file = new JsonlFile(abs, normalize, { ...opts, cacheKey: opts.cacheKey ?? opts.normalizerId })
    files.set(key, file)
  }
  retain(file)
  try {
    await file.pump()
    if (!file.isOpen()) {
      if (file.lastError && (file.lastError as NodeJS.ErrnoException).code !== 'ENOENT') throw file.lastError
      if (!opts.allowMissing) {
        const err = new Error(`ENOENT: no such file, open '${abs}'`) as NodeJS.ErrnoException
        err.code = 'ENOENT'
        err.path = abs
        throw err
      }
    }
  } catch (err) {
    unretain(file, key)
    throw err
  }
  return handleOn(file, key)
}

function retain(file: JsonlFile): void {
  if (file.evictTimer) {
    clearTimeout(file.evictTimer)
    file.evictTimer = null
  }
  const i = released.indexOf(file)
  if (i >= 0) released.splice(i, 1)
  file.refs++
  file.startTailer()
}

function unretain(file: JsonlFile, key: string): void {
  file.refs--
  if (file.refs > 0) return
  file.persistSoon()
  file.stopTailer()
  void file.close()
  if (file.index.scanned === 0 || cacheSettings.keepAliveMs <= 0 || cacheSettings.maxFiles <= 0) {
    evict(file, key)
    return
  }
  released.push(file)
  file.evictTimer = setTimeout(() => evict(file, key), cacheSettings.keepAliveMs)
  ;(file.evictTimer as { unref?: () => void }).unref?.()
  while (released.length > cacheSettings.maxFiles) {
    const oldest = released[0]
    for (const [k, f] of files) if (f === oldest) evict(f, k)
  }
}

function evict(file: JsonlFile, key: string): void {
  if (file.refs > 0) return
  if (file.evictTimer) clearTimeout(file.evictTimer)
  file.evictTimer = null
  const i = released.indexOf(file)
  if (i >= 0) released.splice(i, 1)
  if (files.get(key) === file) files.delete(key)
}

function handleOn(file: JsonlFile, key: string): JsonlTimeline {
  const subscriptions = new Set<() => void>()
  let isReleased = false
  const subscribe = (off: () => void): (() => void) => {
    if (isReleased) {
      off()
      return () => {}
    }
    const once = () => {
      subscriptions.delete(once)
      off()
    }
    subscriptions.add(once)
    return once
  }
  return {
    path: file.path,
    total: () => file.total(),
    missing: () => file.missing,
    read: (fromSeq: number, toSeq: number): Promise<Entry[]> =>
      isReleased ? Promise.resolve([]) : file.read(fromSeq, toSeq),
    onGrow: (listener) => subscribe(file.onGrow(listener)),
    onReset: (listener) => subscribe(file.onReset(listener)),
    release: () => {
      if (isReleased) return
      isReleased = true
      for (const off of [...subscriptions]) off()
      unretain(file, key)
    },
  }
}

/**
 * The fold facts of a file a timeline holds now, brought up to the file first
 * (one pump: a stat when nothing changed), as JsonlFile.factsView() gives them;
 * undefined when nobody holds the file, it has no fold, or it is not at its
 * path now. Lets a kind use what the index pass gathered instead of reading the
 * file again.
 */
export async function heldJsonlFacts(path: string, normalize: LineNormalizer, normalizerId?: string) {
  const file = files.get(keyOf(resolve(path), normalize, normalizerId))
  if (!file || file.refs === 0) return undefined
  await file.pump()
  return file.refs > 0 && !file.missing ? file.factsView() : undefined
}

/** Tunes the warm cache of released indexes (defaults: 60 s, 8 files). */
export function configureJsonlCache(settings: Partial<typeof cacheSettings>): void {
  Object.assign(cacheSettings, settings)
}

/** Forgets every released index now (files still held are untouched). */
export function dropJsonlCache(): void {
  for (const [k, f] of [...files]) if (f.refs === 0) evict(f, k)
}

/** A snapshot of the registry, for tests and measurements. */
export function jsonlDebug() {
  let held = 0
  let cached = 0
  let indexBytes = 0
  for (const f of files.values()) {
    if (f.refs > 0) held++
    else cached++
    indexBytes += f.index.byteSize()
  }
  return { ...jsonlCounters, heldFiles: held, cachedFiles: cached, indexBytes }
}
