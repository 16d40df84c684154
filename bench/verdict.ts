// Targets, shared by every benchmark: a figure is checked against its target
// and printed with the floor it is measured against; a missed target prints
// MISS, and finish() then exits non-zero (so does `npm run bench`).
export interface Verdict {
  what: string
  ok: boolean
}

const verdicts: Verdict[] = []

/**
 * Checks one figure. `shown` is the figure as printed (with its unit),
 * `target` the target as printed; the line says ok or MISS.
 */
export function check(what: string, ok: boolean, shown: string, target: string): boolean {
  verdicts.push({ what, ok })
  console.log(`  ${ok ? 'ok  ' : 'MISS'}  ${what}: ${shown}   (target ${target})`)
  return ok
}

/** Prints a figure that has no target (context), never a verdict. */
export function info(what: string, shown: string): void {
  console.log(`        ${what}: ${shown}`)
}

/** One line per benchmark: how many targets were met; exits 1 when any was missed. */
export function finish(bench: string): never {
  const missed = verdicts.filter((v) => !v.ok)
  console.log(
    `${bench}: ${verdicts.length - missed.length} of ${verdicts.length} targets met` + (missed.length ? `; MISS: ${missed.map((v) => v.what).join('; ')}` : ''),
  )
  process.exit(missed.length ? 1 : 0)
}

/** The machine's load while measuring (2 shared cores: say how busy it was). */
export function loadNote(): string {
  try {
    const [one, five] = require('node:fs').readFileSync('/proc/loadavg', 'utf8').split(' ')
    return `load average ${one} (1 min), ${five} (5 min) on ${navigator.hardwareConcurrency} cores`
  } catch {
    return 'load average unknown'
  }
}
