// Seeded mutation of real transcript lines, for the tests that prove a line
// counter never disagrees with its normalizer. Each kind brings its corpus and the
// values and keys that steer its decisions; reading the corpus, the mutations and
// the comparison are the same for every kind.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { Value } from '@sinclair/typebox/value'
import { EntrySchema, type Draft } from '../../src/transcript/entry'
import { LineIndex, NOT_ONE_VALUE, indexLines, jsonOfBytes, normalizeBytes } from '../../src/transcript/jsonl/line-index'
import type { LineCounter, LineFold, LineNormalizer } from '../../src/transcript/jsonl/normalizer'

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32). */
export function rng(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32
  }
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json }
type Place = { parent: Json[] | { [k: string]: Json }; key: string | number }

/** Every container slot in a value: where a mutation can land. */
function places(v: Json, out: Place[] = []): Place[] {
  if (Array.isArray(v))
    for (const [i, x] of v.entries()) {
      out.push({ parent: v, key: i })
      places(x, out)
    }
  else if (v && typeof v === 'object') for (const k of Object.keys(v)) out.push({ parent: v, key: k }), places(v[k]!, out)
  return out
}

export interface Steering {
  /** values that steer the kind's decisions: types, roles, blank text, wrong shapes */
  pool: readonly unknown[]
  /** keys where the decisions live */
  keys: RegExp
  /** how often a mutation aims at those keys */
  bias: number
  /** a fragment that looks like a record of the kind, spliced into torn lines */
  recordish: string
}

/** 1–3 structural edits of a JSON line: drop a slot, copy another slot into it, or put a pool value there. */
export function mutateStructure(line: string, rand: () => number, s: Steering): string {
  let rec: Json
  try {
    rec = JSON.parse(line)
  } catch {
    return line
  }
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!
  const rounds = 1 + Math.floor(rand() * 3)
  for (let r = 0; r < rounds; r++) {
    const all = places(rec)
    if (all.length === 0) break
    const steering = all.filter(({ key }) => typeof key === 'number' || s.keys.test(key))
    const { parent, key } = rand() < s.bias && steering.length ? pick(steering) : pick(all)
    const op = rand()
    if (op < 0.15) {
      if (Array.isArray(parent)) parent.splice(key as number, 1)
      else delete parent[key as string]
    } else if (op < 0.25) {
      const other = pick(all)
      ;(parent as any)[key] = structuredClone((other.parent as any)[other.key])
    } else {
      ;(parent as any)[key] = structuredClone(pick(s.pool)) as Json
    }
  }
  return JSON.stringify(rec)
}

/** A byte-level accident: a torn line, a cut, or junk spliced in. */
export function mutateBytes(line: string, rand: () => number, s: Steering): string {
  const at = Math.floor(rand() * (line.length + 1))
  const op = rand()
  if (op < 0.4) return line.slice(0, at) // torn line
  if (op < 0.6) return line.slice(0, at) + line.slice(at + 1 + Math.floor(rand() * 8))
  const junk = ['{', '}', '[', ']', '"', ',', ':', '\\', ' ', '\u0000', '\ufffd', '\ud83d', 'null', s.recordish]
  return line.slice(0, at) + junk[Math.floor(rand() * junk.length)] + line.slice(at)
}

// ── a kind's corpus and its mutated lines ──────────────────────────────────

/** Every .jsonl below `dir`, in name order, descending into folders (sessions, subagents, rollout days). */
export function jsonlFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((n) => {
      const p = join(dir, n)
      return statSync(p).isDirectory() ? jsonlFiles(p) : p.endsWith('.jsonl') ? [p] : []
    })
}

/** Every line of a file (the empty one after the last newline too) with its byte offset. */
export function linesOf(path: string): { line: string; offset: number }[] {
  const out: { line: string; offset: number }[] = []
  let offset = 0
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    out.push({ line, offset })
    offset += Buffer.byteLength(line) + 1
  }
  return out
}

/** `n` lines drawn from `sources` (blank ones skipped) with a seeded generator, each mutated: mostly in its structure, else in its bytes. */
export function mutatedLines(sources: string[], s: Steering, n: number, seed: number): string[] {
  const rand = rng(seed)
  const pool = sources.filter((l) => l.trim() !== '')
  const out: string[] = []
  for (let i = 0; i < n; i++) {
    const original = pool[Math.floor(rand() * pool.length)]!
    out.push(rand() < 0.8 ? mutateStructure(original, rand, s) : mutateBytes(original, rand, s))
  }
  return out
}

// ── counter against normalizer ─────────────────────────────────────────────

/** A line's count as the index pass makes it (with the fold's countAndFold when given). */
export function indexedCount(line: string, count: LineCounter, normalize: LineNormalizer, fold?: LineFold): number {
  const index = new LineIndex()
  if (fold) index.facts = fold.fresh()
  indexLines(Buffer.from(line + '\n'), 0, normalize, index, undefined, count, fold)
  return index.total()
}

/**
 * A line's drafts as a page read makes them from the line's UTF-8 bytes
 * (normalizeBytes: from the bytes when the normalizer takes parsed values, else
 * from their text), the drafts of that text (the same bytes decoded: a lone
 * surrogate in `line` is U+FFFD in a file), and whether the page's came from the
 * bytes, so a test of the two paths' equality can show it compared both.
 */
export function pageDrafts(line: string, normalize: LineNormalizer, offset: number): { drafts: Draft[]; text: Draft[]; fromBytes: boolean } {
  const buf = Buffer.from(line)
  const value = normalize.fromJson ? jsonOfBytes(buf, 0, buf.length) : NOT_ONE_VALUE
  let fromBytes = false
  try {
    fromBytes = value !== NOT_ONE_VALUE && Array.isArray(normalize.fromJson!(value, offset))
  } catch {}
  return { drafts: normalizeBytes(normalize, buf, 0, buf.length, offset), text: normalize(buf.toString('utf8'), offset), fromBytes }
}

export interface Agreement {
  /** the lines where the count and the number of drafts differ */
  wrong: { count: number; drafts: number; line: string }[]
  /** lines that gave more than one entry, none, and at least one parsed:false one */
  many: number
  none: number
  unplaced: number
  /** lines a page read took from their bytes (with the same drafts as from the text, or they are in `wrong`) */
  fromBytes: number
}

/**
 * Counts and normalizes each line (its index as its offset) and compares the two; a draft
 * outside the entry schema throws. The tallies show the lines reached every side of the decisions.
 */
export function agreement(lines: readonly string[], count: LineCounter, normalize: LineNormalizer): Agreement {
  const out: Agreement = { wrong: [], many: 0, none: 0, unplaced: 0, fromBytes: 0 }
  lines.forEach((line, i) => {
    const n = count(line, i)
    const drafts = normalize(line, i)
    if (n !== drafts.length) out.wrong.push({ count: n, drafts: drafts.length, line: line.slice(0, 300) })
    // the index pass, reading the line from a file's bytes, counts the same
    if (!line.includes('\n') && indexedCount(line, count, normalize) !== n)
      out.wrong.push({ count: n, drafts: indexedCount(line, count, normalize), line: `INDEXED ${line.slice(0, 300)}` })
    // a normalizer that takes parsed values: a page read, from the line's bytes, gives the same drafts
    if (normalize.fromJson && !line.includes('\n')) {
      const page = pageDrafts(line, normalize, i)
      if (page.fromBytes) out.fromBytes++
      if (JSON.stringify(page.drafts) !== JSON.stringify(page.text))
        out.wrong.push({ count: n, drafts: page.drafts.length, line: `PAGE ${line.slice(0, 300)}` })
    }
    if (n > 1) out.many++
    if (n === 0) out.none++
    if (drafts.some((d) => !d.parsed)) out.unplaced++
    for (const d of drafts) if (!Value.Check(EntrySchema, { ...d, seq: 1 })) throw new Error(`invalid draft ${JSON.stringify(d).slice(0, 300)}`)
  })
  return out
}
