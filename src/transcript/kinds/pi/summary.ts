// Small pure helpers that turn raw values into the contract's capped fields,
// used by the pi and opencode readers (the kind-agnostic ones live in tool-summary.ts).
import { capDiff, capRunes, LIMITS } from '../../entry'
import { basename as baseName, oneLine } from '../../tool-summary'

export { oneLine }

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
