// Screen text → plain lines a grammar can read. Pure; never throws.
// herdr's `agent read` gives right-trimmed rows; with --format ansi it keeps SGR
// escapes. Either way a grammar wants: no escapes, no control bytes, NBSP as a
// plain space (Claude Code puts U+00A0 after ❯ and ⎿), no trailing blanks.
import stripAnsi from 'strip-ansi'

/** One character cleanScreen drops: C0/C1 controls except \n and \t; DEL; zero-width and bidi marks; BOM; U+FFFD. */
export const CONTROL_CHAR = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff\ufffd]/
const CONTROL = new RegExp(CONTROL_CHAR.source, 'g')
// Leftover escape introducers strip-ansi does not know (cut sequences at a read boundary).
const STRAY_ESC = /\u001b(?:\[[0-9;?]*)?/g
/** One character cleanScreen turns into a plain space (NBSP and its narrow kin). */
export const NBSP_LIKE_CHAR = /[\u00a0\u2007\u202f]/
const NBSP_LIKE = new RegExp(NBSP_LIKE_CHAR.source, 'g')

/** Strip escapes and control characters; NBSP → space; CRLF → LF; right-trim each row. */
export function cleanScreen(raw: unknown): string {
  if (typeof raw !== 'string' || raw.length === 0) return ''
  let s = raw
  try {
    s = stripAnsi(s)
  } catch {
    // strip-ansi is regex-only, but a pathological input must not cost the card
  }
  s = s.replace(STRAY_ESC, '').replace(/\r\n?/g, '\n').replace(NBSP_LIKE, ' ').replace(/\t/g, '    ').replace(CONTROL, '')
  const rows = s.split('\n')
  for (let i = 0; i < rows.length; i++) rows[i] = rows[i].trimEnd()
  while (rows.length > 0 && rows[rows.length - 1] === '') rows.pop()
  return rows.join('\n')
}

/** cleanScreen, split into rows ([] for an empty screen). */
export function screenLines(raw: unknown): string[] {
  const s = cleanScreen(raw)
  return s === '' ? [] : s.split('\n')
}
