// Text from a request shown to a person: in a terminal (`gothalo audit`), or as
// a label in herdr. Control characters (C0, DEL, C1), format characters (bidi
// overrides, zero-width ones), line and paragraph separators and lone
// surrogates could colour a terminal, fake a line or reorder what is shown. Pure.

const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu

const hex = (c: string, width: number) => (c.codePointAt(0) ?? 0).toString(16).padStart(width, '0')

/** `s` for a terminal: backslashes doubled, each unprintable character as `\xNN` or `\u{NNNN}`: one line, nothing acted on. */
export function escapeUnprintable(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(UNPRINTABLE, (c) => (c.length === 1 && c.charCodeAt(0) < 0x100 ? `\\x${hex(c, 2)}` : `\\u{${hex(c, 4)}}`))
}

/** A JSON text with the unprintable characters JSON leaves raw (DEL, C1, separators, format characters) as `\uNNNN`: the same value, safe to print. */
export function escapeUnprintableJson(json: string): string {
  return json.replace(UNPRINTABLE, (c) => [...c].map((u) => `\\u${u.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''))
}

/** `s` with its unprintable characters removed. */
export function printableOnly(s: string): string {
  return s.replace(UNPRINTABLE, '')
}
