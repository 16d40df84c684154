// scripts/failures.awk repeats each failure's error at the end of npm test's log,
// where CI's view of a long log ends. Fed bun's real report (bun test run on
// small files made here), it must carry the error of a failed test and of an
// unhandled error in a hook, and print nothing when all passed.
import { describe, expect, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from '../support/harness'

const ROOT = join(import.meta.dir, '..', '..')
const AWK = join(ROOT, 'scripts/failures.awk')

function report(files: Record<string, string>): string {
  const dir = tempDir('gothalo-failures-')
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  const r = Bun.spawnSync([process.execPath, 'test', ...Object.keys(files).map((f) => `./${f}`)], { cwd: dir, env: { ...process.env, NO_COLOR: '1' } })
  return r.stdout.toString() + r.stderr.toString()
}

function again(log: string): string {
  const r = Bun.spawnSync(['awk', '-f', AWK], { stdin: new TextEncoder().encode(log) })
  if (r.exitCode !== 0) throw new Error(`awk failed: ${r.stderr.toString()}`)
  return r.stdout.toString()
}

describe('the failures repeated at the end of the log', () => {
  test("a failed test's error and an unhandled error in a hook, each once, after the report", () => {
    const log = report({
      'a.test.ts': [
        "import { afterEach, expect, test } from 'bun:test'",
        'let n = 0',
        "afterEach(async () => { if (n++ === 1) { setTimeout(() => { throw new Error('thrown in a hook') }, 1); await Bun.sleep(20) } })",
        'test("passes", () => { expect(1).toBe(1) })',
        'test("fails", () => { expect("the value it had").toBe("the value it wanted") })',
        'test("passes after", () => {})',
      ].join('\n'),
    })
    const tail = again(log)
    expect(tail.startsWith('\n── the failures again, from the report above ──\n')).toBe(true)
    expect(tail.match(/Received: "the value it had"/g)?.length).toBe(1)
    expect(tail.match(/\(fail\) fails/g)?.length).toBe(1)
    expect(tail.match(/# Unhandled error between tests/g)?.length).toBe(1)
    expect(tail.match(/error: thrown in a hook/g)?.length).toBe(1)
    // Nothing of the passing tests, nor bun's closing list of names.
    expect(tail).not.toContain('(pass)')
    expect(tail).not.toContain('tests failed:')
  })

  test('a report where everything passed: nothing added', () => {
    const log = report({ 'b.test.ts': "import { test } from 'bun:test'\ntest('ok', () => {})\n" })
    expect(log).toContain('(pass) ok')
    expect(again(log)).toBe('')
  })

  test('a long error keeps its last 40 lines, saying how many it left out', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i}`)
    const log = ['x.test.ts:', ...lines, '(fail) long one [1.00ms]', '', ' 0 pass', ' 1 fail'].join('\n')
    const tail = again(log).split('\n')
    expect(tail).toContain('  … (61 lines above)')
    expect(tail).not.toContain('line 60')
    expect(tail).toContain('line 61')
    expect(tail).toContain('(fail) long one [1.00ms]')
  })
})
