// What the search index holds of an entry, how a query becomes an FTS5 match,
// and a hit's snippet (docs/bridge.md, "Every past conversation"). Pure: no
// SQLite, no file, no clock.
import type { Draft } from '../transcript/entry'

/** The first 4 KiB of a tool result is searchable; the rest is output nobody types back. */
export const RESULT_BYTES = 4096
export const QUERY_MAX = 1000
/** a trigram index finds substrings of three characters or more */
export const TERM_MIN = 3
export const TERMS_MAX = 16
export const SNIPPET_CHARS = 160

/**
 * The searchable text of an entry, as the transcript normalizers produce it:
 * user prompts, assistant prose, a tool call's summary (name, title, command,
 * file, input), the start of a tool result. Thinking, system lines and
 * unplaced records are not searched: undefined.
 */
export function searchText(d: Draft): string | undefined {
  if (!d.parsed) return undefined
  switch (d.kind) {
    case 'message':
      return d.role === 'system' ? undefined : d.text || undefined
    case 'tool_call': {
      const t = d.tool
      if (!t) return undefined
      const parts = [t.name, t.title, t.subtitle, t.command, t.file, t.input_summary].filter((x): x is string => !!x)
      // a summary repeats its command or file: each once
      return [...new Set(parts)].join(' ') || undefined
    }
    case 'tool_result': {
      const out = d.result?.output_summary
      if (!out) return undefined
      return Buffer.byteLength(out) <= RESULT_BYTES
        ? out
        : Buffer.from(out)
            .subarray(0, RESULT_BYTES)
            .toString('utf8')
            .replace(/\uFFFD$/, '')
    }
    default:
      return undefined
  }
}

export interface ParsedQuery {
  /** what is looked for, each at least TERM_MIN characters: words and "quoted phrases" */
  terms: string[]
  /** the FTS5 expression: every term a quoted string (its own quotes doubled), all of them required */
  match: string
}

/**
 * Words and "quoted phrases"; everything else (FTS5's `*`, `NEAR(`, `AND`, `-`,
 * `:`, a stray `"`) is text to find. Terms shorter than three characters cannot
 * be found by a trigram index and are left out when a longer one is there;
 * undefined when none is left (the route's 400).
 */
export function parseQuery(q: string): ParsedQuery | undefined {
  const terms: string[] = []
  const re = /"([^"]*)"|(\S+)/g
  // NUL would end FTS5's expression early (its parser reads a C string): a separator, as a space is
  const text = q.replaceAll('\u0000', ' ')
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const term = (m[1] ?? m[2] ?? '').replace(/\s+/g, ' ').trim()
    if ([...term].length >= TERM_MIN && !terms.includes(term)) terms.push(term)
  }
  if (terms.length === 0) return undefined
  const kept = terms.slice(0, TERMS_MAX)
  return { terms: kept, match: kept.map((t) => `"${t.replaceAll('"', '""')}"`).join(' AND ') }
}

/**
 * Lower case, character by character, keeping the length: a character whose
 * lower case is longer (U+0130 'İ' → 'i̇') stays as it is, so offsets into the
 * result are offsets into the text.
 */
const lowerInPlace = (s: string) =>
  /^[\x00-\x7f]*$/.test(s)
    ? s.toLowerCase()
    : s.replace(/[A-Z]|[^\x00-\x7f]/gu, (c) => {
        const l = c.toLowerCase()
        return l.length === c.length ? l : c
      })

/** Every place a term occurs in `text` (case-insensitive, as the trigram index matches), merged, in order. */
export function matchesIn(text: string, terms: string[]): [number, number][] {
  const lower = lowerInPlace(text)
  const spans: [number, number][] = []
  for (const t of terms) {
    const needle = lowerInPlace(t)
    for (let i = lower.indexOf(needle); i >= 0; i = lower.indexOf(needle, i + needle.length)) spans.push([i, i + needle.length])
  }
  spans.sort((a, b) => a[0] - b[0] || a[1] - b[1])
  const merged: [number, number][] = []
  for (const s of spans) {
    const last = merged.at(-1)
    if (last && s[0] <= last[1]) last[1] = Math.max(last[1], s[1])
    else merged.push([s[0], s[1]])
  }
  return merged
}

/**
 * A window of the text around its first match (about SNIPPET_CHARS, on one
 * line), and the matches inside it as [start, end) offsets into the snippet.
 */
export function snippetOf(text: string, terms: string[]): { snippet: string; matches: [number, number][] } {
  const flat = text.replace(/\s/g, ' ')
  const all = matchesIn(flat, terms)
  const first = all[0]?.[0] ?? 0
  let start = Math.max(0, first - Math.floor(SNIPPET_CHARS / 3))
  // never cut a surrogate pair
  if (start > 0 && /[\uDC00-\uDFFF]/.test(flat[start] ?? '')) start--
  let end = Math.min(flat.length, start + SNIPPET_CHARS)
  if (end < flat.length && /[\uD800-\uDBFF]/.test(flat[end - 1] ?? '')) end++
  const head = start > 0 ? '…' : ''
  const tail = end < flat.length ? '…' : ''
  const snippet = head + flat.slice(start, end) + tail
  const matches = all
    .filter(([s, e]) => s < end && e > start)
    .map(([s, e]): [number, number] => [Math.max(s, start) - start + head.length, Math.min(e, end) - start + head.length])
  return { snippet, matches }
}
