// Fails when the modules under src/ import each other in a cycle (type-only
// imports included: a cycle of types is still two modules that cannot be read
// alone). Prints each cycle once, as the chain of files. Run by `npm test`.
//   bun scripts/import-cycles.ts [dir]
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const ROOT = resolve(import.meta.dir, '..')
const SRC = resolve(ROOT, process.argv[2] ?? 'src')

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n)
    if (statSync(p).isDirectory()) return files(p)
    return /\.tsx?$/.test(n) && !n.endsWith('.d.ts') ? [p] : []
  })
}

/** The local modules a file imports or re-exports, resolved to files. */
export function importsOf(file: string, text: string): string[] {
  const out: string[] = []
  const re = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const spec = (m[1] ?? m[2])!
    const base = resolve(dirname(file), spec)
    for (const cand of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')]) {
      try {
        if (statSync(cand).isFile()) {
          out.push(cand)
          break
        }
      } catch {}
    }
  }
  return out
}

/** Every cycle, each once (its rotation starting at its smallest file). */
export function cycles(graph: Map<string, string[]>): string[][] {
  const found = new Map<string, string[]>()
  const state = new Map<string, 'open' | 'done'>()
  const stack: string[] = []
  const visit = (f: string) => {
    state.set(f, 'open')
    stack.push(f)
    for (const g of graph.get(f) ?? []) {
      if (state.get(g) === 'open') {
        const cyc = stack.slice(stack.indexOf(g))
        const i = cyc.indexOf([...cyc].sort()[0]!)
        const rot = [...cyc.slice(i), ...cyc.slice(0, i)]
        found.set(rot.join('>'), rot)
      } else if (!state.has(g)) visit(g)
    }
    stack.pop()
    state.set(f, 'done')
  }
  for (const f of [...graph.keys()].sort()) if (!state.has(f)) visit(f)
  return [...found.values()]
}

if (import.meta.main) {
  const graph = new Map<string, string[]>()
  for (const f of files(SRC)) graph.set(f, importsOf(f, readFileSync(f, 'utf8')))
  const found = cycles(graph)
  const rel = (f: string) => relative(ROOT, f)
  for (const c of found) console.error(`import cycle: ${[...c, c[0]!].map(rel).join(' → ')}`)
  console.log(found.length ? `${found.length} import cycle(s) in ${rel(SRC)}` : `no import cycle in ${rel(SRC)} (${graph.size} modules)`)
  process.exit(found.length ? 1 : 0)
}
