// Fallback grammar for kinds without a dedicated parser (parsed:false): best-effort
// last readable line, recent readable text, never `blocked`. Kind-agnostic chrome
// (key hints, frame glyphs, spinners, status bars under the last rule) is data below.
import { TRANSCRIPT_LINES, type ScreenGrammar, type ScreenReading } from '../card'
import { fallbackRules } from '../rules'
import { screenLines } from '../clean'
import { isBoxArt, isDashedRule, isRule, paneWidth, stripFrame, wrapsInto } from '../lines'

const DETAIL_LINES = 20
const HEADLINE_MAX = 300
// TUIs without a known layout often keep a right margin: count a row this close to the edge as full
const WRAP_SLACK = 2

/** Rows that are UI chrome in most TUIs, not content. */
export const genericChrome: RegExp[] = [
  // key hints: "esc interrupt", "enter confirm", "ctrl+p commands", "↑↓ select"
  /\b(?:esc|enter|tab|ctrl\+\w|shift\+\w+)\b\s+(?:to\s+)?(?:interrupt|cancel|confirm|select|submit|dismiss|commands|exit|clear|more|toggle|expand|navigate)\b/i,
  /[⇆↑↓]\s*(?:select|tab|navigate)/,
  // spinners and progress bars
  /^(?:[\u2800-\u28ff◐◓◑◒·✢✳✶✻✽*]\s+)?(?:Working|Thinking|Compacting|Retrying)\b.*(?:\.\.\.|…)/,
  /[■⬝]{4,}/,
  // token / context counters ("0.1%/200k (auto)", "162 (0%)")
  /\d+(?:\.\d+)?%\/\d+k\b/,
  /^\s*\d+ \(\d+%\)/,
]

// leading spinner glyphs (braille, half circles) on an otherwise readable row
const SPINNER_PREFIX = /^[\u2800-\u28ff◐◓◑◒]\s+/

/** Rows above footer chrome: cuts at a rule or a box's bottom edge near the bottom
 *  (status bars follow it), twice, so an editor box right above the footer goes too. */
function contentRows(lines: readonly string[], width: number): readonly string[] {
  let end = lines.length
  for (let pass = 0; pass < 2; pass++) {
    let cut = -1
    for (let i = end - 1; i >= 0 && i >= end - 6; i--) {
      const l = lines[i]
      if (isRule(l) || (isBoxArt(l) && l.trim().length >= width / 2 && /(.)\1{19,}/u.test(l))) {
        cut = i
        break
      }
    }
    if (cut < 0) break
    // a framed box ends at this edge: its rows share the edge's left frame column
    const col = lines[cut].search(/\S/)
    let top = cut
    while (top - 1 >= 0 && col >= 0 && /[\u2500-\u257f]/.test(lines[top - 1].charAt(col))) top--
    end = top
  }
  return lines.slice(0, end)
}

function readable(line: string): string | undefined {
  if (!line.trim() || isRule(line) || isDashedRule(line) || isBoxArt(line)) return undefined
  // frame glyphs inside a row (side-by-side panels) become a gap
  const t = stripFrame(line)
    .replace(SPINNER_PREFIX, '')
    .replace(/\s*[\u2500-\u259f]+\s*/g, '  ')
    .replace(/\s{3,}/g, '  ')
    .trim()
  if (!t || !/[\p{L}\p{N}]/u.test(t)) return undefined
  if (genericChrome.some((r) => r.test(t))) return undefined
  return t
}

export function fallbackRead(screen: string): ScreenReading {
  const lines = screenLines(screen)
  const width = paneWidth(lines)
  const rows = contentRows(lines, width)
  const recent: string[] = []
  // bottom-up; a row the previous one soft-wrapped into is glued back on
  let pending: string | undefined
  for (let i = rows.length - 1; i >= 0 && recent.length < DETAIL_LINES; i--) {
    const t = readable(rows[i])
    if (t === undefined) {
      if (pending !== undefined) recent.push(pending)
      pending = undefined
      continue
    }
    if (pending !== undefined && wrapsInto(rows[i], rows[i + 1], width - WRAP_SLACK)) {
      pending = t + ' ' + pending
      continue
    }
    if (pending !== undefined) recent.push(pending)
    pending = t
  }
  if (pending !== undefined && recent.length < DETAIL_LINES) recent.push(pending)
  recent.reverse()
  const last = recent[recent.length - 1] ?? ''
  const headline = last.length > HEADLINE_MAX ? last.slice(0, HEADLINE_MAX - 1) + '…' : last
  const transcript = recent.slice(-TRANSCRIPT_LINES)
  return {
    headline,
    detail: recent.join('\n'),
    transcript: transcript.length ? transcript : undefined,
    parsed: false,
    rule: recent.length ? 'fallback.last-readable-line' : 'fallback.nothing-readable',
    decisions: {
      headline: recent.length
        ? { rule: 'fallback.last-readable-line', why: `last readable row of ${recent.length} kept` }
        : { rule: 'fallback.nothing-readable', why: 'no readable row on screen' },
    },
  }
}

/** A screen this grammar does not recognise: the fallback reading, under the grammar's rule id. */
export function unrecognised(screen: string, ns: string): ScreenReading {
  const r = fallbackRead(screen)
  const why = `no ${ns} layout on screen; fallback: ${r.decisions?.headline?.why ?? ''}`
  return { ...r, rule: `${ns}.layout.unrecognised`, decisions: { ...r.decisions, headline: { rule: `${ns}.layout.unrecognised`, why } } }
}

export const fallbackGrammar: ScreenGrammar = {
  kinds: [],
  rules: fallbackRules,
  read: (screen) => fallbackRead(screen),
}
