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
  let out = ''
  for (const h of hunks) {
    out += (out ? '\n' : '') + hunkHeader(h)
    for (const l of h.lines) out += '\n' + l
  }
  return out
}

/**
 * A preview diff of one replacement (old → new text), as the tool input states it.
 * Line numbers are relative to the snippet: the file position is not known yet.
 * Same output as the generic previewDiff (jsdiff), but the common shapes — a
 * write (nothing → text) and an edit whose changed lines share nothing — are
 * built directly: the index build normalizes every line of a session, and jsdiff
 * there costs several times the JSON.parse of the line.
 */
export function snippetDiff(oldText: string, newText: string): string {
  if (oldText === newText) return ''
  return directDiff(oldText, newText) ?? previewDiff(oldText, newText)
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
  const oldLines = before + midA.length + after
  const newLines = before + midB.length + after
  const start = p - before + 1
  return formatHunks([{ oldStart: start, oldLines, newStart: start, newLines, lines }])
}

/**
 * After the sign: padding, a line number, then a space and the text (or nothing);
 * 'gap' for the `...` line of skipped lines. Scanned by hand for the common
 * all-spaces padding (this runs on every edit result of a session), the regexes
 * decide anything else.
 */
function numberedLine(line: string): { n: number; text: string } | 'gap' | undefined {
  let i = 1
  while (i < line.length && line.charCodeAt(i) === 0x20) i++
  const digits = i
  while (i < line.length && line.charCodeAt(i) >= 0x30 && line.charCodeAt(i) <= 0x39) i++
  if (i > digits && (i === line.length || line.charCodeAt(i) === 0x20)) {
    return { n: Number(line.slice(digits, i)), text: i === line.length ? '' : line.slice(i + 1) }
  }
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
