// Kind-agnostic helpers for the transcript normalizers (claude, pi, opencode, …):
// raw values → the contract's capped fields, one-line summaries, basenames,
// dates, and unified diffs. One implementation each, so a tool card looks the
// same whatever agent produced it, and no kind imports another kind's module.
// Pure. They run only for the entries a page builds (each kind's index counts
// lines without normalizing them), so each is written plainly.
import { structuredPatch } from 'diff'
import { capDiff, capRunes, LIMITS, type ToolCall, type ToolResult } from './entry'

// ── raw JSON values ─────────────────────────────────────────────────────────

export type Obj = Record<string, unknown>
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)

/** The JSON value a string holds; undefined for a string that is not JSON, or no string. */
export function jsonIn(s: unknown): unknown {
  if (typeof s !== 'string') return undefined
  try {
    return JSON.parse(s)
  } catch {
    return undefined
  }
}

/**
 * The text of a message's content: a string as it is, else its blocks' text
 * joined by newlines. A `text` block gives its text; `other` gives what the
 * kind shows for any other block (`[image]`, an attachment's placeholder), or
 * undefined to leave it out.
 */
export function blocksText(content: unknown, other: (block: Obj) => string | undefined): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  const parts: string[] = []
  for (const b of content) {
    if (!isObj(b)) continue
    const text = b.type === 'text' && typeof b.text === 'string' ? b.text : other(b)
    if (text !== undefined) parts.push(text)
  }
  return parts.join('\n')
}

// ── one-line summaries and names ────────────────────────────────────────────

/** Roughly what fits one phone row. */
export const SUMMARY_RUNES = 120

/** Collapses whitespace to single spaces and cuts to `max` code points with an ellipsis. */
export function oneLine(s: string, max = SUMMARY_RUNES): string {
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

/** set only inside withoutDiffs (synchronous): previewDiff and renderHunks build nothing */
let diffsSkipped = false

/**
 * Runs `work` (a normalizer call) with no diff built: the search index reads
 * the searchable text of entries (never a diff), and a preview diff was a
 * third of the normalizing it paid for. Synchronous, so nothing else runs meanwhile.
 */
export function withoutDiffs<T>(work: () => T): T {
  const was = diffsSkipped
  diffsSkipped = true
  try {
    return work()
  } finally {
    diffsSkipped = was
  }
}

/** Puts a call's preview diff on its tool card, capped (diff_truncated when cut). */
export function withPreviewDiff(tool: ToolCall, preview: string | undefined): ToolCall {
  if (!preview) return tool
  const c = capDiff(preview)
  tool.diff = c.text
  if (c.cut) tool.diff_truncated = true
  return tool
}

/** A tool result with its output and applied diff capped to the contract's limits (truncated when either was cut). */
export function cappedResult(forId: string, ok: boolean, output: string, diff?: string): ToolResult {
  const result: ToolResult = { for_id: forId, ok }
  if (output) {
    const c = capOutput(output)
    result.output_summary = c.text
    if (c.cut) result.truncated = true
  }
  if (diff) {
    const c = capDiff(diff)
    result.diff = c.text
    if (c.cut) result.truncated = true
  }
  return result
}

/** Caps a diff to the contract's limits; an empty diff yields nothing. */
export function cappedDiff(diff: string): { diff?: string; truncated: boolean } {
  if (!diff) return { truncated: false }
  const c = capDiff(diff)
  return { diff: c.text, truncated: c.cut }
}

// ── dates ───────────────────────────────────────────────────────────────────

/** ms epoch (number or numeric string) or ISO string → ISO string; undefined when not a date. */
export function isoTime(v: unknown): string | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) {
    const d = new Date(v)
    return Number.isNaN(d.getTime()) ? undefined : d.toISOString()
  }
  if (typeof v === 'string' && v !== '') {
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
  if (diffsSkipped || !Array.isArray(hunks)) return ''
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
 * known. The "\\ No newline" markers are dropped: edit snippets rarely end in a
 * newline and the marker is noise on a phone.
 */
export function previewDiff(before: string, after: string): string {
  if (diffsSkipped || before === after) return ''
  if (before === '') return createdDiff(after)
  const patch = structuredPatch('', '', before, after, undefined, undefined, { context: 3 })
  return renderUnifiedHunks(patch.hunks.map((h) => ({ ...h, lines: h.lines.filter((l) => !l.startsWith('\\')) })))
}

/**
 * previewDiff('', after), written out: every line added, in one hunk. What the
 * diff library answers for a new file, without its line-by-line search (a
 * 3,000-line file: 0.7 ms instead of 3 ms; a Write's card and its result each
 * carry one). test/transcript/tool-summary.test.ts holds the two equal.
 */
function createdDiff(after: string): string {
  const lines = after.split('\n')
  if (lines[lines.length - 1] === '') lines.pop()
  return `@@ -0,0 +1,${lines.length} @@\n` + lines.map((l) => '+' + l).join('\n')
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
