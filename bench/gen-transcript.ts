// Generates a realistic Claude Code transcript of a given size by replaying the
// real lines of the cc-long session (fixtures/claude/cc-long) over and over, with a fresh uuid per
// line (ids stay unique) and parentUuid re-pointed at the replayed parent, so
// threading stays plausible across repetitions.
//   bun bench/gen-transcript.ts <MB> <out>
import { closeSync, openSync, readdirSync, readFileSync, statSync, writeSync } from 'node:fs'
import { join } from 'node:path'

// The repo's copy of the real cc-long capture, found from this file: no machine path.
const CORPUS = join(import.meta.dir, '..', 'fixtures', 'claude', 'cc-long')

function findJsonl(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    const p = join(dir, name)
    if (statSync(p).isDirectory()) out.push(...findJsonl(p))
    else if (name.endsWith('.jsonl')) out.push(p)
  }
  return out.sort()
}

/** The corpus lines, parsed once. */
export function corpusRecords(corpus = CORPUS): Record<string, unknown>[] {
  const recs: Record<string, unknown>[] = []
  for (const f of findJsonl(corpus)) {
    for (const l of readFileSync(f, 'utf8').split('\n')) {
      if (l.trim() === '') continue
      try {
        recs.push(JSON.parse(l))
      } catch {
        // a torn line in the corpus would be replayed as is by nobody: skip it
      }
    }
  }
  if (recs.length === 0) throw new Error(`no JSONL lines under ${corpus}`)
  return recs
}

/** Writes at least `mb` MiB of transcript to `out`; returns lines and bytes written. */
export function generateTranscript(mb: number, out: string, corpus = CORPUS): { lines: number; bytes: number } {
  const recs = corpusRecords(corpus)
  const target = mb * 1024 * 1024
  const fd = openSync(out, 'w')
  let bytes = 0
  let lines = 0
  let lastUuid: string | null = null
  let round = 0
  try {
    while (bytes < target) {
      // per round: old uuid → new uuid, so parents point inside the same replay
      const renamed = new Map<string, string>()
      const batch: string[] = []
      for (const rec of recs) {
        const copy: Record<string, unknown> = { ...rec }
        if (typeof rec.uuid === 'string') {
          const fresh = crypto.randomUUID()
          renamed.set(rec.uuid, fresh)
          copy.uuid = fresh
        }
        if ('parentUuid' in rec) {
          const p = rec.parentUuid
          copy.parentUuid = typeof p === 'string' ? (renamed.get(p) ?? lastUuid) : round > 0 ? lastUuid : null
        }
        if (typeof copy.uuid === 'string') lastUuid = copy.uuid
        const text = JSON.stringify(copy) + '\n'
        batch.push(text)
        bytes += Buffer.byteLength(text)
        lines++
        if (bytes >= target) break
      }
      writeSync(fd, batch.join(''))
      round++
    }
  } finally {
    closeSync(fd)
  }
  return { lines, bytes }
}

if (import.meta.main) {
  const [mbArg, out] = process.argv.slice(2)
  const mb = Number(mbArg)
  if (!(mb > 0) || !out) {
    console.error('usage: bun bench/gen-transcript.ts <MB> <out>')
    process.exit(2)
  }
  const r = generateTranscript(mb, out)
  console.log(`${out}: ${r.lines} lines, ${(r.bytes / 1048576).toFixed(1)} MiB`)
}
