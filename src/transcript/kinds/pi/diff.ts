// pi's display diff (details.diff of edit results) → a unified diff. Pure.
// Only pi writes this format; the kind-agnostic diff helpers are in tool-summary.ts.
import { renderUnifiedHunks, type Hunk } from '../../tool-summary'

/**
 * After the sign: padding, a line number, then a space and the text (or nothing);
 * 'gap' for the `...` line of skipped lines.
 */
function numberedLine(line: string): { n: number; text: string } | 'gap' | undefined {
  const rest = line.slice(1)
  if (/^\s*\.\.\.$/.test(rest)) return 'gap'
  const m = /^\s*(\d+)(?: (.*))?$/s.exec(rest)
  return m ? { n: Number(m[1]), text: m[2] ?? '' } : undefined
}

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
    const numbered = numberedLine(line)
    if (numbered === 'gap') {
      if (sign !== ' ') return undefined
      cur = undefined
      continue
    }
    if (!numbered || (sign !== ' ' && sign !== '-' && sign !== '+')) return undefined
    const { n, text } = numbered
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
  return hunks.length ? renderUnifiedHunks(hunks) : undefined
}
