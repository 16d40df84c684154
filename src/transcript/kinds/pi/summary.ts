// Small pure helpers that turn raw values into the contract's capped fields,
// used by the pi and opencode readers (the kind-agnostic ones live in tool-summary.ts).
import { capDiff, capRunes, LIMITS } from '../../entry'
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

export { capDiff }

const ISO = /^\d{4}-[01]\d-[0-3]\dT[0-2]\d:[0-5]\d:[0-5]\d(\.\d{1,9})?(Z|[+-][0-2]\d:[0-5]\d)$/

/** ms epoch (number or numeric string) or ISO string → ISO string; undefined when not a date. */
export function isoTime(v: unknown): string | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) {
    const d = new Date(v)
    return Number.isNaN(d.getTime()) ? undefined : d.toISOString()
  }
  if (typeof v === 'string' && v !== '') {
    // The shape every agent writes needs no Date parse (a per-line cost in the index build).
    if (ISO.test(v) && +v.slice(5, 7) >= 1 && +v.slice(5, 7) <= 12 && +v.slice(8, 10) >= 1) return v
    const d = new Date(v)
    return Number.isNaN(d.getTime()) ? undefined : v
  }
  return undefined
}

export type Obj = Record<string, unknown>
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)
