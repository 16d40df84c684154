// Small pure helpers that turn raw tool inputs/outputs into the contract's capped
// fields. Shared by the pi and opencode readers (candidates for a common module).
import { capDiff, capRunes, LIMITS } from '../../entry'

const SUMMARY_RUNES = 160

/** A compact one-line summary: whitespace collapsed, capped with an ellipsis. */
export function oneLine(s: string, max = SUMMARY_RUNES): string {
  const flat = s.replace(/\s+/g, ' ').trim()
  const r = capRunes(flat, max)
  return r.cut ? r.text + ' …' : r.text
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
  const parts = p.split(/[\\/]/).filter((x) => x !== '')
  return parts.length ? parts[parts.length - 1] : undefined
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

/** ms epoch (number or numeric string) or ISO string → ISO string; undefined when not a date. */
export function isoTime(v: unknown): string | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) {
    const d = new Date(v)
    return Number.isNaN(d.getTime()) ? undefined : d.toISOString()
  }
  if (typeof v === 'string' && v !== '') {
    const d = new Date(v)
    return Number.isNaN(d.getTime()) ? undefined : v
  }
  return undefined
}

export type Obj = Record<string, unknown>
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)
