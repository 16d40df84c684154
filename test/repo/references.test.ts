// The repo stands on its own: every document a source comment cites is in the
// repo (docs/), every § and quoted section it names exists there, and nothing
// points at a file outside the clone or at one machine's paths.
import { describe, expect, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const ROOT = join(import.meta.dir, '..', '..')

function trackedFiles(): string[] {
  const r = Bun.spawnSync(['git', 'ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT })
  if (r.exitCode !== 0) throw new Error(`git ls-files failed: ${r.stderr.toString()} (the tests run inside a git clone)`)
  return r.stdout
    .toString()
    .split('\0')
    .filter((f) => f && existsSync(join(ROOT, f)))
}

/** Source, tests, benches, scripts and docs: what people write. Fixtures are captured data, and the snapshots made from them. */
const SELF = 'test/repo/references.test.ts'
const written = () =>
  trackedFiles().filter(
    (f) =>
      f !== SELF &&
      /\.(ts|js|md|sh|json|toml)$/.test(f) &&
      !f.startsWith('fixtures/') &&
      !f.endsWith('.snapshot.json') &&
      !f.startsWith('src/demo/samples/') &&
      f !== 'package-lock.json' &&
      !f.startsWith('assets/'),
  )

/** Headings of a markdown file, lower-cased. */
function headings(file: string): string[] {
  return readFileSync(join(ROOT, file), 'utf8')
    .split('\n')
    .filter((l) => /^#{1,6} /.test(l))
    .map((l) => l.replace(/^#+ /, '').toLowerCase())
}

describe('references resolve inside the repo', () => {
  const code = trackedFiles().filter((f) => f !== SELF && /^(src|test|bench|scripts)\/.*\.(ts|sh)$/.test(f))

  test('every docs/… file a comment cites exists, with the § and quoted sections it names', () => {
    const problems: string[] = []
    let cited = 0
    for (const f of code) {
      const text = readFileSync(join(ROOT, f), 'utf8')
      for (const m of text.matchAll(/(?<![\w./-])docs\/([A-Za-z0-9_./-]+\.md)(?: (§[0-9.]+)(?:[–-]([0-9.]+))?|,? "([^"\n]+)")?/g)) {
        cited++
        const doc = `docs/${m[1]}`
        if (!existsSync(join(ROOT, doc))) {
          problems.push(`${f}: ${doc} does not exist`)
          continue
        }
        const hs = headings(doc)
        for (const sec of [m[2]?.slice(1), m[3]].filter(Boolean) as string[]) {
          const n = sec.replace(/\.$/, '')
          if (!hs.some((h) => h.startsWith(`${n}.`) || h.startsWith(`${n} `))) problems.push(`${f}: ${doc} has no section §${n}`)
        }
        if (m[4] && !hs.some((h) => h.includes(m[4].toLowerCase()))) problems.push(`${f}: ${doc} has no section "${m[4]}"`)
      }
    }
    expect(problems).toEqual([])
    expect(cited).toBeGreaterThan(20)
  })

  test('no comment cites a contract or reference file by a path outside docs/', () => {
    const bad: string[] = []
    for (const f of code) {
      readFileSync(join(ROOT, f), 'utf8')
        .split('\n')
        .forEach((l, i) => {
          // a bare `reference/x.md` or `spec/x.md`, or one reached through ../
          if (/(?<!docs\/)(?:reference|spec)\/[\w-]+\.md|\.\.\/shared|shared\/(?:spec|reference|corpus)/.test(l)) bad.push(`${f}:${i + 1}: ${l.trim()}`)
          else if (/(?<![\w/])(?:agent-pane-api|bridge|herdr-cli|claude-code|pi-opencode-codex|stack|design)\.md/.test(l))
            bad.push(`${f}:${i + 1}: ${l.trim()}`)
        })
    }
    expect(bad).toEqual([])
  })

  test('no absolute path of the machine that wrote the code', () => {
    const bad: string[] = []
    for (const f of written()) {
      readFileSync(join(ROOT, f), 'utf8')
        .split('\n')
        .forEach((l, i) => {
          if (/(?<![\w.$/])\/(?:work|root)\/|\/tmp\/cap-|\.\.\/shared\//.test(l)) bad.push(`${f}:${i + 1}: ${l.trim()}`)
        })
    }
    expect(bad).toEqual([])
  })

  test('the README and the docs link only to files that exist', () => {
    const bad: string[] = []
    for (const f of ['README.md', ...trackedFiles().filter((x) => /^docs\/.*\.md$/.test(x))]) {
      const text = readFileSync(join(ROOT, f), 'utf8')
      for (const m of text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)) {
        const target = m[1]
        if (/^[a-z]+:/.test(target)) continue // a URL
        const p = join(ROOT, f.includes('/') ? f.slice(0, f.lastIndexOf('/')) : '', target)
        if (!existsSync(p)) bad.push(`${f}: ${target}`)
      }
    }
    expect(bad).toEqual([])
  })
})
