// Test helpers for the JSONL engine: a trivial normalizer, a naive reference
// reader to compare the index against, temp dirs, and waitFor (await an event
// or a condition with a deadline instead of sleeping).
import { mkdtempSync, rmSync } from 'node:fs'
import { open } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Draft, Entry } from '../../../src/transcript/entry'
import { unplaced, type LineNormalizer } from '../../../src/transcript/jsonl/normalizer'
import type { JsonlFiles, JsonlTimeline } from '../../../src/transcript/jsonl/timeline'
import { waitFor } from '../../support/wait'

/**
 * {"uuid":"u","n":3,"t":"x"} → 3 drafts u#0..u#2 (n may be 0: a line with no
 * entries); anything that is not such JSON → one unplaced draft carrying the line.
 */
export const countingNormalizer: LineNormalizer = (line, offset) => {
  let rec: { uuid?: unknown; n?: unknown; t?: unknown }
  try {
    rec = JSON.parse(line)
  } catch {
    return [unplaced(line, offset)]
  }
  if (rec === null || typeof rec !== 'object' || typeof rec.n !== 'number') return [unplaced(line, offset)]
  const id = typeof rec.uuid === 'string' ? rec.uuid : `line@${offset}`
  const out: Draft[] = []
  for (let i = 0; i < rec.n; i++) {
    out.push({ id: `${id}#${i}`, role: 'assistant', kind: 'message', text: String(rec.t ?? ''), parsed: true })
  }
  return out
}

export function line(uuid: string, n: number, t = ''): string {
  return JSON.stringify({ uuid, n, t }) + '\n'
}

/** Every complete non-blank line of a file: its start, its end (before any '\r') and its text. */
function* naiveLines(bytes: Buffer): Generator<{ start: number; end: number; text: string }> {
  let pos = 0
  for (;;) {
    const nl = bytes.indexOf(0x0a, pos)
    if (nl === -1) return
    let end = nl
    if (end > pos && bytes[end - 1] === 0x0d) end--
    const text = bytes.toString('utf8', pos, end)
    if (text.trim() !== '') yield { start: pos, end, text }
    pos = nl + 1
  }
}

/** What the engine must equal: split the whole file, normalize each non-blank line, number the drafts. */
export function naiveEntries(bytes: Buffer, normalize: LineNormalizer = countingNormalizer): Entry[] {
  const out: Entry[] = []
  for (const { start, text } of naiveLines(bytes)) for (const d of normalize(text, start)) out.push({ ...d, seq: out.length + 1 })
  return out
}

/** The naive index: [start, end, cumulative] for every complete line with ≥1 entry. */
export function naiveRows(bytes: Buffer, normalize: LineNormalizer = countingNormalizer): number[][] {
  const rows: number[][] = []
  let cum = 0
  for (const { start, end, text } of naiveLines(bytes)) {
    const n = normalize(text, start).length
    if (n > 0) rows.push([start, end, (cum += n)])
  }
  return rows
}

/**
 * Acquires through `jsonl` and keeps every timeline it hands out, so a test
 * file's afterEach lets them all go (and drops the warm cache) in one call.
 */
export function holding(jsonl: JsonlFiles) {
  const held: JsonlTimeline[] = []
  return {
    acquire: async (...args: Parameters<JsonlFiles['acquire']>): Promise<JsonlTimeline> => {
      const tl = await jsonl.acquire(...args)
      held.push(tl)
      return tl
    },
    releaseAll: (): void => {
      for (const tl of held.splice(0)) tl.release()
      jsonl.drop()
    },
  }
}

export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'gothalo-jsonl-'))
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) }
}

export { waitFor } from '../../support/wait'

/** Collects what a timeline emits; `next(n)` awaits the n-th grow batch. */
export function recorder() {
  const batches: Entry[][] = []
  let resets = 0
  return {
    batches,
    get entries(): Entry[] {
      return batches.flat()
    },
    get resets() {
      return resets
    },
    grow: (entries: Entry[]) => void batches.push(entries),
    reset: () => void resets++,
    untilEntries: (n: number, ms = 3000) => waitFor(() => batches.flat().length >= n, ms, `${n} entries`),
    untilResets: (n: number, ms = 3000) => waitFor(() => resets >= n, ms, `${n} resets`),
  }
}

/** Deterministic pseudo-random numbers (tests must be repeatable). */
export function rng(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

/** A FileHandle read: (buffer, offset, length, position) as the engine calls it. */
export type FileRead = (...args: unknown[]) => Promise<{ bytesRead: number }>

/**
 * Runs `body` with every FileHandle read going through `wrap` (handed the real
 * read and the call's arguments), and puts the real read back after it: how a
 * test makes a read fail, or holds reads back, without a fake file system.
 */
export async function withFileReads<T>(
  wrap: (real: (args: unknown[]) => Promise<{ bytesRead: number }>, args: unknown[]) => Promise<{ bytesRead: number }>,
  body: () => Promise<T>,
): Promise<T> {
  const probe = await open(import.meta.path, 'r')
  const proto = Object.getPrototypeOf(probe) as { read: FileRead }
  await probe.close()
  const real = proto.read
  proto.read = function (this: unknown, ...args: unknown[]) {
    return wrap((a) => real.apply(this, a), args)
  }
  try {
    return await body()
  } finally {
    proto.read = real
  }
}

/** A read's failure as the OS reports one. */
export const eio = () => Promise.reject(Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' }))
