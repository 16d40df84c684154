// Review changes on a large repository (issue 29), against git's own time in
// the same run on the same repository:
//  - GET /changes' work (changesOf) on 50,000 files with 200 changed, against
//    `git status --porcelain=v2 -z --branch`, `git diff-files --numstat -z` and
//    `git diff-index --cached --numstat -z HEAD`
//    run as it runs them (at once); target ≤ 1.3x;
//  - a 10,000-line diff, parsed and made into its JSON answer; target < 100 ms.
// Usage: bun bench/changes.ts
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { changesOf, diffOf } from '../src/changes/repo'
import type { PrivatePlaces } from '../src/changes/private'
import { check, finish, info, loadNote } from './verdict'

const dir = join(tmpdir(), `gothalo-bench-changes-${process.pid}`)
const FILES = 50_000
const NOTHING_PRIVATE: PrivatePlaces = { places: [] }
const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' }
const g = (...args: string[]) => {
  const r = Bun.spawnSync(['git', '-c', 'user.name=b', '-c', 'user.email=b@example.com', '-c', 'init.defaultBranch=main', ...args], { cwd: dir, env })
  if (r.exitCode !== 0) throw new Error(r.stderr.toString())
}
rmSync(dir, { recursive: true, force: true })
mkdirSync(dir, { recursive: true })
g('init', '-q')
for (let i = 0; i < FILES; i++) {
  const d = join(dir, `pkg${i % 100}`, `mod${Math.floor(i / 100) % 50}`)
  if (i < 5000) mkdirSync(d, { recursive: true })
  writeFileSync(join(d, `f${i}.ts`), `export const v${i} = ${i}\n`)
}
writeFileSync(join(dir, 'big.txt'), Array.from({ length: 10_000 }, (_, i) => `line ${i}`).join('\n') + '\n')
g('add', '-A')
g('commit', '-qm', 'all')
// 200 changed: 150 modified, 49 untracked, and the big file rewritten (10,000 lines changed)
for (let i = 0; i < 150; i++)
  writeFileSync(join(dir, `pkg${i % 100}`, `mod${Math.floor(i / 100) % 50}`, `f${i}.ts`), `export const v${i} = ${i + 1}\n// changed\n`)
for (let i = 0; i < 49; i++) writeFileSync(join(dir, `pkg${i}`, `new${i}.ts`), 'export {}\n')
writeFileSync(join(dir, 'big.txt'), Array.from({ length: 10_000 }, (_, i) => `changed line ${i}`).join('\n') + '\n')
g('status', '--porcelain') // one plain status first, as a user's shell would have: the index stat data is fresh

const run = (args: string[]) => Bun.spawn(['git', ...args], { cwd: dir, env, stdout: 'pipe', stderr: 'ignore' })
async function floor(): Promise<number> {
  const t0 = performance.now()
  await Promise.all(
    [
      ['status', '--porcelain=v2', '-z', '--branch', '--untracked-files=all'],
      ['diff-files', '--numstat', '-z', '-M'],
      ['diff-index', '--cached', '--numstat', '-z', '-M', 'HEAD'],
    ].map(async (a) => {
      const p = run(a)
      await new Response(p.stdout).arrayBuffer()
      await p.exited
    }),
  )
  return performance.now() - t0
}
async function ours(): Promise<number> {
  const t0 = performance.now()
  const c = await changesOf(dir, NOTHING_PRIVATE)
  if (c?.files.length !== 200) throw new Error(`expected 200 changed files, got ${c?.files.length}`)
  return performance.now() - t0
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
await floor()
await ours()
const f: number[] = []
const o: number[] = []
for (let i = 0; i < 9; i++) {
  f.push(await floor())
  o.push(await ours())
}
const d: number[] = []
for (let i = 0; i < 9; i++) {
  const t0 = performance.now()
  const diff = await diffOf(dir, 'big.txt', false, NOTHING_PRIVATE)
  JSON.stringify(diff)
  d.push(performance.now() - t0)
  if (!diff || diff.hunks[0]!.lines.length !== 20_000) throw new Error('the big diff is wrong')
}
console.log(`changes: ${loadNote()}`)
info('repository', `${FILES} files, 200 changed (one of them 10,000 lines)`)
info("git's own time (status + two numstats at once), median", `${med(f).toFixed(1)} ms`)
check('GET /changes work, median', med(o) <= med(f) * 1.3, `${med(o).toFixed(1)} ms = ${(med(o) / med(f)).toFixed(2)}x git`, '≤ 1.3x')
check('a 10,000-line diff, parsed and serialized, median', med(d) < 100, `${med(d).toFixed(1)} ms`, '< 100 ms')
if (!process.env.KEEP) rmSync(dir, { recursive: true, force: true })
finish('changes')
