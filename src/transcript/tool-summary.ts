// Kind-agnostic helpers for tool cards: one-line summaries, basenames and
// unified diffs. Shared by every transcript normalizer (claude, pi, …) so a
// tool card looks the same whatever agent produced it. Pure.
import { structuredPatch } from 'diff'
import { capDiff } from './entry'

/** Roughly what fits one phone row. */
export const SUMMARY_RUNES = 120

/** Collapses whitespace to single spaces and cuts to `max` code points with an ellipsis. */
export function oneLine(s: string, max = SUMMARY_RUNES): string {
  const flat = s.replace(/\s+/g, ' ').trim()
  const cps = Array.from(flat)
  return cps.length <= max ? flat : cps.slice(0, max - 1).join('') + '…'
}

/** Last path component; accepts / and \ separators; '' stays ''. */
export function basename(path: string): string {
  const trimmed = path.replace(/[\\/]+$/, '')
  const i = Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\'))
  return i >= 0 ? trimmed.slice(i + 1) : trimmed
}

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

/** Renders hunks as unified-diff text (hunk headers + lines, no file headers).
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

/** A unified diff (hunks only) turning `before` into `after`. The "\ No newline"
 *  markers are dropped: edit snippets rarely end in a newline and the marker is
 *  noise on a phone. */
export function previewDiff(before: string, after: string): string {
  if (before === after) return ''
  const patch = structuredPatch('', '', before, after, undefined, undefined, { context: 3 })
  return renderHunks(
    patch.hunks.map((h) => ({
      // jsdiff stores an empty side as start 1; unified diff convention writes start-1 (e.g. -0,0)
      oldStart: h.oldLines === 0 ? h.oldStart - 1 : h.oldStart,
      oldLines: h.oldLines,
      newStart: h.newLines === 0 ? h.newStart - 1 : h.newStart,
      newLines: h.newLines,
      lines: h.lines.filter((l) => !l.startsWith('\\')),
    })),
  )
}

/** Caps a diff to the contract's limits; an empty diff yields nothing. */
export function cappedDiff(diff: string): { diff?: string; truncated: boolean } {
  if (!diff) return { truncated: false }
  const c = capDiff(diff)
  return { diff: c.text, truncated: c.cut }
}
