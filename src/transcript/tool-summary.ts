// Kind-agnostic helpers for the transcript normalizers (claude, pi, opencode, …):
// raw values → the contract's capped fields, one-line summaries, basenames,
// dates, and unified diffs. One implementation each, so a tool card looks the
// same whatever agent produced it, and no kind imports another kind's module.
// Pure. Several have a hand-written fast path for the common shape (the
// normalizers run them for every line a page reads); each fast path gives the
// plain path's output exactly (test/pi-source/fast-paths.test.ts, snippet-diff.test.ts).
import { structuredPatch } from 'diff'
import { capDiff as capDiffPlain, capRunes, LIMITS, type ToolCall } from './entry'

// ── raw JSON values ─────────────────────────────────────────────────────────

export type Obj = Record<string, unknown>
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)

// ── one-line summaries and names ────────────────────────────────────────────

/** Roughly what fits one phone row. */
export const SUMMARY_RUNES = 120

/**
 * Collapses whitespace to single spaces and cuts to `max` code points with an
 * ellipsis. Text already short in UTF-16 units needs no code-point array.
 */
export function oneLine(s: string, max = SUMMARY_RUNES): string {
  if (s.length <= max) {
    const flat = /\s/.test(s) ? s.replace(/\s+/g, ' ').trim() : s
    if (flat.length <= max) return flat
  }
  const flat = s.replace(/\s+/g, ' ').trim()
  const cps = Array.from(flat)
  return cps.length <= max ? flat : cps.slice(0, max - 1).join('') + '…'
}

/** Compact JSON of a tool input, one line; never throws (cycles, BigInt, deep nesting). */
export function inputSummary(input: unknown): string {
  if (typeof input === 'string') return oneLine(input)
  try {
    return oneLine(JSON.stringify(input) ?? '')
  } catch {
    return ''
  }
}

/** Last path component; accepts / and \ separators; '' stays '' (callers treat it as no file). */
export function basename(path: string): string {
  const trimmed = path.replace(/[\\/]+$/, '')
  const i = Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\'))
  return i >= 0 ? trimmed.slice(i + 1) : trimmed
}

// ── capping to the contract's limits ────────────────────────────────────────

/** Message/thinking body capped to the contract's limit. */
export function capBody(s: string): string {
  return capRunes(s, LIMITS.bodyRunes).text
}

/** Tool output capped to the contract's limit. */
export function capOutput(s: string): { text: string; cut: boolean } {
  return capRunes(s, LIMITS.outputRunes)
}

/** entry.ts's capDiff, without splitting a diff that is within the limits anyway (the usual case). */
export function capDiff(diff: string): { text: string; cut: boolean } {
  if (diff.length <= LIMITS.diffRunes) {
    let lines = 1
    for (let nl = diff.indexOf('\n'); nl !== -1 && lines <= LIMITS.diffLines; nl = diff.indexOf('\n', nl + 1)) lines++
    if (lines <= LIMITS.diffLines) return { text: diff, cut: false }
  }
  return capDiffPlain(diff)
}

/** Caps a diff to the contract's limits; an empty diff yields nothing. */
/** Puts a call's preview diff on its tool card, capped (diff_truncated when cut). */
export function withPreviewDiff(tool: ToolCall, preview: string | undefined): ToolCall {
  if (!preview) return tool
  const c = capDiff(preview)
  tool.diff = c.text
  if (c.cut) tool.diff_truncated = true
  return tool
}

export function cappedDiff(diff: string): { diff?: string; truncated: boolean } {
  if (!diff) return { truncated: false }
  const c = capDiff(diff)
  return { diff: c.text, truncated: c.cut }
}

// ── dates ───────────────────────────────────────────────────────────────────

const digit = (s: string, i: number) => {
  const c = s.charCodeAt(i)
  return c >= 0x30 && c <= 0x39
}

const ISO_DIGITS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]

/** YYYY-MM-DDThh:mm:ss[.f…](Z|±hh:mm), checked by hand (no Date parse, no regex per line). */
function looksIso(v: string): boolean {
  if (v.length < 20 || v.length > 35) return false
  for (const i of ISO_DIGITS) if (!digit(v, i)) return false
  if (v[4] !== '-' || v[7] !== '-' || v[10] !== 'T' || v[13] !== ':' || v[16] !== ':') return false
  const month = (v.charCodeAt(5) - 48) * 10 + v.charCodeAt(6) - 48
  const day = (v.charCodeAt(8) - 48) * 10 + v.charCodeAt(9) - 48
  if (month < 1 || month > 12 || day < 1 || day > 31) return false
  let i = 19
  if (v[i] === '.') {
    i++
    const from = i
    while (i < v.length && digit(v, i)) i++
    if (i === from) return false
  }
  if (v[i] === 'Z') return i === v.length - 1
  return (v[i] === '+' || v[i] === '-') && i === v.length - 6 && digit(v, i + 1) && digit(v, i + 2) && v[i + 3] === ':' && digit(v, i + 4) && digit(v, i + 5)
}

/** ms epoch (number or numeric string) or ISO string → ISO string; undefined when not a date. */
export function isoTime(v: unknown): string | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) {
    const d = new Date(v)
    return Number.isNaN(d.getTime()) ? undefined : d.toISOString()
  }
  if (typeof v === 'string' && v !== '') {
    // The shape every agent writes needs no Date parse.
    if (looksIso(v)) return v
    const d = new Date(v)
    return Number.isNaN(d.getTime()) ? undefined : v
  }
  return undefined
}

// ── unified diffs ───────────────────────────────────────────────────────────
// The contract's diffs are hunks only ("@@ -a,b +c,d @@" then lines), like the
// Claude examples: the file is already named by tool.file.

/** One hunk of a unified diff, as Claude Code's structuredPatch and jsdiff both store it. */
export interface Hunk {
  oldStart: number
  oldLines: number
  newStart: number
  newLines: number
  lines: string[]
}

function isHunk(h: unknown): h is Hunk {
  if (typeof h !== 'object' || h === null) return false
  const o = h as Record<string, unknown>
  return (
    typeof o.oldStart === 'number' &&
    typeof o.oldLines === 'number' &&
    typeof o.newStart === 'number' &&
    typeof o.newLines === 'number' &&
    Array.isArray(o.lines)
  )
}

/** Renders hunks as unified-diff text (hunk headers + lines, no file headers), starts as stored.
 *  Tolerant: malformed hunks are skipped, non-string lines dropped. */
export function renderHunks(hunks: unknown): string {
  if (!Array.isArray(hunks)) return ''
  const out: string[] = []
  for (const h of hunks) {
    if (!isHunk(h)) continue
    out.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`)
    for (const l of h.lines) if (typeof l === 'string') out.push(l)
  }
  return out.join('\n')
}

/**
 * Renders hunks whose starts are the first line of each side (jsdiff's way, and
 * how a diff being built counts) in the unified-diff convention, where an empty
 * side names the line before it (e.g. -0,0).
 */
export function renderUnifiedHunks(hunks: readonly Hunk[]): string {
  return renderHunks(
    hunks.map((h) => ({
      oldStart: h.oldLines === 0 ? h.oldStart - 1 : h.oldStart,
      oldLines: h.oldLines,
      newStart: h.newLines === 0 ? h.newStart - 1 : h.newStart,
      newLines: h.newLines,
      lines: h.lines,
    })),
  )
}

/**
 * A unified diff (hunks only) turning `before` into `after`; '' when they are
 * equal. Line numbers are relative to the snippet: the file position is not
 * known. The common shapes — a write (nothing → text) and an edit whose changed
 * lines share nothing — are built directly; anything else goes to jsdiff, which
 * gives the same text for those shapes (jsdiff costs several times a line's
 * JSON.parse).
 */
export function previewDiff(before: string, after: string): string {
  if (before === after) return ''
  return directDiff(before, after) ?? jsdiffPreview(before, after)
}

/** previewDiff through jsdiff alone (the reference the direct path is tested against).
 *  The "\ No newline" markers are dropped: edit snippets rarely end in a newline and
 *  the marker is noise on a phone. */
export function jsdiffPreview(before: string, after: string): string {
  if (before === after) return ''
  const patch = structuredPatch('', '', before, after, undefined, undefined, { context: 3 })
  return renderUnifiedHunks(patch.hunks.map((h) => ({ ...h, lines: h.lines.filter((l) => !l.startsWith('\\')) })))
}

/** Lines as jsdiff tokenizes them: each keeps its '\n', except an unterminated last one. */
function lineTokens(s: string): string[] {
  if (s === '') return []
  const out: string[] = []
  let at = 0
  for (let nl = s.indexOf('\n'); nl !== -1; nl = s.indexOf('\n', at)) {
    out.push(s.slice(at, nl + 1))
    at = nl + 1
  }
  if (at < s.length) out.push(s.slice(at))
  return out
}

const CONTEXT = 3

/**
 * One hunk: common leading and trailing lines as context, the rest removed then
 * added; undefined (jsdiff decides) when that is not the one minimal diff, or
 * with '\r' about.
 */
function directDiff(oldText: string, newText: string): string | undefined {
  if (oldText.includes('\r') || newText.includes('\r')) return undefined
  const a = lineTokens(oldText)
  const b = lineTokens(newText)
  let p = 0
  while (p < a.length && p < b.length && a[p] === b[p]) p++
  let q = 0
  while (q < a.length - p && q < b.length - p && a[a.length - 1 - q] === b[b.length - 1 - q]) q++
  const midA = a.slice(p, a.length - q)
  const midB = b.slice(p, b.length - q)
  // Only when no changed line occurs anywhere on the other side is every minimal
  // diff this one (otherwise equally short alignments exist and jsdiff picks one).
  if (midA.length && midB.length) {
    const inA = new Set(a)
    const inB = new Set(b)
    for (const t of midB) if (inA.has(t)) return undefined
    for (const t of midA) if (inB.has(t)) return undefined
  } else if (midA.length) {
    const inB = new Set(b)
    for (const t of midA) if (inB.has(t)) return undefined
  } else {
    const inA = new Set(a)
    for (const t of midB) if (inA.has(t)) return undefined
  }
  const before = Math.min(CONTEXT, p)
  const after = Math.min(CONTEXT, q)
  const strip = (t: string) => (t.endsWith('\n') ? t.slice(0, -1) : t)
  const lines: string[] = []
  for (let i = p - before; i < p; i++) lines.push(' ' + strip(a[i]))
  for (const t of midA) lines.push('-' + strip(t))
  for (const t of midB) lines.push('+' + strip(t))
  for (let i = a.length - q; i < a.length - q + after; i++) lines.push(' ' + strip(a[i]))
  const start = p - before + 1
  return renderUnifiedHunks([{ oldStart: start, oldLines: before + midA.length + after, newStart: start, newLines: before + midB.length + after, lines }])
}

/**
 * A unified diff as a tool stored it (opencode's metadata.diff, pi's details.patch):
 * the file headers (Index:, ====, ---, +++) of a single-file diff are dropped so it reads
 * like the other kinds' diffs. A multi-file diff keeps its headers: they say which file
 * each hunk belongs to.
 */
export function stripSingleFileHeaders(diff: string): string {
  const lines = diff.split('\n')
  if (lines.filter((l) => l.startsWith('+++ ')).length !== 1) return diff.replace(/\n$/, '')
  const first = lines.findIndex((l) => l.startsWith('@@'))
  if (first < 0) return diff.replace(/\n$/, '')
  return lines.slice(first).join('\n').replace(/\n$/, '')
}
