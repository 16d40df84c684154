// Small pure helpers that turn raw values into the contract's capped fields,
// used by the pi and opencode readers (the kind-agnostic ones live in tool-summary.ts).
import { capDiff as capDiffSlow, capRunes, LIMITS } from '../../entry'
import { basename as baseName, oneLine as oneLineSlow, SUMMARY_RUNES } from '../../tool-summary'

/**
 * tool-summary's oneLine, without its code-point array when the flattened text is
 * short enough in UTF-16 units already (the common case; the index build calls
 * this for every tool call of a session).
 */
export function oneLine(s: string, max = SUMMARY_RUNES): string {
  if (s.length <= max) {
    const flat = /\s/.test(s) ? s.replace(/\s+/g, ' ').trim() : s
    if (flat.length <= max) return flat
  }
  return oneLineSlow(s, max)
}

/** Compact JSON of a tool input, one line; never throws (cycles, BigInt). */
export function inputSummary(input: unknown): string {
  if (typeof input === 'string') return oneLine(input)
  try {
    return oneLine(JSON.stringify(input) ?? '')
  } catch {
    return ''
  }
}

/** Last path segment, for either separator; undefined for an empty path. */
export function basename(p: string): string | undefined {
  return baseName(p) || undefined
}

/** Message/thinking body capped to the contract's limit. */
export function capBody(s: string): string {
  return capRunes(s, LIMITS.bodyRunes).text
}

/** Tool output capped to the contract's limit. */
export function capOutput(s: string): { text: string; cut: boolean } {
  return capRunes(s, LIMITS.outputRunes)
}

/** entry.ts's capDiff, without splitting a diff that is within the limits anyway (the usual case). */
export function capDiff(diff: string): { text: string; cut: boolean } {
  if (diff.length <= LIMITS.diffRunes) {
    let lines = 1
    for (let nl = diff.indexOf('\n'); nl !== -1 && lines <= LIMITS.diffLines; nl = diff.indexOf('\n', nl + 1)) lines++
    if (lines <= LIMITS.diffLines) return { text: diff, cut: false }
  }
  return capDiffSlow(diff)
}

const digit = (s: string, i: number) => {
  const c = s.charCodeAt(i)
  return c >= 0x30 && c <= 0x39
}

const ISO_DIGITS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]

/** YYYY-MM-DDThh:mm:ss[.f…](Z|±hh:mm), checked by hand (no Date parse, no regex per line). */
function looksIso(v: string): boolean {
  if (v.length < 20 || v.length > 35) return false
  for (const i of ISO_DIGITS) if (!digit(v, i)) return false
  if (v[4] !== '-' || v[7] !== '-' || v[10] !== 'T' || v[13] !== ':' || v[16] !== ':') return false
  const month = (v.charCodeAt(5) - 48) * 10 + v.charCodeAt(6) - 48
  const day = (v.charCodeAt(8) - 48) * 10 + v.charCodeAt(9) - 48
  if (month < 1 || month > 12 || day < 1 || day > 31) return false
  let i = 19
  if (v[i] === '.') {
    i++
    const from = i
    while (i < v.length && digit(v, i)) i++
    if (i === from) return false
  }
  if (v[i] === 'Z') return i === v.length - 1
  return (v[i] === '+' || v[i] === '-') && i === v.length - 6 && digit(v, i + 1) && digit(v, i + 2) && v[i + 3] === ':' && digit(v, i + 4) && digit(v, i + 5)
}

/** ms epoch (number or numeric string) or ISO string → ISO string; undefined when not a date. */
export function isoTime(v: unknown): string | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) {
    const d = new Date(v)
    return Number.isNaN(d.getTime()) ? undefined : d.toISOString()
  }
  if (typeof v === 'string' && v !== '') {
    // The shape every agent writes needs no Date parse (a per-line cost in the index build).
    if (looksIso(v)) return v
    const d = new Date(v)
    return Number.isNaN(d.getTime()) ? undefined : v
  }
  return undefined
}

export type Obj = Record<string, unknown>
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)
