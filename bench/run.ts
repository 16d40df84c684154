// Runs every benchmark that exists, one after another (they share 2 cores, so
// never in parallel), and prints their outputs as they come.
//   bun bench/run.ts            (package.json: "bench")
// Exits non-zero when any benchmark failed.
import { existsSync } from 'node:fs'
import { join } from 'node:path'

const BENCHES = [
  'card-parse.ts',
  'transcript-engine.ts',
  'transcript-socket.ts',
  'bridge.ts',
  'binary.ts',
  'pi-transcript.ts',
  'opencode-transcript.ts',
  'codex-transcript.ts',
  'herdr-calls.ts',
  'scope-check.ts',
  'projects.ts',
  'changes.ts',
  'usage.ts',
  'soak.ts',
  'machines.ts',
  'search.ts',
]

const ran: { name: string; code: number; seconds: number }[] = []
for (const name of BENCHES) {
  const path = join(import.meta.dir, name)
  if (!existsSync(path)) {
    console.log(`── ${name}: not there, skipped\n`)
    continue
  }
  console.log(`── ${name}`)
  const t0 = performance.now()
  const proc = Bun.spawn([process.execPath, path], { cwd: join(import.meta.dir, '..'), stdio: ['ignore', 'inherit', 'inherit'] })
  const code = await proc.exited
  const seconds = +((performance.now() - t0) / 1000).toFixed(1)
  ran.push({ name, code, seconds })
  console.log(`── ${name}: ${code === 0 ? 'ok' : `FAILED (exit ${code})`} in ${seconds} s\n`)
}

const failed = ran.filter((r) => r.code !== 0)
console.log(`benchmarks: ${ran.length} ran, ${failed.length} failed${failed.length ? ': ' + failed.map((r) => r.name).join(', ') : ''}`)
process.exit(failed.length ? 1 : 0)
