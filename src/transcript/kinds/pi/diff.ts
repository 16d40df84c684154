// Unified-diff helpers for the pi and opencode readers. Pure.
// The contract's diffs are hunks only ("@@ -a,b +c,d @@" then lines), like the
// Claude examples: the file is already named by tool.file.
import { previewDiff } from '../../tool-summary'

type Hunk = { oldStart: number; oldLines: number; newStart: number; newLines: number; lines: string[] }

function hunkHeader(h: Hunk): string {
  // Unified-diff convention: an empty side names the line before it.
  const os = h.oldLines === 0 ? h.oldStart - 1 : h.oldStart
  const ns = h.newLines === 0 ? h.newStart - 1 : h.newStart
  return `@@ -${os},${h.oldLines} +${ns},${h.newLines} @@`
}

function formatHunks(hunks: Hunk[]): string {
  const out: string[] = []
  for (const h of hunks) {
    out.push(hunkHeader(h))
    out.push(...h.lines)
  }
  return out.join('\n')
}

/**
 * A preview diff of one replacement (old → new text), as the tool input states it.
 * Line numbers are relative to the snippet: the file position is not known yet.
 */
export const snippetDiff: (oldText: string, newText: string) => string = previewDiff

/**
 * pi's display diff (details.diff of edit results) → a unified diff.
 * pi writes one line per change: `+<n> text` (n = new line), `-<n> text` (n = old line),
 * ` <n> text` (context, old line number), numbers right-aligned, and a line of spaces
 * plus `...` where unchanged lines were skipped (a hunk break).
 * Returns undefined when a line does not fit that format: no diff beats a wrong one.
 */
export function piDiffToUnified(piDiff: string): string | undefined {
  const hunks: Hunk[] = []
  let cur: Hunk | undefined
  let delta = 0 // new line number - old line number, after the lines seen so far
  for (const line of piDiff.split('\n')) {
    if (line === '') continue
    const sign = line[0]
    const rest = line.slice(1)
    if (sign === ' ' && /^\s*\.\.\.$/.test(rest)) {
      cur = undefined
      continue
    }
    const m = /^\s*(\d+)(?: (.*))?$/s.exec(rest)
    if (!m || (sign !== ' ' && sign !== '-' && sign !== '+')) return undefined
    const n = Number(m[1])
    const text = m[2] ?? ''
    if (!cur) {
      cur =
        sign === '+'
          ? { oldStart: n - delta, newStart: n, oldLines: 0, newLines: 0, lines: [] }
          : { oldStart: n, newStart: n + delta, oldLines: 0, newLines: 0, lines: [] }
      hunks.push(cur)
    }
    cur.lines.push(sign + text)
    if (sign === ' ') {
      cur.oldLines++
      cur.newLines++
    } else if (sign === '-') {
      cur.oldLines++
      delta--
    } else {
      cur.newLines++
      delta++
    }
  }
  return hunks.length ? formatHunks(hunks) : undefined
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
