// The rules for text the bridge types into a pane (docs/bridge.md, POST /send):
// /send's text and /agent-start's first prompt alike. Pure.

/** The most characters one request types. */
export const SEND_MAX = 4096

/** Each \n is an Enter; every other control character is refused, C1 too (U+009B is an 8-bit CSI, ESC [201~ ends a paste). */
const TYPED_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/

/** What is wrong with text to be typed, or undefined when it may be typed. */
export function typedTextProblem(text: string): string | undefined {
  if ([...text].length > SEND_MAX) return `text longer than ${SEND_MAX} characters`
  if (TYPED_CONTROL.test(text)) return 'control characters other than \\n are not allowed'
  return undefined
}
