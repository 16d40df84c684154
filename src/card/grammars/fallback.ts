// Fallback grammar for kinds without a dedicated parser (parsed:false): best-effort
// last readable line, recent readable text, never `blocked`. Kind-agnostic chrome
// (key hints, frame glyphs, spinners, status bars under the last rule) is data below.
import type { ScreenGrammar, ScreenReading } from '../card'
import { screenLines } from '../clean'
import { isBoxArt, isDashedRule, isRule, stripFrame } from '../lines'

const TRANSCRIPT_LINES = 12
const DETAIL_LINES = 20
const HEADLINE_MAX = 300

/** Rows that are UI chrome in most TUIs, not content. */
export const genericChrome: RegExp[] = [
  // key hints: "esc interrupt", "enter confirm", "ctrl+p commands", "↑↓ select"
  /\b(?:esc|enter|tab|ctrl\+\w|shift\+\w+)\b\s+(?:to\s+)?(?:interrupt|cancel|confirm|select|submit|dismiss|commands|exit|clear|more|toggle|expand|navigate)\b/i,
  /[⇆↑↓]\s*(?:select|tab|navigate)/,
  // spinners and progress bars
  /^[\u2800-\u28ff◐◓◑◒·✢✳✶✻✽*]\s+\S*(?:Working|Thinking|Compacting|Retrying)\S*(?:\.\.\.|…)/,
  /[■⬝]{4,}/,
  // token / context counters ("0.1%/200k (auto)", "162 (0%)")
  /\d+(?:\.\d+)?%\/\d+k\b/,
  /^\s*\d+ \(\d+%\)/,
]

// leading spinner glyphs (braille, half circles) on an otherwise readable row
const SPINNER_PREFIX = /^[\u2800-\u28ff◐◓◑◒]\s+/

/** Rows above footer chrome: drops what follows the last rule when it is a short footer,
 *  and an editor box (two rules close together) right above it. */
function contentRows(lines: readonly string[]): readonly string[] {
  let end = lines.length
  for (let pass = 0; pass < 2; pass++) {
    let rule = -1
    for (let i = end - 1; i >= 0 && i >= end - 6; i--) {
      if (isRule(lines[i])) {
        rule = i
        break
      }
    }
    if (rule < 0) break
    end = rule
  }
  return lines.slice(0, end)
}

function readable(line: string): string | undefined {
  if (!line.trim() || isRule(line) || isDashedRule(line) || isBoxArt(line)) return undefined
  const t = stripFrame(line).replace(SPINNER_PREFIX, '').trim()
  if (!t || !/[\p{L}\p{N}]/u.test(t)) return undefined
  if (genericChrome.some((r) => r.test(t))) return undefined
  return t
}

export function fallbackRead(screen: string): ScreenReading {
  const lines = screenLines(screen)
  const rows = contentRows(lines)
  const recent: string[] = []
  for (let i = rows.length - 1; i >= 0 && recent.length < DETAIL_LINES; i--) {
    const t = readable(rows[i])
    if (t !== undefined) recent.push(t)
  }
  recent.reverse()
  const last = recent[recent.length - 1] ?? ''
  const headline = last.length > HEADLINE_MAX ? last.slice(0, HEADLINE_MAX - 1) + '…' : last
  const transcript = recent.slice(-TRANSCRIPT_LINES)
  return {
    headline,
    detail: recent.join('\n'),
    transcript: transcript.length ? transcript : undefined,
    parsed: false,
    rule: recent.length ? 'fallback:last-readable-line' : 'fallback:nothing-readable',
  }
}

export const fallbackGrammar: ScreenGrammar = {
  kinds: [],
  read: (screen) => fallbackRead(screen),
}
