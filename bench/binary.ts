// The compiled binary: build time and size, startup time (spawn → first 200 on
// /healthz, median of 5) and idle RSS (VmRSS from /proc after startup settles),
// for a plain bridge (herdr absent) and for --demo. `bun bench/binary.ts [runs]`.
// Prints one JSON line and one human line. Linux only (/proc).
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { buildBinary } from '../test/binary/build'

const runs = Math.max(1, Number(process.argv[2] ?? 5) || 5)
const SETTLE_MS = 1000

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d

function freePort(): number {
  const s = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const p = s.port!
  s.stop(true)
  return p
}

function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  if (!m) throw new Error('no VmRSS')
  return Number(m[1])
}

async function once(bin: string, demo: boolean): Promise<{ startupMs: number; rssMiB: number }> {
  const port = freePort()
  const data = mkdtempSync(join(tmpdir(), 'gothalo-bench-'))
  const args = ['--port', String(port), '--data-dir', data, ...(demo ? ['--demo'] : ['--herdr', '/nonexistent/herdr'])]
  const t0 = performance.now()
  const proc = Bun.spawn([bin, ...args], { stdin: 'ignore', stdout: 'ignore', stderr: 'ignore', env: { ...process.env, HOME: data } })
  try {
    let startupMs = -1
    const deadline = t0 + 10_000
    while (performance.now() < deadline) {
      try {
        const r = await fetch(`http://127.0.0.1:${port}/healthz`)
        if (r.status === 200) {
          startupMs = performance.now() - t0
          await r.arrayBuffer()
          break
        }
      } catch {
        // not listening yet
      }
      await Bun.sleep(2)
    }
    if (startupMs < 0) throw new Error('no 200 on /healthz within 10 s')
    await Bun.sleep(SETTLE_MS)
    return { startupMs, rssMiB: rssKiB(proc.pid) / 1024 }
  } finally {
    proc.kill('SIGTERM')
    await proc.exited
    rmSync(data, { recursive: true, force: true })
  }
}

const b0 = performance.now()
const bin = await buildBinary()
const buildMs = performance.now() - b0
const sizeMiB = statSync(bin).size / 2 ** 20

const out: Record<string, unknown> = { bench: 'binary', runs, build_ms: round(buildMs, 0), size_mib: round(sizeMiB) }
// The floor: the same binary started and finished without serving (--version):
// the cost of starting the process at all, which startup includes.
const floors: number[] = []
for (let i = 0; i < runs; i++) {
  const t0 = performance.now()
  const p = Bun.spawn([bin, '--version'], { stdin: 'ignore', stdout: 'ignore', stderr: 'ignore' })
  await p.exited
  floors.push(performance.now() - t0)
}
out.floor_version_ms_median = round(median(floors))
for (const demo of [false, true]) {
  const rs: { startupMs: number; rssMiB: number }[] = []
  for (let i = 0; i < runs; i++) rs.push(await once(bin, demo))
  const k = demo ? 'demo' : 'plain'
  out[`${k}_startup_ms_median`] = round(median(rs.map((r) => r.startupMs)))
  out[`${k}_startup_ms_all`] = rs.map((r) => round(r.startupMs))
  out[`${k}_idle_rss_mib_median`] = round(median(rs.map((r) => r.rssMiB)))
}
rmSync(dirname(bin), { recursive: true, force: true })

console.log(JSON.stringify(out))
console.log(
  `binary: ${out.size_mib} MiB, built in ${out.build_ms} ms; floor: \`gothalo --version\` start to exit ${out.floor_version_ms_median} ms; startup to first /healthz 200 (median of ${runs}): ` +
    `plain ${out.plain_startup_ms_median} ms, --demo ${out.demo_startup_ms_median} ms; ` +
    `idle RSS ${out.plain_idle_rss_mib_median} MiB plain, ${out.demo_idle_rss_mib_median} MiB --demo`,
)
