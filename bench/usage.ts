// Usage (GET /usage, the rows' context_pct) is folded by the JSONL index pass,
// not read in a pass of its own. Two targets (docs/bridge.md "Usage"):
//   index pass  the cold index build of a 100 MB Claude session with the fold that
//               carries usage and the roster's facts, against the same build with
//               the roster's facts alone (the fold before usage), in CPU time, alternated in this
//               process, median of 9 each                       target ≤ 1.03×
//   /usage      on that session while a socket holds it (indexed): the registry's
//               usage() (resolve → facts → release), p50 of 200  target < 5 ms
//               (shown beside its floor: resolve + release alone)
//   bun bench/usage.ts
import { mkdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { LineFold } from '../src/transcript/jsonl/normalizer'
import { JsonlFiles } from '../src/transcript/jsonl/timeline'
import { claudeFileFold } from '../src/transcript/kinds/claude/file-fold'
import { countClaudeLine, countClaudeLineTapped, normalizeClaudeLine } from '../src/transcript/kinds/claude/normalize'
import { ParentFacts } from '../src/transcript/kinds/claude/roster-logic'
import { createSources } from '../src/transcript/sources'
import { generateTranscript } from './gen-transcript'
import { median } from './floor'
import { ms, sessionAgent } from './session-file'
import { check, finish, info, loadNote } from './verdict'

/** The Claude fold as it was before usage: the roster's parent facts alone. */
const rosterOnly: LineFold<ParentFacts> = {
  id: 'claude-parent-facts/1',
  fresh: () => new ParentFacts(),
  countAndFold: (line, _o, f) => countClaudeLineTapped(line, (rec) => f.addRecord(rec)),
  fold: (line, _o, f) => void f.addLine(line),
  save: (f) => f.toJSON(),
  load: (s) => ParentFacts.fromJSON(s),
}

const root = join(tmpdir(), `gothalo-bench-usage-${process.pid}`)
const SESSION = '11111111-2222-4333-8444-555555555555'
const CWD = '/home/me/bench/proj'
const project = join(root, 'claude', 'projects', CWD.replace(/[^A-Za-z0-9]/g, '-'))
mkdirSync(project, { recursive: true })
const path = join(project, `${SESSION}.jsonl`)
try {
  const { bytes } = generateTranscript(100, path)
  const mb = Math.round(bytes / 1e6)
  console.log(`usage: a ${mb} MB Claude session; ${loadNote()}`)

  const build = async (fold: LineFold) => {
    const files = new JsonlFiles()
    // CPU time, not wall time: the other work on 2 shared cores moves wall time by 2-3× between runs
    const c0 = process.cpuUsage()
    const tl = await files.acquire(path, normalizeClaudeLine, { count: countClaudeLine, fold })
    const c = process.cpuUsage(c0)
    const took = (c.user + c.system) / 1000
    tl.release()
    files.drop()
    return took
  }
  await build(rosterOnly) // page cache and JIT alike for both
  await build(claudeFileFold)
  const before: number[] = []
  const after: number[] = []
  for (let i = 0; i < 9; i++) {
    before.push(await build(rosterOnly))
    after.push(await build(claudeFileFold))
  }
  const ratio = median(after) / median(before)
  check(
    `${mb} MB cold index pass with usage folded`,
    ratio <= 1.03,
    `${median(after).toFixed(0)} ms CPU = ${ratio.toFixed(3)}× the pass without usage (${median(before).toFixed(0)} ms CPU; runs ${after.map((x) => x.toFixed(0)).join(', ')} vs ${before.map((x) => x.toFixed(0)).join(', ')})`,
    '≤ 1.03×',
  )

  const sources = createSources(
    { home: root, claudeDir: join(root, 'claude'), piDir: join(root, 'pi'), xdgStateHome: join(root, 's'), xdgDataHome: join(root, 'd') },
    { log: () => {} },
  )
  const claude = sources.forKind('claude')!
  const agent = sessionAgent('claude', CWD, { kind: 'id', value: SESSION })
  const held = await claude.resolve(agent, {}) // a socket on the session: indexed, held
  if (!held.ok) throw new Error(held.body)
  const time = async (f: () => Promise<unknown>, n: number) => {
    const xs: number[] = []
    for (let i = 0; i < n; i++) {
      const t0 = performance.now()
      await f()
      xs.push(ms(t0))
    }
    return xs
  }
  const usageOnce = async () => {
    const r = await sources.usage(agent)
    if (!r.ok || !r.usage.context) throw new Error('no usage')
  }
  const resolveOnce = async () => {
    const r = await claude.resolve(agent, {})
    if (r.ok) r.timeline.release()
  }
  await time(usageOnce, 20)
  await time(resolveOnce, 20)
  const u = await time(usageOnce, 200)
  const floorRuns = await time(resolveOnce, 200)
  const p50 = median(u)
  check(
    `/usage on the indexed ${mb} MB session`,
    p50 < 5,
    `p50 ${p50.toFixed(2)} ms, p95 ${[...u].sort((a, b) => a - b)[190]!.toFixed(2)} ms; floor (resolve + release alone) p50 ${median(floorRuns).toFixed(2)} ms = ${(p50 / median(floorRuns)).toFixed(2)}×`,
    '< 5 ms',
  )
  info('what it answered', JSON.stringify(((await sources.usage(agent)) as any).usage.context))
  held.timeline.release()
} finally {
  rmSync(root, { recursive: true, force: true })
}
finish('usage')
