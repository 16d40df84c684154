// Measures the pi transcript source on a large generated pi session.
//   bun bench/pi-transcript.ts [MB]        (default 100)
// The session is pi-basic's real lines (fixtures/pi) repeated with fresh ids,
// under a temp pi sessions dir removed at the end. In one run:
//   floor — stream the file in 2 MiB chunks, split lines, JSON.parse every line
//           (median of 3, this process, page cache warm), and the same in a
//           fresh process just before each cold run (the cold figure's floor);
//   cold  — a fresh process: createPiSource().resolve() (herdr's path) + read
//           the newest 150 (median of 3 fresh processes);
//   warm  — release, resolve again (the index is cached) + the newest 150.
// Targets: cold ≤ 1.2× the fresh floor (Claude's); warm < 50 ms. Prints one JSON
// line, then a summary.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createPiSource } from '../src/transcript/kinds/pi/source'
import { median, settledFloor } from './floor'
import { coldRuns, growSession, resolveAndPage, sessionAgent, warmRuns } from './session-file'
import { check, finish, loadNote } from './verdict'

const COLD = process.argv[2] === '--cold'
const MB = COLD ? 0 : Number(process.argv[2] ?? 100) || 100
const ROOT = COLD ? process.argv[3]! : mkdtempSync(join(tmpdir(), 'gothalo-pi-bench-'))
const PI_DIR = join(ROOT, 'agent')
const CWD = '/tmp/gothalo-pi-bench/proj'
const DIR = join(PI_DIR, 'sessions', '--tmp-gothalo-pi-bench-proj--')
const SID = '01a2aaaa-0000-7000-8000-0000000bench'
const PATH = join(DIR, `2026-12-02T10-00-00-000Z_${SID}.jsonl`)
const FIX = join(
  import.meta.dir,
  '../fixtures/pi/pi-basic/sessions/--home-me-pi-basic-proj--/2026-12-02T10-04-19-969Z_01a23636-547f-7174-a957-02ede8b4c7f6.jsonl',
)

function generate(bytes: number): void {
  const lines = readFileSync(FIX, 'utf8').split('\n').filter(Boolean)
  const header = JSON.parse(lines[0])
  const body = lines.slice(1)
  let prev: string | null = null
  growSession(PATH, bytes, JSON.stringify({ ...header, id: SID, cwd: CWD }), (k) => {
    const batch: string[] = []
    for (const l of body) {
      const rec = JSON.parse(l)
      const id = `${rec.id}${k.toString(16).padStart(6, '0')}`
      rec.id = id
      rec.parentId = prev
      prev = id
      // tool call ids must stay paired: give the call and its result the same fresh id
      if (rec.message?.toolCallId) rec.message.toolCallId += `_${k}`
      if (Array.isArray(rec.message?.content)) for (const b of rec.message.content) if (b.type === 'toolCall') b.id += `_${k}`
      batch.push(JSON.stringify(rec))
    }
    return batch.join('\n')
  })
}

const agent = sessionAgent('pi', CWD, { kind: 'path', value: PATH })
/**
 * The cold target: Claude's (bench/transcript-socket.ts), against the floor run in
 * a fresh process just before each cold one. Against this process's warm floor
 * (its old measure, with 1.5×) the ratio moved with how fast the warm floor ran
 * (pi: 1.28× and 1.53× in two runs of the same code).
 */
const COLD_TARGET = 1.2

if (COLD) {
  // a fresh process: resolve + newest page, timed here, reported to the parent
  const source = createPiSource({ home: ROOT, claudeDir: '', piDir: PI_DIR, xdgStateHome: '', xdgDataHome: '' }, { pollMs: 250 })
  const c = await resolveAndPage(source, agent)
  if (c.page !== 150) throw new Error(`newest page had ${c.page} entries`)
  console.log(JSON.stringify({ ms: c.ms, total: c.r.timeline.total() }))
  process.exit(0)
}

try {
  console.log(`pi-transcript: ${loadNote()}`)
  generate(MB * 1024 * 1024)
  const bytes = statSync(PATH).size
  const floorMs = await settledFloor(PATH)

  const colds: number[] = []
  let total = 0
  const { runs, freshFloors } = await coldRuns<{ ms: number; total: number }>(import.meta.path, ROOT, PATH)
  for (const out of runs) {
    colds.push(out.ms)
    total = out.total
  }
  const freshFloorMs = median(freshFloors)
  const source = createPiSource({ home: ROOT, claudeDir: '', piDir: PI_DIR, xdgStateHome: '', xdgDataHome: '' }, { pollMs: 250 })
  const first = await resolveAndPage(source, agent)
  first.r.timeline.release()
  const warms = await warmRuns(source, agent)
  const coldMs = median(colds)
  const warmMs = median(warms)
  const figures = {
    bench: 'pi-transcript',
    file_mb: +(bytes / 1048576).toFixed(1),
    entries: total,
    floor_ms: +floorMs.toFixed(1),
    cold_ms: +coldMs.toFixed(1),
    cold_all_ms: colds.map((x) => +x.toFixed(1)),
    cold_over_floor: +(coldMs / floorMs).toFixed(2),
    fresh_floor_ms: +freshFloorMs.toFixed(1),
    fresh_floor_all_ms: freshFloors.map((x) => +x.toFixed(1)),
    cold_over_fresh_floor: +(coldMs / freshFloorMs).toFixed(2),
    warm_ms: +warmMs.toFixed(2),
  }
  console.log(JSON.stringify(figures))
  console.log(`pi session ${figures.file_mb} MB, ${total} entries; floor = stream + JSON.parse every line = ${floorMs.toFixed(0)} ms`)
  check(
    'pi cold resolve + newest 150 (fresh process)',
    coldMs <= COLD_TARGET * freshFloorMs,
    `${coldMs.toFixed(0)} ms = ${figures.cold_over_fresh_floor}× the floor run in a fresh process (${figures.fresh_floor_ms} ms; fresh processes: ${figures.cold_all_ms.join(', ')}; fresh floors: ${figures.fresh_floor_all_ms.join(', ')}); ${figures.cold_over_floor}× the floor in this warm process`,
    `≤ ${COLD_TARGET}× the fresh floor`,
  )
  check('pi warm re-resolve + newest 150', warmMs < 50, `${warmMs.toFixed(2)} ms (floor ${floorMs.toFixed(0)} ms)`, '< 50 ms')
} finally {
  rmSync(ROOT, { recursive: true, force: true })
}
finish('pi-transcript')
