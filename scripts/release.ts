// npm run release [-- target …]: one self-contained binary per platform, by
// cross-compiling with bun build --compile --target. `bun build` would download
// each platform's Bun runtime from GitHub; instead the runtime comes from the npm
// registry (the @oven/bun-* package that `npm install bun` itself uses), fetched
// once with `npm pack` into .cache/ and handed over with --compile-executable-path.
// So a release needs the npm registry and nothing else.
//   out: dist/release/gothalo-<version>-<os>-<arch> and SHA256SUMS
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

const ROOT = resolve(import.meta.dir, '..')
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
const BUN_VERSION: string = pkg.devDependencies.bun

/** Release target → Bun's --target and the npm package that carries that runtime. */
export const TARGETS: Record<string, { bunTarget: string; npm: string }> = {
  'linux-x64': { bunTarget: 'bun-linux-x64', npm: '@oven/bun-linux-x64' },
  'linux-arm64': { bunTarget: 'bun-linux-arm64', npm: '@oven/bun-linux-aarch64' },
  'darwin-x64': { bunTarget: 'bun-darwin-x64', npm: '@oven/bun-darwin-x64' },
  'darwin-arm64': { bunTarget: 'bun-darwin-arm64', npm: '@oven/bun-darwin-aarch64' },
}

function run(argv: string[], cwd = ROOT): string {
  const r = Bun.spawnSync(argv, { cwd, stdout: 'pipe', stderr: 'pipe' })
  if (r.exitCode !== 0) throw new Error(`${argv.join(' ')} failed (${r.exitCode}):\n${r.stdout}${r.stderr}`)
  return r.stdout.toString()
}

/** The runtime binary for a target, from the npm registry, cached under .cache/. */
export function runtimeFor(target: string): string {
  const t = TARGETS[target]
  const dir = join(ROOT, '.cache', 'bun-runtimes', `${t.npm.replace('/', '__')}-${BUN_VERSION}`)
  const bin = join(dir, 'package', 'bin', 'bun')
  if (existsSync(bin)) return bin
  const tmp = mkdtempSync(join(tmpdir(), 'gothalo-runtime-'))
  try {
    const name = run(['npm', 'pack', `${t.npm}@${BUN_VERSION}`, '--pack-destination', tmp, '--silent'])
      .trim()
      .split('\n')
      .pop()!
    mkdirSync(dir, { recursive: true })
    run(['tar', 'xzf', join(tmp, name), '-C', dir])
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
  if (!existsSync(bin)) throw new Error(`${t.npm}@${BUN_VERSION} has no package/bin/bun`)
  return bin
}

export function build(target: string, outDir = join(ROOT, 'dist', 'release')): string {
  const t = TARGETS[target]
  if (!t) throw new Error(`unknown target ${target} (one of ${Object.keys(TARGETS).join(', ')})`)
  mkdirSync(outDir, { recursive: true })
  const out = join(outDir, `gothalo-${pkg.version}-${target}`)
  run([
    process.execPath,
    'build',
    '--compile',
    '--no-compile-autoload-dotenv',
    '--no-compile-autoload-bunfig',
    `--target=${t.bunTarget}`,
    `--compile-executable-path=${runtimeFor(target)}`,
    'src/main.ts',
    // the search index's writer and reader threads are entrypoints of their own (src/search/writer.ts and reader.ts find them in the binary)
    'src/search/write-worker.ts',
    'src/search/read-worker.ts',
    '--outfile',
    out,
  ])
  return out
}

if (import.meta.main) {
  const targets = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(TARGETS)
  const sums: string[] = []
  for (const target of targets) {
    const out = build(target)
    const sha = createHash('sha256').update(readFileSync(out)).digest('hex')
    sums.push(`${sha}  ${out.split('/').pop()}`)
    console.log(`${out}`)
  }
  writeFileSync(join(ROOT, 'dist', 'release', 'SHA256SUMS'), sums.join('\n') + '\n')
}
